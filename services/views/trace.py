"""Read back the trace of one cycle: impulse -> tasks -> reports -> outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.common.ownership import own_node
from thea.errors import NotFoundError
from thea.memory.universal import UniversalMemory
from thea.models import Node, Report, Task, TaskStatus, UserImpulse


@dataclass
class TraceStep:
    task: Task
    report: Report | None
    outputs: list[Node] = field(default_factory=list)

    @property
    def status(self) -> TaskStatus:
        return self.report.status if self.report else TaskStatus.PENDING


@dataclass
class Trace:
    impulse: UserImpulse
    steps: list[TraceStep] = field(default_factory=list)
    others: list[Node] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        names = {s.task.step for s in self.steps if s.report is not None}
        return {"instinct", "plan", "recall", "synthesis"} <= names


def load_trace(memory: UniversalMemory, impulse_id: str) -> Trace:
    """The cycle of an impulse (full id) from the graph."""
    nodes = memory.traces.cycle_nodes(impulse_id)
    impulse = next((n for n in nodes if isinstance(n, UserImpulse) and n.id == impulse_id), None)
    if impulse is None:
        raise NotFoundError(f"no impulse with id {impulse_id}")
    tasks = [n for n in nodes if isinstance(n, Task)]
    reports = {n.task_id: n for n in nodes if isinstance(n, Report)}
    trace = Trace(impulse=impulse)
    used = {impulse.id}
    output_ids: dict[str, list[str]] = {}
    for done in reports.values():
        node_id = done.output.get("node_id") if isinstance(done.output, dict) else None
        if isinstance(node_id, str):
            output_ids.setdefault(done.task_id, []).append(node_id)
    by_id = {n.id: n for n in nodes}
    for task in tasks:
        report = reports.get(task.id)
        outs = [by_id[i] for i in output_ids.get(task.id, []) if i in by_id]
        trace.steps.append(TraceStep(task=task, report=report, outputs=outs))
        used |= {task.id, *(o.id for o in outs)} | ({report.id} if report else set())
    trace.others = [n for n in nodes if n.id not in used]
    return trace


def load_own_trace(memory: UniversalMemory, id_or_prefix: str, user_id: str) -> Trace:
    """The trace of one of the user's impulses; another user's is reported as not existing."""
    node = own_node(memory, id_or_prefix, user_id)
    if not isinstance(node, UserImpulse):
        raise NotFoundError(f"{node.id[:8]} is a {node.type.value}, not a message: give a message's id")
    return load_trace(memory, node.id)


def latest_impulse_id(memory: UniversalMemory, user_id: str | None = None) -> str | None:
    return memory.traces.latest_impulse_id(user_id)


def trace_json(trace: Trace) -> dict[str, Any]:
    return {
        "impulse": trace.impulse.model_dump(mode="json"),
        "complete": trace.complete,
        "failed_steps": [s.task.step for s in trace.steps if s.status is TaskStatus.FAILURE],
        "steps": [
            {
                "step": step.task.step,
                "status": step.status.value,
                "duration_ms": step.report.duration_ms if step.report else None,
                "error": step.report.error if step.report else None,
                "task": step.task.model_dump(mode="json"),
                "report": step.report.model_dump(mode="json") if step.report else None,
                "outputs": [o.model_dump(mode="json") for o in step.outputs],
            }
            for step in trace.steps
        ],
        "related": [n.model_dump(mode="json") for n in trace.others],
    }
