"""Reflection scaling and crystallization throughput (LLM faked, zero latency).

* reflection wall time at 1k / 10k (/100k with --full) active insights, beside the raw
  engine read of the same insights (one Cypher scan) in the same run, with the growth
  exponent between sizes (1.0 = linear; N log N stays close to 1);
* crystallization jobs per second for one worker, beside RQ's own throughput for
  no-op jobs on the same redis-server.

Embeddings are a deterministic hash (this measures thea, not MiniLM).

    python -m benchmarks.reflection [--full]
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks.common import bench_settings, machine, row, standalone_main
from services.reflection.crystallizer import Crystallizer
from services.reflection.merge import ReflectionConfig, Reflector
from thea.llm.fake import StreamingFakeChatModel
from thea.memory.factory import open_memory
from thea.memory.universal import UniversalMemory
from thea.models import Concept, Edge, EdgeType, KnowledgeCrystal
from thea.runtime.assembly import build_orchestrator
from workers.context import WorkerContext
from workers.queues import CRYSTALLIZE, RQJobSink
from workers.worker import make_worker

GROUP = 4  # insights per concept pair


class HashEmbeddings(Embeddings):
    """Deterministic pseudo-random unit vectors: fast, and distinct texts stay apart."""

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def _one(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(self.dimension).astype(np.float32)
        return [float(x) for x in v / np.linalg.norm(v)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def seed_insights(memory: UniversalMemory, n: int, user: str) -> None:
    pairs = max(1, n // GROUP)
    concepts = [Concept.named(f"topic {i}", user) for i in range(pairs + 1)]
    memory.record(concepts)
    batch = 5000
    for start in range(0, n, batch):
        nodes, edges = [], []
        for i in range(start, min(n, start + batch)):
            p = i % pairs
            k = KnowledgeCrystal(content=f"insight {i} about topic {p} and {p + 1}", user_id=user)
            nodes.append(k)
            edges += [
                Edge(src=k.id, dst=concepts[p].id, type=EdgeType.INSIGHT_FROM_CONCEPT),
                Edge(src=k.id, dst=concepts[p + 1].id, type=EdgeType.INSIGHT_FROM_CONCEPT),
            ]
        memory.record(nodes, edges)


def _memory(tmp: str) -> UniversalMemory:
    memory = open_memory(bench_settings(Path(tmp) / "data"))
    memory.embedder = HashEmbeddings()
    return memory


def reflection_at(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="thea-bench-reflect-") as tmp:
        memory = _memory(tmp)
        try:
            seed_insights(memory, n, "bench")
            started = time.perf_counter()
            rows = memory.reflection.candidates("bench", "", n + 1)
            raw_s = time.perf_counter() - started
            assert len(rows) == n
            reflector = Reflector(
                memory, StreamingFakeChatModel.minimal(), config=ReflectionConfig(dedup_similarity=0.95)
            )
            started = time.perf_counter()
            report = asyncio.run(reflector.reflect("bench", f"bench-{n}"))
            ours_s = time.perf_counter() - started
        finally:
            memory.close()
    return {"n": n, "ours_s": ours_s, "raw_s": raw_s, "merged": report.merged, "archived": report.archived}


def crystallize_throughput(jobs: int) -> tuple[float, float]:
    """(thea crystallize jobs/s, RQ no-op jobs/s) on one in-process worker."""
    with tempfile.TemporaryDirectory(prefix="thea-bench-crystal-") as tmp:
        settings = bench_settings(Path(tmp) / "data")
        memory = _memory(tmp)
        try:
            llm = StreamingFakeChatModel.minimal()
            conn = memory_server_client(settings)
            orchestrator = build_orchestrator(settings, memory, llm)
            impulses = [
                asyncio.run(orchestrator.handle_impulse(f"note {i}: cache -> speed", "bench", "s")).impulse_id
                for i in range(jobs)
            ]
            context = WorkerContext(
                memory=memory,
                llm=llm,
                distiller=None,  # type: ignore[arg-type]
                crystallizer=Crystallizer(memory, llm),
                reflector=Reflector(memory, llm),
            )
            sink = RQJobSink(conn, max_retries=0)
            for impulse_id in impulses:
                sink.enqueue_crystallize(impulse_id, "bench", "s")
            ours = _burst_rate(conn, jobs, context)
            queue = sink.queue(CRYSTALLIZE)
            for _ in range(jobs):
                queue.enqueue("builtins.len", "x")
            raw = _burst_rate(conn, jobs, context)
        finally:
            memory.close()
    return ours, raw


def memory_server_client(settings: Any) -> Any:
    from thea.memory.factory import embedded_server

    return embedded_server(settings).start().client()


def _burst_rate(conn: Any, jobs: int, context: WorkerContext) -> float:
    worker = make_worker(conn, [CRYSTALLIZE], threaded=True, context=context)
    started = time.perf_counter()
    worker.work(burst=True, logging_level="ERROR")
    return jobs / (time.perf_counter() - started)


def run(quick: bool = True) -> dict[str, Any]:
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    results = [reflection_at(n) for n in sizes]
    rows = []
    for r in results:
        rows.append(
            row(
                f"reflect {r['n']:,} insights",
                r["ours_s"],
                r["raw_s"],
                "s",
                f"{r['merged']:,} merges; raw = one Cypher read of the same insights",
            )
        )
    for a, b in itertools.pairwise(results):
        exponent = math.log(b["ours_s"] / a["ours_s"]) / math.log(b["n"] / a["n"])
        nlogn = math.log((b["n"] * math.log(b["n"])) / (a["n"] * math.log(a["n"]))) / math.log(
            b["n"] / a["n"]
        )
        rows.append(
            row(
                f"growth {a['n']:,}->{b['n']:,}",
                exponent,
                nlogn,
                "exponent",
                "time ~ N^x; raw column = the exponent N log N would give",
            )
        )
    jobs = 50 if quick else 300
    ours, raw = crystallize_throughput(jobs)
    rows.append(
        row(f"crystallize jobs/s ({jobs} jobs, 1 worker)", ours, raw, "jobs/s", "raw = RQ no-op jobs")
    )
    return {"name": "reflection", "quick": quick, "machine": machine(), "rows": rows, "sizes": results}


def main() -> None:
    standalone_main("reflection", run, __doc__, "include 100k insights")


if __name__ == "__main__":
    main()
