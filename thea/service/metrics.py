"""Prometheus metrics of the service, served at ``GET /metrics`` (text exposition format).

Every series carries the ``profile`` label. Cycles are observed by the orchestrator's hook
(:attr:`services.cycle.orchestrator.Orchestrator.observers`); queue depths are read from the queue
when Prometheus scrapes (no polling in between). One registry per app, so several apps in one
process (tests) never share series.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from services.cycle.orchestrator import CycleResult
from thea.runtime import Runtime
from workers.admin import queue_counts

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: seconds: a cycle on the offline model takes 2-30 s, a scripted one milliseconds
CYCLE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)
STEP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60)


class _Queues(Collector):
    """Jobs per queue and state (queued, started, scheduled, failed), read at scrape time."""

    def __init__(self, runtime: Runtime, profile: str) -> None:
        self.runtime = runtime
        self.profile = profile

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "thea_queue_jobs", "Slow-loop jobs per queue and state", labels=["profile", "queue", "state"]
        )
        try:
            counts = queue_counts(self.runtime.jobs.connection)
        except Exception as exc:  # a scrape must not fail because the queue is down
            log.warning("metrics: queue counts unavailable: %s", exc)
            counts = []
        for c in counts:
            for state in ("queued", "started", "scheduled", "failed"):
                family.add_metric([self.profile, c.name, state], float(getattr(c, state)))
        yield family


class ServiceMetrics:
    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.registry = CollectorRegistry()
        r = self.registry
        self.cycles = Counter(
            "thea_cycles", "Cognitive cycles by outcome", ["profile", "outcome"], registry=r
        )
        self.cycle_seconds = Histogram(
            "thea_cycle_seconds", "Whole-cycle latency", ["profile"], buckets=CYCLE_BUCKETS, registry=r
        )
        self.step_seconds = Histogram(
            "thea_step_seconds",
            "Latency per cycle step",
            ["profile", "step"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.step_failures = Counter(
            "thea_step_failures", "Cycle steps that failed or timed out", ["profile", "step"], registry=r
        )
        self.llm_calls = Counter("thea_llm_calls", "Model calls made by cycles", ["profile"], registry=r)
        self.llm_tokens = Counter(
            "thea_llm_tokens", "Model tokens of cycles", ["profile", "direction"], registry=r
        )
        self.recall_hits = Counter(
            "thea_recall_hits",
            "Recalled memories per stage that found them",
            ["profile", "stage"],
            registry=r,
        )

    def watch(self, runtime: Runtime) -> None:
        """Observe the runtime's cycles and report its queues."""
        runtime.orchestrator.observers.append(self.observe)
        self.registry.register(_Queues(runtime, self.profile))

    def observe(self, result: CycleResult | None, seconds: float, outcome: str) -> None:
        p = self.profile
        self.cycles.labels(p, outcome).inc()
        if result is None:
            return
        self.cycle_seconds.labels(p).observe(seconds)
        for step in result.steps:
            self.step_seconds.labels(p, step.step).observe(step.duration_ms / 1000)
            if step.step in result.failed_steps:
                self.step_failures.labels(p, step.step).inc()
        self.llm_calls.labels(p).inc(result.usage.calls)
        self.llm_tokens.labels(p, "in").inc(result.usage.tokens_in)
        self.llm_tokens.labels(p, "out").inc(result.usage.tokens_out)
        for stage, hits in result.recall_stage_hits.items():
            self.recall_hits.labels(p, stage).inc(hits)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
