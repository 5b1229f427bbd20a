"""UniversalMemory per layer: records/s of batched ``record()`` and read latencies.

At 10k (and 100k with ``--full``) stored dialogue turns linked to their concepts:

* records/s of ``memory.record`` (graph + embeddings + vectors + chronicle, batches of 500);
* p50/p95 of a graph 1-hop neighbourhood (``memory.neighbourhood``) vs the raw Cypher
  1-hop query on the same server;
* p50/p95 of a filtered vector search (``memory.vectors.search``) vs a raw Qdrant Edge query
  on a shard holding the same points;
* p50/p95 of a chronicle time-range query (``memory.chronicle.range``, 50 events) vs the raw
  SQLite SELECT on a copy of the same rows.

Each raw baseline is measured in the same run; ratio = our overhead.

    python -m benchmarks.memory [--full]
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.common import (
    console,
    fresh_memory,
    machine,
    percentile,
    record_with_concepts,
    row,
    shared_embedder,
    standalone_main,
)
from benchmarks.raw import RawChronicle, RawGraph, RawVectors
from thea.models import Collection, VectorFilter

USER = "bench"
ONE_HOP = "MATCH (n:Memory {id: $id})-[r]-(m:Memory) RETURN n, r, m LIMIT 200"  # nodes and edges
RANGE_SQL = "SELECT * FROM events WHERE user_id = ? AND time >= ? AND time < ? ORDER BY time, id LIMIT 50"


def _lat(fn: Callable[[Any], object], args: list[Any]) -> list[float]:
    for a in args[:5]:
        fn(a)  # warm up
    out = []
    for a in args:
        started = time.perf_counter()
        fn(a)
        out.append((time.perf_counter() - started) * 1000)
    return out


def measure(size: int, probes: int) -> dict[str, Any]:
    rng = random.Random(size)
    embedder = shared_embedder()
    with fresh_memory(prefix="thea-bench-memory-") as memory, tempfile.TemporaryDirectory() as tmp:
        raw_graph = RawGraph(memory)
        raw_vectors = RawVectors(Path(tmp) / "raw_vectors")
        raw_chronicle = RawChronicle(Path(tmp) / "raw.sqlite3")
        try:
            pool = synthetic.PoolEmbeddings(embedder)
            memory.embedder = pool
            turns = synthetic.turns(size, USER, seed=size)
            started = time.perf_counter()
            record_with_concepts(memory, turns, batch=500)
            record_s = time.perf_counter() - started
            vectors = pool.embed_documents([t.content for t in turns])
            raw_graph.write(turns)
            raw_vectors.write(turns, vectors)
            raw_chronicle.write(turns)
            memory.embedder = embedder
            started = time.perf_counter()
            memory.vectors.optimize()  # `thea memory optimize`: build HNSW on both sides
            optimize_s = time.perf_counter() - started
            raw_vectors.shard.optimize()

            ids = [t.id for t in rng.sample(turns, probes)]
            ours_hop = _lat(lambda i: memory.neighbourhood(i, 1), ids)
            raw_hop = _lat(lambda i: raw_graph.graph.query(ONE_HOP, {"id": i}).result_set, ids)

            qvecs = [vectors[rng.randrange(size)] for _ in range(probes)]
            flt = VectorFilter(user_id=USER, active=True)
            ours_vec = _lat(lambda v: memory.vectors.search(Collection.EXPERIENCE, v, 20, flt), qvecs)
            raw_vec = _lat(lambda v: raw_vectors.search(v, USER, 20), qvecs)

            times = sorted(t.created_at for t in turns)
            spans = [(times[i], times[min(i + 50, size - 1)] + 1) for i in rng.sample(range(size), probes)]
            ours_rng = _lat(lambda s: memory.chronicle.range(s[0], s[1], user_id=USER, limit=50), spans)
            raw_rng = _lat(
                lambda s: raw_chronicle.conn.execute(RANGE_SQL, (USER, s[0], s[1])).fetchall(), spans
            )
        finally:
            raw_chronicle.close()
            raw_vectors.close()
            raw_graph.close()
    return {
        "size": size,
        "records_per_s": size / record_s,
        "optimize_s": optimize_s,
        "hop": (ours_hop, raw_hop),
        "vector": (ours_vec, raw_vec),
        "range": (ours_rng, raw_rng),
    }


def run(quick: bool = True) -> dict[str, Any]:
    sizes = [10_000] if quick else [10_000, 100_000]
    probes = 100 if quick else 300
    rows: list[dict[str, Any]] = []
    for size in sizes:
        console.print(f"memory: populating {size:,} dialogue turns ...")
        m = measure(size, probes)
        rows.append(
            row(
                f"record() at {size:,} turns",
                m["records_per_s"],
                None,
                "records/s",
                "graph+vectors+chronicle",
            )
        )
        for key, label in (("hop", "graph 1-hop"), ("vector", "vector search"), ("range", "chronicle range")):
            ours, raw = m[key]
            for q in (50, 95):
                rows.append(row(f"{label} p{q} at {size:,}", percentile(ours, q), percentile(raw, q), "ms"))
    return {"name": "memory", "quick": quick, "machine": machine(), "params": {"sizes": sizes}, "rows": rows}


def main() -> None:
    standalone_main("memory", run, __doc__, "also 100k turns")


if __name__ == "__main__":
    main()
