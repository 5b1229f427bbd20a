"""Cycle overhead: ``Orchestrator.handle_impulse`` with a zero-latency fake LLM vs the time
spent inside its raw store calls.

The memory holds 1,000 synthetic dialogue turns so recall has work to do. During each
cycle every call into the engines is timed where thea hands over to them: FalkorDB's
``Graph.query``, the Qdrant Edge shard calls, the SQLite chronicle's statements and the
MiniLM embedding calls. "raw" is the sum of those per cycle; the ratio cycle / raw shows
what thea's own code (steps, prompts, the fake model's LangChain plumbing, node building,
threads) adds on top of the engines. Median over the cycles, in ms.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from langchain_core.embeddings import Embeddings

from benchmarks import synthetic
from benchmarks.common import fresh_stack, percentile, record_with_concepts, row, shared_embedder
from thea.llm.fake import StreamingFakeChatModel
from thea.memory.universal import UniversalMemory
from thea.runtime.assembly import build_orchestrator

USER = "bench"


class StoreClock:
    """Thread-safe sums of time spent in engine calls, by engine."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, engine: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                with self.lock:
                    self.seconds[engine] += elapsed
                    self.calls[engine] += 1

        return timed

    def snapshot(self) -> tuple[dict[str, float], dict[str, int]]:
        with self.lock:
            return dict(self.seconds), dict(self.calls)


class TimedEmbeddings(Embeddings):
    def __init__(self, base: Embeddings, clock: StoreClock) -> None:
        self.base = base
        self.embed_documents = clock.wrap("embeddings", base.embed_documents)  # type: ignore[method-assign]
        self.embed_query = clock.wrap("embeddings", base.embed_query)  # type: ignore[method-assign]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:  # replaced per instance
        return self.base.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:  # replaced per instance
        return self.base.embed_query(text)


def instrument(memory: UniversalMemory, clock: StoreClock) -> None:
    """Time every hand-over to an engine (instance attributes shadow the methods)."""
    graph: Any = memory.graph
    graph._graph.query = clock.wrap("graph", graph._graph.query)
    vectors: Any = memory.vectors
    vectors._call = clock.wrap("vectors", vectors._call)
    chronicle: Any = memory.chronicle
    for name in ("append", "_query"):
        if hasattr(chronicle, name):
            setattr(chronicle, name, clock.wrap("chronicle", getattr(chronicle, name)))
    memory.embedder = TimedEmbeddings(memory.embedder, clock)


def measure(size: int, cycles: int) -> dict[str, Any]:
    questions = synthetic.questions(cycles + 3, seed=5)
    with fresh_stack(prefix="thea-bench-cycle-") as (settings, memory):
        memory.embedder = synthetic.PoolEmbeddings(shared_embedder())
        record_with_concepts(memory, synthetic.turns(size, USER, seed=9), batch=500)
        memory.embedder = shared_embedder()
        orchestrator = build_orchestrator(settings, memory, StreamingFakeChatModel.minimal(), jobs=None)
        clock = StoreClock()
        instrument(memory, clock)
        walls: list[float] = []
        stores: list[float] = []
        parts: list[dict[str, float]] = []
        calls: list[int] = []
        llm_calls: list[int] = []
        tokens: list[int] = []

        async def main() -> None:
            for index, question in enumerate(questions):
                before, n_before = clock.snapshot()
                started = time.perf_counter()
                result = await orchestrator.handle_impulse(question, USER, "bench-session")
                wall = (time.perf_counter() - started) * 1000
                after, n_after = clock.snapshot()
                if index < 3:  # warm-up
                    continue
                part = {k: (after.get(k, 0.0) - before.get(k, 0.0)) * 1000 for k in after}
                walls.append(wall)
                stores.append(sum(part.values()))
                parts.append(part)
                calls.append(sum(n_after.values()) - sum(n_before.values()))
                llm_calls.append(result.usage.calls)
                tokens.append(result.usage.tokens_in + result.usage.tokens_out)

        asyncio.run(main())
    engines = sorted({k for p in parts for k in p})
    return {
        "size": size,
        "walls": walls,
        "stores": stores,
        "calls": calls,
        "llm_calls": llm_calls,
        "tokens": tokens,
        "breakdown": {k: percentile([p.get(k, 0.0) for p in parts], 50) for k in engines},
    }


def run(quick: bool) -> dict[str, Any]:
    cycles = 30 if quick else 100
    sizes = [10_000] if quick else [10_000, 100_000]
    rows: list[dict[str, Any]] = []
    breakdowns = {}
    for size in sizes:
        m = measure(size, cycles)
        walls, stores = m["walls"], m["stores"]
        breakdowns[size] = m["breakdown"]
        overhead = [w - st for w, st in zip(walls, stores, strict=True)]
        parts = ", ".join(f"{k} {v:.1f}" for k, v in m["breakdown"].items())
        rows += [
            row(
                f"handle_impulse p50 at {size:,} memories",
                percentile(walls, 50),
                percentile(stores, 50),
                "ms",
                "raw = time inside engine calls; " + parts,
            ),
            row(
                f"handle_impulse p95 at {size:,} memories",
                percentile(walls, 95),
                percentile(stores, 95),
                "ms",
            ),
            row(
                f"thea overhead p50 at {size:,}",
                percentile(overhead, 50),
                None,
                "ms",
                f"{percentile([float(c) for c in m['calls']], 50):.0f} engine calls per cycle",
            ),
            row(f"thea overhead p95 at {size:,}", percentile(overhead, 95), None, "ms"),
            row(
                "LLM calls per impulse",
                percentile([float(c) for c in m["llm_calls"]], 50),
                None,
                "calls",
                f"tokens per impulse p50 {percentile([float(t) for t in m['tokens']], 50):.0f} (fake model)",
            ),
        ]
    return {
        "name": "cycle",
        "params": {
            "cycles": cycles,
            "memories": sizes,
            "llm": "thea.llm.fake.StreamingFakeChatModel.minimal()",
        },
        "breakdown_ms_p50": breakdowns,
        "rows": rows,
    }
