"""`!trace` / `thea trace` right after Ctrl-C: the cancelled step's report is written before the
impulse is marked cancelled, so a trace read in between must still say the cycle was cancelled
(seen in the tmux Ctrl-C test under load)."""

from __future__ import annotations

from rich.console import Console

from thea.api.models import TraceStepView, TraceView
from thea.cli.render import trace_tree
from thea.models import CycleStatus, Report, Task, TaskStatus, UserImpulse


def rendered(impulse_status: CycleStatus | None) -> str:
    impulse = UserImpulse(content="Tell me a long story.", user_id="local", correlation_id="c1")
    if impulse_status is not None:
        impulse = impulse.model_copy(update={"status": impulse_status})
    task = Task(step="synthesis", service="SynthesisService", content="synthesis", correlation_id="c1")
    report = Report(
        step="synthesis",
        task_id=task.id,
        status=TaskStatus.CANCELLED,
        error="cancelled by the user",
        duration_ms=22.0,
        content="synthesis: CANCELLED",
        correlation_id="c1",
    )
    step = TraceStepView(
        step="synthesis",
        status=TaskStatus.CANCELLED,
        duration_ms=22.0,
        error="cancelled by the user",
        task=task,
        report=report,
    )
    console = Console(width=120, record=True)
    console.print(trace_tree(TraceView(impulse=impulse, complete=True, steps=[step])))
    return console.export_text()


def test_a_cancelled_step_marks_the_cycle_cancelled_before_the_impulse_is_marked() -> None:
    assert "cycle cancelled by the user" in rendered(None)


def test_a_cycle_marked_cancelled_says_so_once() -> None:
    assert rendered(CycleStatus.CANCELLED).count("cycle cancelled") == 1
