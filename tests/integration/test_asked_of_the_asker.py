"""A question about the one asking, in words nothing they told holds, is theirs to answer: "I
don't know", never the answering model's guess (first contact, set 17: "Is there a medical
condition that affects what I can eat?" -> "There is no medical condition that affects what I
can eat."; the claims model had said the question was about "you", the assistant, and the
answering model was asked)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "rosa"
TOLD = "I have been the librarian at the school in Salto for nearly twenty years."
#: what the answering model would say on its own (a guess, never to be shown)
GUESS = "There is no condition like that."


@pytest.mark.parametrize(
    ("question", "scope"),
    [
        ("Is there a medical condition that affects what I can eat?", {"about": "you", "known": "you"}),
        ("Which pills am I on these days?", {"about": "You", "known": "general"}),
        ("Is there a medical condition that affects what I can eat?", {"about": "the user", "known": "you"}),
        ("Which pills am I on these days?", {"about": "my pills", "known": "general"}),
    ],
)
async def test_a_question_about_the_one_asking_nothing_told_answers_is_not_guessed(
    runtime: Runtime, llm: FakeChatModel, question: str, scope: dict[str, str]
) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({TOLD: [said(TOLD, "job", "librarian")]}))
    await runtime.orchestrator.handle_impulse(TOLD, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps(scope))
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [], "answer": ""}))
    llm.answer(PromptId.SYNTHESIS, GUESS)
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert GUESS not in asked.answer, asked.answer
    assert asked.answer.startswith(("I don't know", "I'm not sure")), asked.answer


async def test_a_question_put_to_the_assistant_is_still_answered(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({TOLD: [said(TOLD, "job", "librarian")]}))
    await runtime.orchestrator.handle_impulse(TOLD, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "you", "known": "you"}))
    llm.answer(PromptId.SYNTHESIS, "Rainy days are good for reading a book.")
    asked = await runtime.orchestrator.handle_impulse("What do you like doing on a rainy day?", USER, "s2")
    assert "good for reading" in asked.answer, asked.answer
