"""The claims the model picks as an answer, said whole (first contact set 13): every current value
of the label picked that states what is asked, and a claim whose own line says too little kept
when the user's words it was read from answer (the answer shows them)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from services.prompts.extract_claims import ClaimOut
from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "ravi"


async def _told(runtime: Runtime, llm: FakeChatModel, script: dict[str, list[ClaimOut]]) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(script))
    for text in script:
        await runtime.orchestrator.handle_impulse(f"{text}.", USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)


def _check_says(*answering: str) -> Callable[[FakeCall], str]:
    """The answer check: a line answers when it holds one of ``answering``."""

    def check(call: FakeCall) -> str:
        line = plain_text(call.messages[-1:]).split("LINE:", 1)[-1].split("QUESTION:", 1)[0]
        says = any(word in line for word in answering)
        return json.dumps(
            {
                "asked": "",
                "answer": line.strip() if says else "",
                "verdict": "answers" if says else "does not answer",
            }
        )

    return check


# (what was told: two values of one label, both current; the question; a third claim of
# another label that must not be said)
TWO_VALUES = [
    pytest.param(
        {
            "I'm vegetarian": [said("I'm vegetarian", "diet", "vegetarian")],
            "since last spring I'm lactose intolerant as well": [
                said("I'm lactose intolerant as well", "diet", "lactose intolerant")
            ],
            "On Sundays I play cricket": [said("On Sundays I play cricket", "hobby", "cricket")],
        },
        "Is there anything I need to keep out of my diet?",
        ("vegetarian", "lactose intolerant"),
        "cricket",
        id="diet",
    ),
    pytest.param(
        {
            "i'm allergic to peanuts": [said("i'm allergic to peanuts", "allergy", "peanuts")],
            "turns out penicillin too, found out the hard way": [
                said("penicillin too", "allergy", "penicillin")
            ],
            "i work at the depot": [said("i work at the depot", "workplace", "the depot")],
        },
        "what am i allergic to",
        ("peanuts", "penicillin"),
        "depot",
        id="allergies",
    ),
    pytest.param(
        {
            "We speak Gujarati at home": [said("We speak Gujarati at home", "language", "Gujarati")],
            "and I picked up Portuguese in Recife": [
                said("I picked up Portuguese in Recife", "language", "Portuguese")
            ],
            "I drive a blue Skoda": [said("I drive a blue Skoda", "car", "blue Skoda")],
        },
        "Which languages do I speak?",
        ("Gujarati", "Portuguese"),
        "Skoda",
        id="languages",
    ),
]


@pytest.mark.parametrize(("script", "question", "values", "other"), TWO_VALUES)
async def test_every_current_value_of_the_label_picked_is_said(
    runtime: Runtime,
    llm: FakeChatModel,
    script: dict[str, list[ClaimOut]],
    question: str,
    values: tuple[str, str],
    other: str,
) -> None:
    """Seen on first contact (set 13): "diet: vegetarian" and "diet: lactose intolerant" were both
    current and shown to the pick, which chose one; the answer left out the intolerance. The other
    current values of the label picked are checked too and said when they answer."""
    await _told(runtime, llm, script)

    def pick_first_value(call: FakeCall) -> str:  # a small model picks one of the two
        shown = str(call.messages[-1].content)
        for row in shown.splitlines():
            number, _, text = row.partition(". ")
            if number.strip().isdigit() and values[0] in text:
                return json.dumps({"facts": [int(number)]})
        return json.dumps({"facts": []})

    llm.answer(PromptId.PICK_CLAIMS, pick_first_value)
    llm.answer(PromptId.ANSWER_CHECK, _check_says(*values))
    answer = (await runtime.orchestrator.handle_impulse(question, USER, "s2")).answer
    assert all(value in answer for value in values), answer
    assert other not in answer
    # a value of the label the check says does not answer is not said
    llm.answer(PromptId.ANSWER_CHECK, _check_says(values[0]))
    again = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert values[0] in again
    assert values[1] not in again, again


# (the claim read, whose line alone does not answer; the question; what only its words hold)
SAID_IN_THE_WORDS = [
    pytest.param(
        said(
            "I've accepted the head of science post at Kingfisher College in Loughborough",
            "job",
            "head of science",
        ),
        "Which college is my new job at?",
        "Kingfisher College",
        id="school-in-the-words-of-a-job",
    ),
    pytest.param(
        said("we moved into a terraced house in Headingley, Leeds", "home", "Leeds"),
        "which part of town is our home in",
        "Headingley",
        id="district-in-the-words-of-a-home",
    ),
    pytest.param(
        said("we adopted Mochi from the Battersea shelter in May", "pet", "Mochi"),
        "where did we get our pet from",
        "Battersea",
        id="shelter-in-the-words-of-a-pet",
    ),
]


# (a claim that names only what the question names, read from words that say more; the
# question; what only its words hold)
NAMED_IN_THE_QUESTION = [
    pytest.param(
        said("we moved into a terraced house in Headingley, Leeds", "home", "Leeds"),
        "which part of leeds do we live in",
        "Headingley",
        id="district-of-the-city-named",
    ),
    pytest.param(
        said("our rescue beagle Biscuit", "name", "Biscuit", subject="Biscuit", relation="dog"),
        "What breed is Biscuit?",
        "beagle",
        id="breed-of-the-pet-named",
    ),
    pytest.param(
        said("my wife Ama, she's a midwife at the Royal", "wife", "Ama", subject="Ama", relation="wife"),
        "What does Ama do for a living?",
        "midwife",
        id="job-of-the-person-named",
    ),
]


@pytest.mark.parametrize(("claim", "question", "only_in_words"), SAID_IN_THE_WORDS + NAMED_IN_THE_QUESTION)
async def test_a_claim_whose_words_answer_is_said_with_them(
    runtime: Runtime, llm: FakeChatModel, claim: ClaimOut, question: str, only_in_words: str
) -> None:
    """Seen on first contact (set 13): "Your job: head of science", read from "I've accepted the
    head of science post at Kingfisher College", was picked for "Which school am I joining?"
    and dropped by the answer check, which saw only the claim's line. The line with the user's
    words is checked next; kept, the answer shows the words. A claim that only names what the
    question names ("Your home: Leeds." for "which part of Leeds?") is checked the same way:
    said when its words answer, no answer when they do not."""
    await _told(runtime, llm, {claim.quote: [claim]})
    llm.answer(PromptId.PICK_CLAIMS, json.dumps({"facts": [1]}))
    llm.answer(PromptId.ANSWER_CHECK, _check_says(only_in_words))
    answer = (await runtime.orchestrator.handle_impulse(question, USER, "s2")).answer
    assert llm.prompts_for(PromptId.PICK_CLAIMS), "the pick was asked"
    assert only_in_words in answer, answer
    assert answer.startswith("Your "), answer  # the claim, said by code with the user's words
    # words that do not answer either: no answer from the claim
    llm.answer(PromptId.ANSWER_CHECK, _check_says("nothing of the kind"))
    again = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert not again.startswith("Your "), again
    assert only_in_words not in again, again


# (what was told and read; the question; a later message sharing a word with the question that
# says nothing of what it asks)
SAID_SINCE_ABOUT_ELSE = [
    pytest.param(
        said("My name is Arjun", "name", "Arjun"),
        "What is my name?",
        "my brother and his wife just had a baby girl, they've named her Anaya",
        id="named-a-baby",
    ),
    pytest.param(
        said("I'm vegetarian", "diet", "vegetarian"),
        "Is there anything I need to keep out of my diet?",
        "cricket on Sundays is the one thing that keeps me sane",
        id="keeps-me-sane",
    ),
    pytest.param(
        said("I teach physics at Abbey Meadows", "job", "physics teacher"),
        "What do I teach?",
        "my sister has started to teach me the sitar, slowly",
        id="taught-by-someone",
    ),
]


@pytest.mark.parametrize(("claim", "question", "later"), SAID_SINCE_ABOUT_ELSE)
async def test_words_said_since_are_added_only_when_they_state_what_is_asked(
    runtime: Runtime, llm: FakeChatModel, claim: ClaimOut, question: str, later: str
) -> None:
    """Seen on first contact (set 13): "What is my name?" -> "Your name: Arjun. Since then you
    said: “... They've named her Anaya ...”" (a word in common). A later message is added to
    an answer from claims only when the claims model reads it as stating what is asked."""
    await _told(runtime, llm, {claim.quote: [claim]})
    await runtime.orchestrator.handle_impulse(later, USER, "s2")  # not read yet
    llm.answer(PromptId.PICK_CLAIMS, json.dumps({"facts": [1]}))
    llm.answer(PromptId.ANSWER_CHECK, _check_says(claim.value))
    answer = (await runtime.orchestrator.handle_impulse(question, USER, "s3")).answer
    assert answer.startswith("Your "), answer
    assert claim.value in answer
    assert "Since then" not in answer, answer
    # read as stating it, the later words are added, dated (a change not read yet)
    llm.answer(PromptId.ANSWER_CHECK, _check_says(claim.value, later[:12]))
    again = (await runtime.orchestrator.handle_impulse(question, USER, "s4")).answer
    assert "Since then you said" in again, again
    assert later in again
