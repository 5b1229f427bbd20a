"""News with a request inside it is answered, and news the model reads as asking nothing is
reacted to (first contact, set 14: "PASSED D TRADE TEST abeg which multimeter ..." got only "Got
it, I'll remember that."; "e go help me from ikorodu to work everyday" got "I don't know.")."""

from __future__ import annotations

import json

import pytest

from services.cycle.synthesis import NO_GOOD_ANSWER
from tests.claims_support import REQUESTS_IN_NEWS
from thea.llm.fake import DEFAULT_REPLY, FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "tobi"


@pytest.mark.parametrize(("message", "asked"), REQUESTS_IN_NEWS)
async def test_a_request_inside_news_is_answered_after_the_acknowledgement(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str
) -> None:
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "help"}))
    llm.answer(PromptId.SYNTHESIS, f"Got it, I'll remember that. {DEFAULT_REPLY}")  # the model copies it
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1")
    assert result.answer == f"Got it, I'll remember that. {DEFAULT_REPLY}", result.answer
    assert llm.prompts_for(PromptId.SYNTHESIS)  # answered by the model, as help
    # the model cannot say: as the reading of acts by sentence has it
    llm.answer(PromptId.ASKED_BESIDE_NEWS, "")
    llm.calls.clear()
    await runtime.orchestrator.handle_impulse(message, USER, "s2")
    assert llm.prompts_for(PromptId.ASKED_BESIDE_NEWS)


@pytest.mark.parametrize(
    "message",
    [
        "finally bought my own scooter, paid 560k. e go help me get to work every day",
        "got the keys to the flat. the bus helps me get to the office on time",
    ],
)
async def test_news_that_asks_nothing_gets_a_reaction_not_an_answer(
    runtime: Runtime, llm: FakeChatModel, message: str
) -> None:
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": "", "asks": "nothing"}))
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1")
    assert result.answer == "Got it, I'll remember that."
    assert "don't know" not in result.answer
    assert not llm.prompts_for(PromptId.SYNTHESIS)


REFUSALS = [
    "I'm sorry, but I can't assist with that request.",
    "Sorry, I cannot help with that. Is there anything else?",
    "As an AI language model, I don't have personal preferences.",
]


@pytest.mark.parametrize("refusal", REFUSALS)
@pytest.mark.parametrize(
    "message",
    [
        "Can you suggest a cheap spot for a birthday dinner in Lekki?",
        "kemi get exam on d 9th so dinner don shift. help me find spot for lekki wey no go finish my money",
    ],
)
async def test_a_request_the_model_declines_never_shows_the_refusal(
    runtime: Runtime, llm: FakeChatModel, refusal: str, message: str
) -> None:
    """First contact, set 14: "… help me find spot for lekki …" -> "Got it, I'll remember that.
    I'm sorry, but I can't assist with that request." The refusal is held back while it streams;
    the reading model is asked (here the same model, which declines again): a plain line instead."""
    llm.answer(PromptId.SYNTHESIS, refusal)
    streamed: list[str] = []
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1", on_token=streamed.append)
    shown = "".join(streamed)
    for said in (result.answer, shown):
        assert "assist" not in said
        assert "language model" not in said
    assert result.answer.endswith(NO_GOOD_ANSWER)
    assert len(llm.prompts_for(PromptId.SYNTHESIS)) == 1  # the same model is not asked twice


async def test_an_answer_opening_like_a_refusal_that_is_none_streams_whole(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    answer = "I'm sorry to hear the dinner moved. Try Ofada Boy in Lekki, it is cheap and good."
    llm.answer(PromptId.SYNTHESIS, answer)
    streamed: list[str] = []
    result = await runtime.orchestrator.handle_impulse(
        "Can you suggest a cheap spot for a birthday dinner in Lekki?", USER, "s1", on_token=streamed.append
    )
    assert result.answer == answer
    assert "".join(streamed) == answer


NEWS_WITH_A_REQUEST = [
    pytest.param(
        "got the promotion to deputy head!!! any ideas for a small celebration dinner at home?",
        "any ideas for a small celebration dinner at home?",
        "good",
        "Congratulations on the promotion!",
        id="promotion",
    ),
    pytest.param(
        "Passed my driving test this morning!! Can you suggest a cheap first car?",
        "Can you suggest a cheap first car?",
        "good",
        "Well done on passing!",
        id="driving-test",
    ),
    pytest.param(
        "We had to let our old dog go on Monday. How do I explain it to a five-year-old?",
        "How do I explain it to a five-year-old?",
        "bad",
        "I'm so sorry about your dog.",
        id="loss",
    ),
]


@pytest.mark.parametrize(("message", "asked", "feeling", "reaction"), NEWS_WITH_A_REQUEST)
async def test_news_beside_a_request_gets_a_reaction_before_the_answer(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str, feeling: str, reaction: str
) -> None:
    """Live trial: "got the promotion to deputy head!!! … any ideas for a small celebration dinner"
    got "Got it, I'll remember that." and the ideas: a person says congratulations first (issue
    38, item 1). The reading model reacts to the news part; the reaction passes the same checks
    as a reaction to news alone, and the request is answered after it."""
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "help"}))
    llm.answer(PromptId.REPLY, json.dumps({"feeling": feeling, "reply": reaction}))
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1")
    assert result.answer == f"{reaction} {DEFAULT_REPLY}", result.answer
    (reacting,) = llm.prompts_for(PromptId.REPLY)
    news = reacting[-1].content
    assert "?" not in news, news  # the news only: the request is the answering model's
    # a reaction that says the news back is never shown: the acknowledgement stands; bad news
    # whose reaction cannot be shown gets the word of sympathy instead
    llm.answer(PromptId.REPLY, json.dumps({"feeling": feeling, "reply": message.split("?")[0]}))
    echoed = await runtime.orchestrator.handle_impulse(message, USER, "s2")
    opening = "I'm sorry to hear that." if feeling == "bad" else "Got it, I'll remember that."
    assert echoed.answer == f"{opening} {DEFAULT_REPLY}", echoed.answer
    # the model cannot react: the acknowledgement
    llm.answer(PromptId.REPLY, "")
    plain = await runtime.orchestrator.handle_impulse(message, USER, "s3")
    assert plain.answer == f"Got it, I'll remember that. {DEFAULT_REPLY}", plain.answer


