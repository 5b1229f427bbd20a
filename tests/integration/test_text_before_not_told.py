"""A question only the user could answer, which nothing they said and no claim answers, is
answered from a text they gave when it states it, before "I don't know" (the documents benchmark
on this code: "how much is the rent a month?", "how much is the trip", "who do i call if
something breaks" each got "I don't know: nothing you've told me …" after the text that says it
was pasted: the question-scope model rightly called them the user's own, and the text was never
read)."""

from __future__ import annotations

import json

import pytest

from services.cycle.from_told import NOT_TOLD
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "rosa"

TENANCY = (
    "Tenancy agreement: 14 Alder Street, Flat 2\n"
    "The rent is £1,150 per calendar month, payable on the 1st.\n"
    "A deposit of £1,327 is held in the Deposit Protection Service.\n"
    "Repairs: report anything broken to Harbourline Lettings on 0161 555 0192.\n"
    "The tenants pay council tax, water and energy bills."
)
TRIP = (
    "Dear Parents and Carers,\n"
    "Year 4 will visit the aquarium on Thursday 11 December.\n"
    "The coach leaves at 8:45 and returns by 3:15 pm.\n"
    "The trip costs £9.50, payable on ParentPay by Friday.\n"
    "Please send your child with a packed lunch and a waterproof coat. No glass bottles please.\n"
    "Kind regards, Mr Hughes"
)
TIMETABLE = (
    "Ashbury to Port Ellis, weekdays\n"
    "06:12 Ashbury, 06:40 Kelmont, 07:05 Port Ellis\n"
    "07:47 Ashbury, 08:15 Kelmont (terminates)\n"
    "08:33 Ashbury, 09:01 Kelmont, 09:26 Port Ellis\n"
    "Off-peak day return: €11.40, valid on trains leaving Ashbury after 09:00.\n"
    "Children under 5 travel free; children aged 5 to 15 pay half the adult fare."
)

CASES = [
    pytest.param(
        TENANCY, "how much is the rent a month?", "The rent is £1,150 per calendar month", "£1,150", id="rent"
    ),
    pytest.param(TRIP, "how much is the trip", "The trip costs £9.50", "£9.50", id="trip"),
    pytest.param(
        TIMETABLE, "when does the 6:12 get into port ellis", "07:05 Port Ellis", "07:05", id="timetable"
    ),
]


@pytest.mark.parametrize(("text", "question", "copied", "answer"), CASES)
async def test_a_question_of_the_users_own_is_answered_from_the_text_they_gave_before_not_told(
    runtime: Runtime, llm: FakeChatModel, text: str, question: str, copied: str, answer: str
) -> None:
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "the user's own", "known": "the user's own"}))
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": [copied], "answer": answer}))
    await runtime.orchestrator.handle_impulse(text, USER, "pasted")
    result = await runtime.orchestrator.handle_impulse(question, USER, "asked")
    assert result.answer != NOT_TOLD
    assert result.answer.startswith(answer)
    assert copied in result.answer  # the line it is read from, quoted
    assert llm.prompts_for(PromptId.SYNTHESIS) == []  # never the answering model's words


@pytest.mark.parametrize(
    ("text", "question"), [(TENANCY, "what's my dog called?"), (TRIP, "where does my sister live?")]
)
async def test_a_text_that_does_not_state_it_leaves_the_answer_unknown(
    runtime: Runtime, llm: FakeChatModel, text: str, question: str
) -> None:
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "the user's own", "known": "the user's own"}))
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": [], "answer": ""}))
    await runtime.orchestrator.handle_impulse(text, USER, "pasted")
    result = await runtime.orchestrator.handle_impulse(question, USER, "asked")
    assert result.answer.startswith(("I don't know", "I can't find that in the text you gave me"))
    assert llm.prompts_for(PromptId.SYNTHESIS) == []
