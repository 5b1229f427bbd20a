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


@pytest.mark.parametrize(("message", "copied", "answer"), CASES)
async def test_news_with_a_question_about_a_text_is_answered_from_its_line(
    runtime: Runtime, llm: FakeChatModel, message: str, copied: str, answer: str
) -> None:
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": [copied], "answer": answer}))
    llm.answer(PromptId.SYNTHESIS, "You can use 1/4 tsp of vanilla extract instead.")
    await runtime.orchestrator.handle_impulse(RECIPE, USER, "pasted")
    result = await runtime.orchestrator.handle_impulse(message, USER, "baking")
    assert copied in result.answer  # the recipe's own line, quoted
    assert "vanilla" not in result.answer
    (prompt,) = llm.prompts_for(PromptId.ANSWER_FROM_TEXT)
    assert message.split(",")[0].split(".")[0] in str(prompt[-1].content)  # read with the news


async def test_news_with_a_question_the_text_does_not_answer_goes_to_the_model(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.ANSWER_FROM_TEXT, json.dumps({"quotes": [], "answer": ""}))
    llm.answer(PromptId.SYNTHESIS, "Lemon drizzle goes well with a cup of Earl Grey.")
    await runtime.orchestrator.handle_impulse(RECIPE, USER, "pasted")
    result = await runtime.orchestrator.handle_impulse(
        "I made the loaf! what tea goes with it?", USER, "baking"
    )
    assert "Earl Grey" in result.answer
    assert "can't find that in the text" not in result.answer