@pytest.mark.parametrize(
    ("message", "asked", "feeling", "reaction", "rest"),
    [
        (
            "We lost our old cat Miso yesterday. Is it normal to feel this empty?",
            "Is it normal to feel this empty?",
            "bad",
            "I'm sorry to hear that.",
            "Yes, it is normal to grieve a pet for a while.",
        ),
        (
            "Got the job at the library!! Is a thank-you email after an interview still a thing?",
            "Is a thank-you email after an interview still a thing?",
            "good",
            "Congratulations on the job!",
            "Yes, a short thank-you email is still a good idea.",
        ),
        (
            "My flight got cancelled again. Do airlines have to pay compensation in the EU?",
            "Do airlines have to pay compensation in the EU?",
            "bad",
            "I'm sorry your flight got cancelled.",
            "In the EU, airlines often owe compensation for a cancellation.",
        ),
    ],
)
async def test_the_reaction_to_news_is_said_once_when_the_answer_opens_with_it_too(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str, feeling: str, reaction: str, rest: str
) -> None:
    """First contact, set 25: news with a question beside it got "I'm sorry to hear that. I'm sorry
    to hear that. …": the reading model's reaction, then the answering model's answer opening
    with the same words. A person says it once."""
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "nothing"}))
    llm.answer(PromptId.REPLY, json.dumps({"feeling": feeling, "reply": reaction}))
    llm.answer(PromptId.SYNTHESIS, f"{reaction.rstrip('.!')}! {rest}")
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1")
    assert result.answer == f"{reaction} {rest}", result.answer


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        (
            "another favour pls: lunch box ideas for my two kids this week, cheap, nothing with nuts",
            "lunch box ideas for my two kids this week",
        ),
        (
            "quick one - leaving present suggestions for my boss, around 20 quid, she likes gin",
            "leaving present suggestions for my boss",
        ),
        (
            "ok so. staff meal ideas for like 20 ppl, cheap, something i can prep the day before",
            "staff meal ideas for like 20 ppl",
        ),
    ],
)
async def test_a_request_cut_out_of_its_sentence_reaches_the_model_whole(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str
) -> None:
    """Live: "another favour pls: lunch box ideas for my two kids this week, cheap, nothing with
    nuts", its request found inside the sentence, was given to the answering model as "another
    favour pls:. , cheap, nothing with nuts. lunch box ideas for my two kids this week." and its
    answer was lost. What qualifies a request is in the same sentence: it stays with it, in order."""
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "help"}))
    await runtime.orchestrator.handle_impulse(message, USER, "s1")
    given = " ".join(str(llm.prompts_for(PromptId.SYNTHESIS)[-1][-1].content).split())
    tail = message.split(asked, 1)[1]
    assert f"{asked}{tail}" in given, given
    assert ":." not in given, given
    assert ". ," not in given, given


@pytest.mark.parametrize(
    ("message", "asked", "told"),
    [
        (
            "got a puppy! best way to crate train him. he is 9 weeks old",
            "best way to crate train him",
            "he is 9 weeks old",
        ),
        (
            "boiler died again. what can i do to keep warm tonight. engineer comes friday",
            "what can i do to keep warm tonight",
            "engineer comes friday",
        ),
    ],
)
async def test_a_request_sentence_inside_news_is_what_the_model_reads_last(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str, told: str
) -> None:
    """A request that is a sentence of its own, with news after it, is still given last (the 0.5B
    answers the last thing it reads), with the sentence's own end."""
    llm.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "help"}))
    await runtime.orchestrator.handle_impulse(message, USER, "s1")
    given = " ".join(str(llm.prompts_for(PromptId.SYNTHESIS)[-1][-1].content).split())
    assert given.endswith(f"{asked}."), given
    assert told in given, given
