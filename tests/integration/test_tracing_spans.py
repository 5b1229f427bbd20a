"""OpenTelemetry spans (the ``otel`` extra): one per cycle, per step and per slow-loop job, all
carrying the impulse id, collected by the SDK's in-memory exporter around a real cycle and a real
crystallize job (real engines, scripted model)."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def _provider() -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    trace.set_tracer_provider(provider)  # once per process: the API allows no second one


@pytest.fixture(autouse=True)
def _clear() -> None:
    _EXPORTER.clear()


def test_a_cycle_and_its_job_are_spans_linked_by_the_impulse_id(runtime: Runtime, llm: FakeChatModel) -> None:
    llm.fail = {PromptId.SYNTHESIS}
    result = asyncio.run(
        runtime.orchestrator.handle_impulse("Where does Ana keep her notes? In Redis.", "ana", "s1")
    )
    runtime.run_jobs()

    spans = {s.name: s for s in _EXPORTER.get_finished_spans()}
    assert {"thea.cycle", "thea.instinct", "thea.plan", "thea.recall", "thea.synthesis", "thea.job"} <= set(
        spans
    )
    cycle = spans["thea.cycle"]
    for name in ("thea.instinct", "thea.plan", "thea.recall", "thea.synthesis"):
        step = spans[name]
        assert step.attributes is not None
        assert step.attributes["thea.impulse_id"] == result.impulse_id
        assert step.parent is not None
        assert step.parent.span_id == cycle.context.span_id  # steps are children of their cycle
    by_step = {r.step: r for r in result.steps}
    assert spans["thea.plan"].attributes["thea.task_id"] == by_step["plan"].task_id  # type: ignore[index]
    assert spans["thea.synthesis"].status.status_code is StatusCode.ERROR  # the failed step
    assert spans["thea.instinct"].status.status_code is not StatusCode.ERROR
    job = spans["thea.job"]
    assert job.attributes is not None
    assert job.attributes["thea.impulse_id"] == result.impulse_id
    assert job.attributes["thea.job_function"] in ("workers.jobs.read_claims", "workers.jobs.crystallize")
    assert job.status.status_code is not StatusCode.ERROR
