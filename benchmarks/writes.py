"""Write path: ``UniversalMemory.record`` vs the same rows written to the raw engines.

Three figures, each against a raw baseline measured in the same run on the same
embedded FalkorDB server (a second graph with thea's schema, so index upkeep is equal):

1. graph only: the graph adapter's ``upsert_nodes`` vs one ``UNWIND $rows MERGE`` per batch;
2. record of nodes that are not embedded (Task): graph + chronicle vs raw UNWIND MERGE + a
   raw SQLite insert;
3. record of dialogue turns: graph + MiniLM embedding + Qdrant Edge + chronicle vs the same
   three raw writes and the same embedding call.

The ratio is thea's time over the raw time (1.0 = no overhead). Best of the repeats.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.common import fresh_memory, row, shared_embedder
from benchmarks.raw import RawChronicle, RawGraph, RawVectors
from thea.models import Node, Task


def _tasks(count: int, tag: str) -> list[Node]:
    return [
        Task(step="recall", service="bench", content=f"task {tag} {i}", user_id="bench", input={"i": i})
        for i in range(count)
    ]


def _best(reps: int, make: Callable[[int], Any], write: Callable[[Any], object]) -> float:
    """Fastest of ``reps`` writes, each of fresh data (``make(rep)``), in seconds."""
    best = float("inf")
    for rep in range(reps):
        data = make(rep)
        started = time.perf_counter()
        write(data)
        best = min(best, time.perf_counter() - started)
    return best


def run(quick: bool) -> dict[str, Any]:
    plain = 2_000 if quick else 20_000
    embedded = 1_000 if quick else 10_000
    reps = 2 if quick else 3
    embedder = shared_embedder()
    rows: list[dict[str, Any]] = []
    with fresh_memory(prefix="thea-bench-writes-") as memory, tempfile.TemporaryDirectory() as tmp:
        raw_graph = RawGraph(memory)
        raw_vectors = RawVectors(Path(tmp) / "raw_vectors")
        raw_chronicle = RawChronicle(Path(tmp) / "raw.sqlite3")
        try:
            memory.record(_tasks(20, "warm"))  # warm both paths (connections, plans)
            raw_graph.write(_tasks(20, "warm-raw"))

            ours = _best(reps, lambda r: _tasks(plain, f"g{r}"), memory.graph.upsert_nodes)
            raw = _best(reps, lambda r: _tasks(plain, f"rg{r}"), raw_graph.write)
            rows.append(
                row(f"graph upsert of {plain:,} nodes", ours, raw, "s", f"{plain / ours:,.0f} nodes/s")
            )

            ours = _best(reps, lambda r: _tasks(plain, f"t{r}"), memory.record)

            def raw_plain(nodes: list[Node]) -> None:
                raw_graph.write(nodes)
                raw_chronicle.write(nodes)

            raw = _best(reps, lambda r: _tasks(plain, f"rt{r}"), raw_plain)
            rows.append(
                row(
                    f"record {plain:,} plain nodes (graph+chronicle)",
                    ours,
                    raw,
                    "s",
                    f"{plain / ours:,.0f} nodes/s",
                )
            )

            ours = _best(1, lambda r: synthetic.turns(embedded, "bench", seed=3), memory.record)

            def raw_turns(nodes: list[Node]) -> None:
                vectors = embedder.embed_documents([n.content for n in nodes])
                raw_graph.write(nodes)
                raw_vectors.write(nodes, vectors)
                raw_chronicle.write(nodes)

            raw = _best(1, lambda r: synthetic.turns(embedded, "bench-raw", seed=3), raw_turns)
            rows.append(
                row(
                    f"record {embedded:,} dialogue turns (+embed, vectors)",
                    ours,
                    raw,
                    "s",
                    f"{embedded / ours:,.0f} turns/s; embedding dominates",
                )
            )
        finally:
            raw_chronicle.close()
            raw_vectors.close()
            raw_graph.close()
    return {
        "name": "writes",
        "params": {"plain_nodes": plain, "embedded_turns": embedded, "repeats": reps, "batch": 500},
        "rows": rows,
    }
