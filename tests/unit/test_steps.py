"""Steps are an enum (thea.models.Step): each cycle service names its step, the steps before the
answer are the first look, and a step read back from JSON or from a stored Task is the same
value."""

from __future__ import annotations

from services.cycle.instinct import InstinctService
from services.cycle.planner import PlannerService
from services.cycle.recall_step import RecallStep
from services.cycle.steps import CognitiveService
from services.cycle.synthesis import SynthesisService
from services.views.explain import explain
from thea.api.models import StepSummary
from thea.models import CYCLE_STEPS, FIRST_LOOK, Report, Step, Task, TaskStatus


def test_each_cycle_service_names_its_step_in_order() -> None:
    services: list[type[CognitiveService]] = [InstinctService, PlannerService, RecallStep, SynthesisService]
    assert tuple(s.step for s in services) == CYCLE_STEPS
    assert all(isinstance(s.step, Step) for s in services)


def test_first_look_is_the_steps_before_recall() -> None:
    assert {Step.INSTINCT, Step.PLAN} == FIRST_LOOK
    assert set(CYCLE_STEPS) > FIRST_LOOK


def test_a_step_read_back_is_the_same_value() -> None:
    summary = StepSummary.model_validate_json('{"step": "plan", "status": "SUCCESS", "duration_ms": 3.0}')
    assert summary.step is Step.PLAN
    task = Task(step=Step.RECALL, service="RecallStep", content="recall", correlation_id="c1")
    stored = Task.model_validate_json(task.model_dump_json())
    assert stored.step == Step.RECALL
    assert stored.step == "recall"


def test_explain_finds_reports_by_step() -> None:
    task = Task(step=Step.PLAN, service="PlannerService", content="plan", correlation_id="c1")
    plan = Report(
        step="plan",  # as a graph written as text gives it back
        task_id=task.id,
        status=TaskStatus.SUCCESS,
        output={"facts_recorded": [{"id": "f1", "subject": "you", "attribute": "job", "value": "nurse"}]},
        content="plan: SUCCESS",
        correlation_id="c1",
    )
    explained = explain([plan])
    assert [f.id for f in explained.facts_recorded] == ["f1"]
