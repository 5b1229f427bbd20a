"""A question about what was true when the user did, said or asked something earlier is answered
from the claims as they stood then (first contact sets 19 and 20: "Which city was I living in
when I asked you for a dessert recipe?" -> the city the user lives in now)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from services.prompts.extract_claims import ClaimKind
from tests.claims_support import picks_line_with, said, scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "thandi"

# (what was told first and its claim; the message the question later points to; the change and
# its claim; the question; the words naming the moment; the value then; the value now)
CASES = [
    pytest.param(
        (
            "born n raised in durbs (durban), love it here",
            "born n raised in durbs (durban)",
            "home",
            "Durban",
        ),
        "oh n can u send me a dessert recipe thats safe for my peanut allergy?",
        (
            "packed up n moved to cape town, got a flat in observatory",
            "got a flat in observatory",
            "home",
            "Observatory",
        ),
        "Which city was I living in when I asked you for a dessert recipe?",
        "when I asked you for a dessert recipe",
        "Durban",
        "Observatory",
        id="a-request",
    ),
    pytest.param(
        ("I work on the tills at Lidl in Leith", "I work on the tills at Lidl", "workplace", "Lidl"),
        "guess what, they offered me the shift manager promotion today!",
        (
            "I've left Lidl, I'm at the Aldi on Easter Road now",
            "I'm at the Aldi on Easter Road now",
            "workplace",
            "Aldi",
        ),
        "At the time I told you about the promotion, where did I work?",
        "At the time I told you about the promotion",
        "Lidl",
        "Aldi",
        id="a-statement",
    ),
    pytest.param(
        ("we've got a tabby called Miso", "we've got a tabby called Miso", "pet", "Miso"),
        "what should I pack for a long train journey with a cat?",
        (
            "Miso went to live with my mum, we have a puppy called Bruno now",
            "we have a puppy called Bruno now",
            "pet",
            "Bruno",
        ),
        "What pet did we have back when I asked you about the train journey?",
        "back when I asked you about the train journey",
        "Miso",
        "Bruno",
        id="a-question-put-as-a-request",
    ),
]


def _moment(at: str) -> Callable[[FakeCall], str]:
    """The model's copy of the words naming the moment, for the question that holds them."""

    def answer(call: FakeCall) -> str:
        return json.dumps({"at": at if at in str(call.messages[-1].content) else ""})

    return answer


async def _told(
    runtime: Runtime, llm: FakeChatModel, first: tuple[str, ...], moment: str, change: tuple[str, ...]
) -> None:
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                first[0]: [said(first[1], first[2], first[3])],
                change[0]: [said(change[1], change[2], change[3], kind=ClaimKind.REPLACES)],
            }
        ),
    )
    for text, session in ((first[0], "d1"), (moment, "d2"), (change[0], "d3")):
        await runtime.orchestrator.handle_impulse(text, USER, session)
        await asyncio.to_thread(runtime.run_jobs)


@pytest.mark.parametrize(("first", "moment", "change", "question", "at", "then", "now"), CASES)
async def test_a_question_naming_an_earlier_moment_is_answered_from_the_claims_of_then(
    runtime: Runtime,
    llm: FakeChatModel,
    first: tuple[str, ...],
    moment: str,
    change: tuple[str, ...],
    question: str,
    at: str,
    then: str,
    now: str,
) -> None:
    await _told(runtime, llm, first, moment, change)
    llm.answer(PromptId.ASKED_WHEN, _moment(at))
    llm.answer(PromptId.PICK_CLAIMS, picks_line_with(then))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "d4")
    assert then in asked.answer, asked.answer
    assert now not in asked.answer.split("Since then")[0], asked.answer
    assert asked.answer.lower().startswith(at.lower().replace("i ", "you ", 1)[:8]), asked.answer
    assert "you" in asked.answer.split("(")[0].lower()  # the moment said back to the user


@pytest.mark.parametrize(
    ("question", "copied"),
    [
        pytest.param(
            "Which city was I living in when I asked you about quantum physics?",
            "when I asked you about quantum physics",
            id="no-message-near",
        ),
        pytest.param(
            "Which city was I living in when I asked you for a dessert recipe?",
            "when I wanted cake",
            id="not-the-questions-words",
        ),
        pytest.param(
            "Where do I live these days, when all is said and done?",
            "when all is said and done",
            id="not-the-one-asking",
        ),
    ],
)
async def test_a_moment_no_message_of_the_users_is_near_or_the_question_does_not_name_is_no_moment(
    runtime: Runtime, llm: FakeChatModel, question: str, copied: str
) -> None:
    first, moment, change = CASES[0].values[:3]
    await _told(runtime, llm, first, moment, change)
    llm.answer(PromptId.ASKED_WHEN, json.dumps({"at": copied}))
    llm.answer(PromptId.PICK_CLAIMS, picks_line_with("Observatory"))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "d4")
    assert "Durban" not in asked.answer, asked.answer
    assert not asked.answer.lower().startswith(("when you", "at the time")), asked.answer


async def test_a_question_without_a_word_for_a_moment_costs_no_reading_of_one(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    first, moment, change = CASES[0].values[:3]
    await _told(runtime, llm, first, moment, change)
    llm.calls.clear()
    await runtime.orchestrator.handle_impulse("Which city do I live in now?", USER, "d4")
    assert not llm.prompts_for(PromptId.ASKED_WHEN)
    await runtime.orchestrator.handle_impulse(
        "Which city was I in when I asked you for a dessert recipe?", USER, "d4"
    )
    assert llm.prompts_for(PromptId.ASKED_WHEN)


async def test_a_moment_asked_about_the_one_asking_is_answered_from_their_own_claims_of_then(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    """First contact set 20, re-run: "Which city was I living in when I asked you for a dessert
    recipe?" -> "Naledi (your sister), location: UKZN": the pick was shown everyone's claims of
    then. A question about the one asking naming nobody else is shown their own."""
    first, moment, change = CASES[0].values[:3]
    sister = "my sis naledi is 22 n studying law at ukzn"
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                sister: [said(sister, "location", "UKZN", subject="Naledi", relation="sister")],
                first[0]: [said(first[1], first[2], first[3])],
                change[0]: [said(change[1], change[2], change[3], kind=ClaimKind.REPLACES)],
            }
        ),
    )
    for text, session in ((sister, "d1"), (first[0], "d1"), (moment, "d2"), (change[0], "d3")):
        await runtime.orchestrator.handle_impulse(text, USER, session)
        await asyncio.to_thread(runtime.run_jobs)
    question, at = CASES[0].values[3:5]
    llm.answer(PromptId.ASKED_WHEN, _moment(at))

    def picks_the_sister_when_shown(call: FakeCall) -> str:
        shown = str(call.messages[-1].content)
        return picks_line_with("UKZN" if "UKZN" in shown else "Durban")(call)

    llm.answer(PromptId.PICK_CLAIMS, picks_the_sister_when_shown)
    asked = await runtime.orchestrator.handle_impulse(question, USER, "d4")
    assert "Durban" in asked.answer, asked.answer
    assert "UKZN" not in asked.answer, asked.answer
