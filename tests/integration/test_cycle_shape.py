"""The fast loop's shape: how many model calls come before the answer (docs/architecture.md,
"The fast loop"). Every shape keeps four Tasks with their own Reports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.cycle.instinct import PLAN_TOKENS
from tests.graph_reads import reports_by_step
from thea.config import load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime, build_runtime


def _runtime(tmp_path: Path, llm: FakeChatModel, **cycle: object) -> Iterator[Runtime]:
    settings = load_settings(
        "embedded", data_dir=tmp_path / "data", llm={"provider": "fake", "timeout_s": 5}, cycle=cycle
    )
    rt = build_runtime(settings, llm=llm)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def rules(tmp_path: Path, llm: FakeChatModel) -> Iterator[Runtime]:
    yield from _runtime(tmp_path, llm)


@pytest.fixture
def combined(tmp_path: Path, llm: FakeChatModel) -> Iterator[Runtime]:
    yield from _runtime(tmp_path, llm, first_look="combined")


def _reports(rt: Runtime, impulse_id: str) -> dict[str, dict[str, object]]:
    return reports_by_step(rt.memory, impulse_id)


async def test_by_default_no_model_call_comes_before_the_answer(rules: Runtime, llm: FakeChatModel) -> None:
    await rules.orchestrator.handle_impulse("I play the cello on Sundays.", "ana", "s1")
    llm.calls.clear()
    result = await rules.orchestrator.handle_impulse("Which instrument should I practise more?", "ana", "s1")
    assert [c.prompt for c in llm.calls] == [PromptId.SYNTHESIS]
    assert [s.step for s in result.steps] == ["instinct", "plan", "recall", "synthesis"]
    assert result.failed_steps == []
    assert result.usage.calls == 1
    instinct = _reports(rules, result.impulse_id)["instinct"]
    assert "a request for help" in str(instinct["output"])  # the first look says what the message is
    plan = _reports(rules, result.impulse_id)["plan"]
    assert plan["status"] == "SUCCESS"
    assert plan["llm_calls"] == 0
    assert "rules" in str(plan["output"])  # the trace says where the plan came from
    assert result.recalled_ids  # the deterministic plan still recalls the cello


async def test_the_combined_first_look_is_bounded(combined: Runtime, llm: FakeChatModel) -> None:
    await combined.orchestrator.handle_impulse("Hello there", "ana", "s1")
    first_look = next(c.kwargs for c in llm.calls if c.prompt is PromptId.FIRST_LOOK)
    assert first_look.get("max_tokens") == combined.settings.cycle.instinct_tokens + PLAN_TOKENS


async def test_combined_instinct_and_plan_come_from_one_call_with_two_reports(
    combined: Runtime, llm: FakeChatModel
) -> None:
    result = await combined.orchestrator.handle_impulse("Which Redis setup does the team use?", "ana", "s1")
    # a question nothing told answers: the claims model says whom it asks about (here the
    # answering model, a fake), then the answering model answers
    assert [c.prompt for c in llm.calls] == [PromptId.FIRST_LOOK, PromptId.QUESTION_SCOPE, PromptId.SYNTHESIS]
    assert result.failed_steps == []
    reports = _reports(combined, result.impulse_id)
    assert reports["instinct"]["llm_calls"] == 1
    assert reports["plan"]["llm_calls"] == 0
    assert "A question about work." in str(reports["instinct"]["output"])
    assert "instinct call" in str(reports["plan"]["output"])  # the plan says where it came from
    assert "Redis" in str(reports["plan"]["output"])  # the model's (grounded) concept is used


async def test_a_slow_instinct_fails_on_the_short_step_timeout_and_the_answer_still_comes(
    tmp_path: Path, llm: FakeChatModel
) -> None:
    llm.slow, llm.slow_seconds = {PromptId.FIRST_LOOK, PromptId.SYNTHESIS}, 1.0
    for rt in _runtime(tmp_path, llm, step_timeout_s=0.3, first_look="combined"):
        result = await rt.orchestrator.handle_impulse("hello there", "ana", "s1")
        assert result.failed_steps == ["instinct"]  # synthesis had llm.timeout_s (5 s): it answered
        assert result.answer == "Hello!"  # greeted back all the same
        assert "timed out" in str(next(s for s in result.steps if s.step == "instinct").error)
