"""Read back the trace of one cycle: impulse -> tasks -> reports -> outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.common.limits import TRACE_TEXT_CHARS
from services.common.ownership import own_node
from services.common.tokens import clip_text
from services.views.explain import explain, fact_ids
from thea.errors import NotFoundError
from thea.memory.ports import TraceSource
from thea.models import CYCLE_STEPS, Node, Report, Task, TaskStatus, UserImpulse
from thea.models.step_outputs import StepOutputModel


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
    #: texts of the facts of record the answering prompt held, by id (clipped)
    fact_texts: dict[str, str] = field(default_factory=dict)

    @property
    def reports(self) -> list[Report]:
        return [s.report for s in self.steps if s.report is not None]

    @property
    def complete(self) -> bool:
        names = {s.task.step for s in self.steps if s.report is not None}
        return set(CYCLE_STEPS) <= names


def load_trace(memory: TraceSource, impulse_id: str) -> Trace:
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
        node_id = StepOutputModel.of(done.output).node_id
        if node_id:
            output_ids.setdefault(done.task_id, []).append(node_id)
    by_id = {n.id: n for n in nodes}
    for task in tasks:
        report = reports.get(task.id)
        outs = [by_id[i] for i in output_ids.get(task.id, []) if i in by_id]
        trace.steps.append(TraceStep(task=task, report=report, outputs=outs))
        used |= {task.id, *(o.id for o in outs)} | ({report.id} if report else set())
    trace.others = [n for n in nodes if n.id not in used]
    wanted = fact_ids(trace.reports)
    if wanted:
        trace.fact_texts = {
            n.id: clip_text(n.content, TRACE_TEXT_CHARS)
            for n in memory.get(wanted)
            if n.user_id == impulse.user_id
        }
    return trace


def load_own_trace(memory: TraceSource, id_or_prefix: str, user_id: str) -> Trace:
    """The trace of one of the user's impulses; another user's is reported as not existing."""
    node = own_node(memory, id_or_prefix, user_id)
    if not isinstance(node, UserImpulse):
        raise NotFoundError(f"{node.id[:8]} is a {node.type.value}, not a message: give a message's id")
    return load_trace(memory, node.id)


def latest_impulse_id(memory: TraceSource, user_id: str | None = None) -> str | None:
    return memory.traces.latest_impulse_id(user_id)


def _report_json(report: Report, prompts: bool) -> dict[str, Any]:
    """A report as JSON; without ``prompts``, a recorded prompt keeps its id and version but
    not its messages (the whole prompt: large, and only wanted on request)."""
    data = report.model_dump(mode="json")
    prompt = data["output"].get("prompt")
    if not prompts and isinstance(prompt, dict) and "messages" in prompt:
        data["output"]["prompt"] = {k: v for k, v in prompt.items() if k != "messages"}
    return data


def trace_json(trace: Trace, prompts: bool = False) -> dict[str, Any]:
    """The trace for the API: every step with its report, and the answer explained;
    ``prompts`` includes the exact messages of the prompt the model was asked with."""
    explanation = explain(trace.reports, trace.fact_texts, prompts=prompts)
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
                "report": _report_json(step.report, prompts) if step.report else None,
                "outputs": [o.model_dump(mode="json") for o in step.outputs],
            }
            for step in trace.steps
        ],
        "related": [n.model_dump(mode="json") for n in trace.others],
        "explanation": explanation.model_dump(mode="json"),
    }
