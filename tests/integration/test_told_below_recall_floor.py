"""A message said in other words, or another English, than the question is still read for it.

First contact, set 26: "gist: emeka my guy since sec sch don japa!!! canada, winnipeg, study
permit for nursing." is 0.27 from "Which country did my old school friend just relocate to?"
under MiniLM, below recall's floor (0.30), and shares no word with it: the words reader was
never shown it, and the answer was "I don't know". It was the nearest of the user's messages to
the question all the same: when recall finds none of the user's messages, the few nearest the
question by meaning, whatever the floor, are read. (Only then: beside what recall found, more
messages led the 1.5B to copy the wrong one on the same set. So a message recall ranks below
another of the user's, "fixed the brakes on the bike" for "What's my ride these days?", is still
not read.)
"""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.claims_support import scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "nedu"

#: what else the user told, each read (no claim), none of it about the question
FILLERS = [
    "my cat mallam just carry himself enter my room last year and never left",
    "Tolu's salon is doing well, she has two girls working for her now",
    "mama has a provision shop at the market in Enugu",
    "I finally fixed the leaking tap in the kitchen, cost me a fortune",
    "we had suya and malt for Sunday lunch, proper feast",
    "the rain this week has been something else, roads flooded everywhere",
    "my little sister is in her final year of mass comm",
    "I've been reading a lot of Chimamanda Adichie lately",
]

# (what was told, in words the question does not share; the question; the answer in the line)
CASES = [
    pytest.param(
        "gist: emeka my guy since sec sch don japa!!! canada, winnipeg, study permit for nursing.",
        "Which country did my old school friend just relocate to?",
        "canada",
        id="pidgin",
    ),
    pytest.param(
        "na ikeja i dey do my 9-5 now, for one pharma company",
        "Where is my office these days?",
        "ikeja",
        id="office",
    ),
    pytest.param(
        "sold the vespa lol, its the 33 bus for me from now on",
        "What's my ride these days?",
        "33 bus",
        id="commute",
    ),
]


def copies(value: str):  # type: ignore[no-untyped-def]
    """The words reader: it copies the line holding ``value`` when it is shown, else nothing."""

    def read(call: FakeCall) -> str:
        shown = plain_text(call.messages[-1:]).split("QUESTION:")[0]
        for line in shown.splitlines():
            line = line.split("] ", 1)[-1]
            if value in line.casefold():
                return json.dumps({"about": "me", "quotes": [line], "answer": value})
        return json.dumps({"about": "me", "quotes": [], "answer": ""})

    return read


@pytest.mark.parametrize(("told", "question", "value"), CASES)
async def test_the_users_message_nearest_the_question_is_read_though_recall_missed_it(
    runtime: Runtime, llm: FakeChatModel, told: str, question: str, value: str
) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({}))
    for n, said in enumerate([FILLERS[0], told, *FILLERS[1:]]):
        await runtime.orchestrator.handle_impulse(said, USER, f"s{n}")
        await asyncio.to_thread(runtime.run_jobs)  # read: never shown as a message not read yet
    llm.answer(PromptId.ANSWER_FROM_TOLD, copies(value))
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": "emeka my guy", "verdict": "same"}))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s-asked")
    shown = plain_text(llm.prompts_for(PromptId.ANSWER_FROM_TOLD)[-1][-1:])
    assert told.split("!!!")[-1].strip() in shown
    assert asked.answer.casefold().startswith(value), asked.answer
    assert "\u201c" in asked.answer  # in the user's own words, dated
