"""A question about the user themselves, in words nothing they told holds, is answered from the
line in which they spoke of themselves (seen live: "is there anything i cant eat?" -> "I don't
know" after "im vegan, and I found out last month I'm coeliac too": the claims model, asked whom
the line speaks of, copied its "I" and judged it someone else, and the line was dropped)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "dana"

# (what was told; the line the words reader copies; what it reads as the answer; the
# question, in words the line does not hold; a line told of someone else, in the first person too)
CASES = [
    pytest.param(
        "im vegan, and I found out last month I'm coeliac too",
        "I found out last month I'm coeliac too",
        "coeliac",
        "is there anything i cant eat?",
        "my brother Tom is coeliac, I cook gluten free for him",
        id="cant-eat",
    ),
    pytest.param(
        "I get hay fever every spring, so bad",
        "I get hay fever every spring",
        "hay fever",
        "what makes me sneeze?",
        "my wife Ana gets hay fever, I keep tissues for her",
        id="sneeze",
    ),
    pytest.param(
        "btw I broke my wrist skiing, it's in a cast",
        "I broke my wrist skiing",
        "a broken wrist",
        "why am I not driving at the moment?",
        "our son Ben broke his wrist, I drive him to school",
        id="not-driving",
    ),
]


@pytest.mark.parametrize(("told", "line", "answer", "question", "others"), CASES)
async def test_a_line_in_which_the_user_speaks_of_themselves_answers_a_question_about_them(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    line: str,
    answer: str,
    question: str,
    others: str,
) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: [said(line, "health", answer)]}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": "the user's own", "known": "you"}))
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [line], "answer": answer}))
    # the 1.5B's reading of the line: its "I", judged someone else
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": "I", "verdict": "someone else"}))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert line in asked.answer, asked.answer  # the user's own words, dated
    assert "don't know" not in asked.answer

    # a line of someone else's answers nothing about the user, though it says "I" too
    await runtime.orchestrator.handle_impulse(others, "kim", "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [others], "answer": answer}))
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": others.split(",")[0], "verdict": "someone else"}))
    theirs = await runtime.orchestrator.handle_impulse(question, "kim", "s2")
    # never said as the answer; at most shown as the nearest they came to saying it
    assert theirs.answer.startswith(("I don't know", "I'm not sure you told me")), theirs.answer
