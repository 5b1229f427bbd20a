"""The benchmarks ``python -m benchmarks`` knows.

A benchmark is a module exposing ``run(quick: bool) -> dict`` that returns at least
``{"name": str, "rows": [row(...), ...]}`` (see :func:`benchmarks.common.row`: our
figure, the raw baseline measured in the same run, their ratio, a unit). Add one by
writing the module and one line below; a listed module that does not exist yet is
reported as "not available" instead of failing the run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

RunFn = Callable[[bool], dict[str, Any]]


@dataclass(frozen=True)
class Benchmark:
    name: str
    module: str
    description: str
    #: Part of ``python -m benchmarks all``.
    in_all: bool = True


BENCHMARKS: list[Benchmark] = [
    Benchmark(
        "memory",
        "benchmarks.memory",
        "record() records/s and per-layer read p50/p95 (graph 1-hop, vector search, chronicle range)",
    ),
    Benchmark(
        "writes", "benchmarks.writes", "memory.record of N nodes vs raw FalkorDB UNWIND MERGE (+ raw stores)"
    ),
    Benchmark(
        "recall", "benchmarks.recall_latency", "recall latency at 1k/10k(/100k) nodes vs raw Qdrant + Cypher"
    ),
    Benchmark(
        "recall-locomo",
        "benchmarks.recall_locomo",
        "recall latency on the LoCoMo dev conversations (quick: the first) vs dense MiniLM retrieval; "
        "budget 50 ms/query",
    ),
    Benchmark(
        "cycle", "benchmarks.cycle", "handle_impulse with a zero-latency fake LLM vs its raw store calls"
    ),
    Benchmark(
        "import",
        "benchmarks.import_history",
        "thea import of a generated JSONL (quick 3,000 lines, full 45,000) in turns/s vs the embedding alone",
        in_all=False,
    ),
    Benchmark("reflection", "benchmarks.reflection", "reflection loop (crystallize / merge) throughput"),
    Benchmark("stress", "benchmarks.stress", "concurrent load"),
    Benchmark(
        "worst-case",
        "benchmarks.worst_case",
        "one worst-case 200,000-character message (cycle, crystallize, !fact) vs an ordinary one",
    ),
    Benchmark(
        "contention",
        "benchmarks.contention",
        "offline model: questions during a 20-job slow-loop backlog vs an idle queue (foreground first)",
    ),
    Benchmark(
        "knowledge",
        "benchmarks.knowledge",
        "offline model: a scripted conversation; correct answers, invented facts, unsupported insights",
        in_all=False,
    ),
    Benchmark(
        "latency",
        "benchmarks.latency",
        "offline model: first-token and full-answer time, calls and tokens per impulse, idle and "
        "with a CPU-bound competitor, current vs previous cycle design",
    ),
    Benchmark(
        "live_memory",
        "benchmarks.live_memory",
        "offline model: personas chat for days through a real service, then questions about them "
        "(updates, dates, never-said) after the slow loop; quick: first persona",
        in_all=False,
    ),
    Benchmark(
        "scaleout",
        "benchmarks.scaleout",
        "server mode for real: FalkorDB and Redis servers, 2 thea services, 2 workers, 16 clients "
        "(32 full); kill -9 of a service and workers under load: records missing or duplicated, "
        "jobs lost or run twice, p50/p99, two services against one",
        in_all=False,
    ),
    Benchmark(
        "locomo",
        "benchmarks.locomo",
        "LoCoMo retrieval quality (separate: python -m benchmarks.locomo)",
        False,
    ),
    Benchmark(
        "locomo_qa",
        "benchmarks.locomo_qa",
        "LoCoMo answers with the offline model vs four baselines (separate: python -m benchmarks.locomo_qa)",
        False,
    ),
]


def by_name(name: str) -> Benchmark:
    for bench in BENCHMARKS:
        if bench.name == name:
            return bench
    known = ", ".join(b.name for b in BENCHMARKS)
    raise KeyError(f"unknown benchmark {name!r} (known: {known}, all)")


def load(bench: Benchmark) -> RunFn | None:
    """The module's ``run``, or None if the module is not written yet."""
    try:
        module = importlib.import_module(bench.module)
    except ModuleNotFoundError as exc:
        if exc.name == bench.module:
            return None
        raise
    run = getattr(module, "run", None)
    if not callable(run):
        raise TypeError(f"{bench.module} has no run(quick: bool) -> dict")
    return run  # type: ignore[no-any-return]


def selected(names: list[str]) -> list[Benchmark]:
    if not names or names == ["all"]:
        return [b for b in BENCHMARKS if b.in_all]
    return [by_name(n) for n in names]
