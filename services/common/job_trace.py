"""Task/Report nodes for slow-loop jobs, so a job shows in the trace of its impulse.

Ids derive from the job's own key: rerunning a job overwrites its Task and Report
instead of adding new ones.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from thea.models import Edge, EdgeType, LLMUsage, Node, Report, Step, Task, TaskStatus, stable_id


@dataclass
class JobTrace:
    """Collects what a job did; ``nodes()``/``edges()`` give its Task and Report."""

    step: Step
    service: str
    key: str
    user_id: str | None
    session_id: str | None = None
    correlation_id: str | None = None
    impulse_id: str | None = None
    started: float = field(default_factory=time.perf_counter)
    usage: LLMUsage = field(default_factory=LLMUsage)

    @property
    def task_id(self) -> str:
        return stable_id(self.step, "task", self.key)

    @property
    def report_id(self) -> str:
        return stable_id(self.step, "report", self.key)

    def build(
        self,
        status: TaskStatus,
        output: dict[str, Any] | None = None,
        error: str | None = None,
        produced: Sequence[Node] = (),
    ) -> tuple[list[Node], list[Edge]]:
        ids = {
            "user_id": self.user_id,
            "session_id": self.session_id,
            "correlation_id": self.correlation_id,
        }
        task = Task(
            id=self.task_id,
            step=self.step,
            service=self.service,
            status=status,
            content=f"{self.step} job",
            input={"key": self.key},
            **ids,
        )
        report = Report(
            id=self.report_id,
            step=self.step,
            task_id=task.id,
            status=status,
            output=output or {},
            error=error,
            duration_ms=(time.perf_counter() - self.started) * 1000,
            model=self.usage.model,
            prompt_name=self.usage.prompt_name,
            prompt_version=self.usage.prompt_version,
            tokens_in=self.usage.tokens_in,
            tokens_out=self.usage.tokens_out,
            llm_calls=self.usage.calls,
            content=f"{self.step}: {status.value}",
            **ids,
        )
        edges = [Edge(src=report.id, dst=task.id, type=EdgeType.IS_RESULT_OF)]
        if self.impulse_id:
            edges.append(Edge(src=task.id, dst=self.impulse_id, type=EdgeType.IS_TASK_FOR))
        for node in produced:
            edges.append(Edge(src=node.id, dst=report.id, type=EdgeType.DERIVED_FROM))
        return [task, report], edges
