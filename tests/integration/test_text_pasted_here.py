"""A question about a text pasted earlier in the same conversation is read against it even when
recall finds no text for it (seen live in Chromium: "when do i have to pay?" after a pasted price
list saying "Fees are due by 31 January" recalled nothing and got "I don't know")."""

from __future__ import annotations

import json

import pytest

from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "ines"

FEES = (
    "Allotment society - plot fees 2027\n"
    "| Plot | Members | Non-members |\n"
    "|------|---------|-------------|\n"
    "| Full plot | £48 | £70 |\n"
    "| Half plot | £26 | £38 |\n"
    "Fees are due by 31 January. Water is included."
)


@pytest.mark.parametrize(
    ("question", "copied", "answer"),
    [
        ("when do i have to pay?", "Fees are due by 31 January.", "by 31 January"),
        ("what's the deadline for the money", "Fees are due by 31 January.", "31 January"),
        ("do we get a tap or not", "Water is included.", "included"),
    ],
)
async def test_a_question_about_the_text_pasted_in_this_conversation_is_read_against_it(
    runtime: Runtime, llm: FakeChatModel, question: str, copied: str, answer: str
) -> None:
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": [copied], "answer": answer}))
    await runtime.orchestrator.handle_impulse(FEES, USER, "fees")
    said = (await runtime.orchestrator.handle_impulse(question, USER, "fees")).answer
    assert copied in said
    assert "the text you gave me" in said


async def test_a_text_pasted_in_another_conversation_is_left_to_recall(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(
        PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": ["Fees are due by 31 January."], "answer": "x"})
    )
    await runtime.orchestrator.handle_impulse(FEES, USER, "fees")
    said = (await runtime.orchestrator.handle_impulse("when do i have to pay?", USER, "elsewhere")).answer
    assert "31 January" not in said
