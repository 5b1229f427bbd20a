"""Of several lines the words reader copied as the answer, only those that state what is asked
answer (seen on the slow test of help_or_recall/1: "How do I earn my living?" copied the e-bike
line beside the nurse line and was answered "E-bike; nurse")."""

from __future__ import annotations

import json

import pytest

from services.cycle.answer_reading import AnswerReading
from services.cycle.from_told import Quoted, ToldLine, ToldQuote, told_answer
from thea.llm.fake import FakeCall, FakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId


def _checker(answering: tuple[str, ...]) -> FakeChatModel:
    """A claims model whose answer check says a line answers when it holds one of ``answering``."""

    def check(call: FakeCall) -> str:
        asked = plain_text(call.messages[-1:])
        line = asked.split("LINE:", 1)[1].split("QUESTION:", 1)[0]
        says = any(word in line for word in answering)
        verdict = "answers" if says else "does not answer"
        return json.dumps({"asked": "", "answer": line.strip() if says else "", "verdict": verdict})

    llm = FakeChatModel()
    llm.answer(PromptId.ANSWER_CHECK, check)
    return llm


CASES = [
    (
        "How do I earn my living?",
        ("it's the e-bike to every shift now", "I work nights as a nurse at St James's hospital."),
        "E-bike; nurse",
        ("nurse",),
        "Nurse",
    ),
    (
        "where does my sister live these days",
        ("my sister Ana lives in Porto now", "my brother Tom lives in Leeds"),
        "Porto; Leeds",
        ("Porto",),
        "Porto",
    ),
    (
        "what's the dog called again",
        ("the cat is called Mochi", "we have a dog called Biscuit"),
        "Mochi and Biscuit",
        ("dog",),
        "Biscuit",
    ),
]


@pytest.mark.parametrize(("question", "lines", "answer", "answering", "said"), CASES)
async def test_only_the_copied_lines_that_state_what_is_asked_are_said(
    question: str, lines: tuple[str, ...], answer: str, answering: tuple[str, ...], said: str
) -> None:
    told = [ToldLine(text, 1_764_000_000 + n, f"m{n}") for n, text in enumerate(lines)]
    quote = ToldQuote(told, answer)
    checked, _usage = await AnswerReading(_checker(answering), 5.0).checked(question, quote)
    assert checked is not None
    kept = [t.text for t in checked.lines]
    assert kept == [t for t in lines if any(w in t for w in answering)]
    shown = told_answer(checked)
    assert shown.startswith(f"{said} (you told me")
    assert not any(t in shown for t in lines if t not in kept)


async def test_copied_lines_that_all_answer_stay_and_none_answering_is_only_the_nearest() -> None:
    told = [
        ToldLine("we flew to Porto in May", 1_764_000_000, "m1"),
        ToldLine("then Lisbon in June", 1_764_000_100, "m2"),
    ]
    quote = ToldQuote(told, "Porto and Lisbon")
    both, _ = await AnswerReading(_checker(("Porto", "Lisbon")), 5.0).checked("where did we travel", quote)
    assert both == quote
    neither, _ = await AnswerReading(_checker(("Madrid",)), 5.0).checked("where did we travel", quote)
    assert neither is not None
    assert neither.quoted is Quoted.NEAREST
    assert told_answer(neither).startswith("I'm not sure")
