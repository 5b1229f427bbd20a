"""A message that tells something and asks about a text the user gave is answered from the text's
line (the documents benchmark: "i dont have any buttermilk, what can i use instead?" after a
pasted recipe got "Got it, I'll remember that. You can use 1/4 tsp of vanilla extract instead",
the answering model's invention, while the recipe names the substitute)."""

from __future__ import annotations

import json

import pytest

from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "noor"

RECIPE = (
    "Lemon drizzle loaf\n"
    "Makes 1 loaf (about 10 slices). Heat the oven to 170C and line a 900 g loaf tin.\n"
    "- 115 g unsalted butter, softened\n"
    "- 2 large eggs, beaten\n"
    "- 120 ml buttermilk (or 120 ml milk with 1 tsp lemon juice, left for 5 minutes)\n"
    "- 1 flax egg (1 tbsp ground flax and 3 tbsp water) can replace each egg\n"
    "Bake for 50 to 55 minutes, until a skewer comes out clean. Keeps for 4 days in a tin."
)

CASES = [
    pytest.param(
        "i dont have any buttermilk, what can i use instead?",
        "120 ml milk with 1 tsp lemon juice",
        "milk with lemon juice",
        id="buttermilk",
    ),
    pytest.param(
        "we're out of eggs. what can I use instead?",
        "1 flax egg (1 tbsp ground flax and 3 tbsp water) can replace each egg",
        "a flax egg",
        id="eggs",
    ),
    pytest.param(
        "I've put it in the oven just now. When do I take it out?",
        "Bake for 50 to 55 minutes",
        "50 to 55 minutes",
        id="oven",
    ),
]


async def _asked_after(
    runtime: Runtime, llm: FakeChatModel, text: str, message: str, read: object, model_says: str
) -> str:
    """The answer to ``message`` after ``text`` was pasted, when the claims model reads the text
    as ``read`` (JSON of answer_from_text) and the answering model says ``model_says``."""
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps(read))
    llm.answer(PromptId.SYNTHESIS, model_says)
    await runtime.orchestrator.handle_impulse(text, USER, "pasted")
    return (await runtime.orchestrator.handle_impulse(message, USER, "asked")).answer


@pytest.mark.parametrize(("message", "copied", "answer"), CASES)
async def test_news_with_a_question_about_a_text_is_answered_from_its_line(
    runtime: Runtime, llm: FakeChatModel, message: str, copied: str, answer: str
) -> None:
    read = {"quotes": [copied], "answer": answer}
    said = await _asked_after(
        runtime, llm, RECIPE, message, read, "You can use 1/4 tsp of vanilla extract instead."
    )
    assert copied in said  # the recipe's own line, quoted
    assert "vanilla" not in said
    (prompt,) = llm.prompts_for(PromptId.ANSWER_FROM_TEXT)
    assert message.split(",")[0].split(".")[0] in str(prompt[-1].content)  # read with the news


async def test_news_with_a_question_the_text_does_not_answer_goes_to_the_model(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    read = {"quotes": [], "answer": ""}
    tea = "Lemon drizzle goes well with a cup of Earl Grey."
    said = await _asked_after(runtime, llm, RECIPE, "I made the loaf! what tea goes with it?", read, tea)
    assert "Earl Grey" in said
    assert "can't find that in the text" not in said


LETTER = (
    "Eastbrook Health Centre\n"
    "Dr Sørensen has prescribed Metformin 500 mg tablets, one twice a day with meals.\n"
    "If you miss a dose, skip it and take the next dose at the usual time.\n"
    "If the coach to the hospital is missed, call reception on 0207 946 3381 to rebook.\n"
    "Swallow the tablets whole with a glass of water; do not crush or chew them.\n"
    "Yours sincerely, Linnea Marsh, Practice Administrator"
)

REQUESTS = [
    pytest.param(
        "what should i do if i forget to take a metformin tablet?",
        "If you miss a dose, skip it and take the next dose at the usual time.",
        "skip it and take the next dose at the usual time",
        id="missed-dose",
    ),
    pytest.param(
        "if i miss the coach to the hospital what should i do?",
        "If the coach to the hospital is missed, call reception on 0207 946 3381 to rebook.",
        "call reception on 0207 946 3381 to rebook",
        id="missed-coach",
    ),
    pytest.param(
        "can you tell me how i should take the metformin tablets?",
        "Swallow the tablets whole with a glass of water; do not crush or chew them.",
        "whole with a glass of water",
        id="how-to-take",
    ),
]


@pytest.mark.parametrize(("message", "copied", "answer"), REQUESTS)
async def test_a_request_for_help_a_text_answers_is_answered_from_its_line(
    runtime: Runtime, llm: FakeChatModel, message: str, copied: str, answer: str
) -> None:
    read = {"quotes": [copied], "answer": answer}
    said = await _asked_after(
        runtime, llm, LETTER, message, read, "Contact your healthcare provider immediately."
    )
    assert copied in said  # the letter's own line, quoted
    assert said.lower().startswith(answer.lower())
    assert "healthcare provider" not in said


@pytest.mark.parametrize(
    "read",
    [
        pytest.param({"quotes": [], "answer": ""}, id="nothing-copied"),
        pytest.param({"quotes": ["Eastbrook Health Centre"], "answer": ""}, id="a-line-without-an-answer"),
    ],
)
async def test_a_request_the_text_does_not_answer_is_helped_by_the_model(
    runtime: Runtime, llm: FakeChatModel, read: dict[str, object]
) -> None:
    asked = "can you suggest a breakfast that goes with the tablets?"
    said = await _asked_after(
        runtime, llm, LETTER, asked, read, "Porridge with berries is a gentle breakfast."
    )
    assert "Porridge" in said
    assert "can't find that in the text" not in said
    assert "Eastbrook" not in said
