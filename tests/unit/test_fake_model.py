"""The shipped fake model answers by prompt id, whatever the wording, on every path thea calls it."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from services.common.llm_calls import ask_structured, ask_text
from services.prompts import (
    PromptSpec,
    crystallize,
    crystallize_session,
    distill,
    extract_claims,
    fact_check,
    first_look,
    planner,
    reflect,
    supersession,
    synthesis,
)
from thea.llm.fake import DEFAULT_REPLY, FakeChatModel, StreamingFakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.llm.scheduler import LocalForegroundGate, ScheduledChatModel

STRUCTURED: list[tuple[PromptSpec, type[BaseModel], list[HumanMessage]]] = [
    (planner.PROMPT, planner.PlanOutput, planner.build("What do I work on?")),  # type: ignore[list-item]
    (first_look.PROMPT, first_look.FirstLookOutput, first_look.build("What do I work on?")),  # type: ignore[list-item]
    (crystallize.PROMPT, crystallize.CrystalOutput, crystallize.build("I use Redis.", [])),  # type: ignore[list-item]
    (crystallize_session.PROMPT, crystallize_session.OUTPUT, crystallize_session.build(["a: hi"], "today")),  # type: ignore[list-item]
    (fact_check.PROMPT, fact_check.FactCheckOutput, fact_check.build("I use Redis.", ["Ana uses Redis."])),  # type: ignore[list-item]
    (extract_claims.PROMPT, extract_claims.ClaimsOutput, extract_claims.build("I use Redis.")),  # type: ignore[list-item]
    (supersession.PROMPT, supersession.PairOutput, supersession.build("EARLIER: a\nNEWER: b")),  # type: ignore[list-item]
]


@pytest.mark.parametrize(("prompt", "schema", "messages"), STRUCTURED, ids=lambda v: getattr(v, "name", ""))
async def test_every_structured_prompt_gets_output_its_schema_accepts(
    prompt: PromptSpec, schema: type[BaseModel], messages: list[HumanMessage]
) -> None:
    for model in (FakeChatModel(), FakeChatModel.minimal()):
        value, usage = await ask_structured(model, schema, messages, prompt, timeout_s=5)
        assert isinstance(value, schema)
        assert usage.prompt_name == prompt.id.value


async def test_every_text_prompt_gets_an_answer_of_its_own() -> None:
    model = FakeChatModel()
    answers = {
        p.PROMPT.id: (await ask_text(model, msgs, p.PROMPT, timeout_s=5))[0]
        for p, msgs in (
            (distill, distill.build("I use Redis.", "Noted.")),
            (reflect, reflect.build([("a1", "Ana uses Redis.")], ["Redis"])),
            (synthesis, synthesis.build("hi", [])),
        )
    }
    assert answers[PromptId.SYNTHESIS] == DEFAULT_REPLY
    assert answers[PromptId.REFLECT] == "In short: Ana uses Redis."
    assert len(set(answers.values())) == 3
    assert [c.prompt for c in model.calls] == list(answers)


async def test_routing_follows_the_prompt_id_not_the_wording() -> None:
    model = FakeChatModel()
    model.answer(PromptId.DISTILL, "a summary")
    # the synthesis prompt's wording, asked as the distill prompt
    text, _ = await ask_text(model, synthesis.build("hi", []), distill.PROMPT, timeout_s=5)
    assert text == "a summary"
    assert len(model.prompts_for(PromptId.DISTILL)) == 1
    assert model.prompts_for(PromptId.SYNTHESIS) == []


@pytest.mark.parametrize("inner", [FakeChatModel, StreamingFakeChatModel])
async def test_the_prompt_id_reaches_the_model_behind_the_background_scheduler(
    inner: type[FakeChatModel],
) -> None:
    model = inner()
    background = ScheduledChatModel(inner=model, gate=LocalForegroundGate(grace_s=0))
    model.answer(PromptId.DISTILL, "a summary")
    text, _ = await ask_text(background, distill.build("q", "a"), distill.PROMPT, timeout_s=5)
    assert text == "a summary"
    plan, _ = await ask_structured(
        background, planner.PlanOutput, planner.build("q"), planner.PROMPT, timeout_s=5
    )
    assert plan.queries == ["work"]


async def test_failing_and_stalling_prompts() -> None:
    model = FakeChatModel(fail={PromptId.REFLECT}, slow={PromptId.DISTILL}, slow_seconds=0.2)
    with pytest.raises(RuntimeError, match="scripted failure in reflect"):
        await ask_text(
            model, reflect.build([("a1", "Ana uses Redis.")], ["Redis"]), reflect.PROMPT, timeout_s=5
        )
    started = asyncio.get_running_loop().time()
    await ask_text(model, distill.build("q", "a"), distill.PROMPT, timeout_s=5)
    assert asyncio.get_running_loop().time() - started >= 0.2


def test_the_stand_in_model_records_nothing() -> None:
    model = StreamingFakeChatModel.minimal()
    assert model.invoke([HumanMessage(content="hi")]).content == "(fake model) I heard you."
    assert model.calls == []
