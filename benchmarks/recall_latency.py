"""Recall latency at 1k / 10k (/ 100k with --full) memories vs raw engine queries.

For each size a fresh memory holds that many synthetic dialogue turns of one user
(linked to their concepts, each carrying the turn before it as reply context, as imported
history does); the same rows and vectors go to a raw FalkorDB graph and a
bare Qdrant Edge shard. To keep population fast, turns reuse a pool of 1,500 sentences
(plus a unique note number) and their vectors are the pool sentence's real MiniLM vector
with small seeded noise; questions are embedded for real. Each question then runs:

- thea: the deterministic plan of the question and the full recall cascade
  (``RecallService.recall_sync``: embedding, vector search, per-word full-text
  lookups with BM25, concept lookups, fusion, hydration of the hits);
- raw: one embedding, one filtered Qdrant Edge query (limit 20) and one Cypher
  full-text query (limit 40): the least work that searches both engines.

Figures are the median and 95th percentile over the questions, in ms.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.common import console, fresh_memory, percentile, record_with_concepts, row, shared_embedder
from benchmarks.raw import RawGraph, RawVectors
from services.common.plan_fallback import fallback_plan
from services.recall.cascade import RecallService, keyword_query
from services.recall.types import RecallQuery

USER = "bench"


def _query(question: str) -> RecallQuery:
    plan = fallback_plan(question, user_id=USER)
    return RecallQuery(
        texts=plan.queries,
        concepts=plan.concepts,
        user_id=USER,
        time_from=plan.time_from,
        time_to=plan.time_to,
        limit=8,
    )


def measure(size: int, questions: list[str]) -> dict[str, Any]:
    embedder = shared_embedder()
    with fresh_memory(prefix="thea-bench-recall-") as memory, tempfile.TemporaryDirectory() as tmp:
        raw_graph = RawGraph(memory)
        raw_vectors = RawVectors(Path(tmp) / "raw_vectors")
        try:
            started = time.perf_counter()
            pool = synthetic.PoolEmbeddings(embedder)
            memory.embedder = pool  # population only: one real embedding per distinct sentence
            turns = synthetic.turns(size, USER, seed=size, reply_context=True)
            record_with_concepts(memory, turns, batch=500)
            raw_graph.write(turns)
            raw_vectors.write(turns, pool.embed_documents([t.content for t in turns]))
            memory.embedder = embedder  # timed work embeds for real
            populate_s = time.perf_counter() - started
            service = RecallService(memory)
            hits = 0
            for question in questions[:3]:  # warm up caches and plans
                service.recall_sync(_query(question))
            ours, raw = [], []
            for question in questions:
                t0 = time.perf_counter()
                result = service.recall_sync(_query(question))
                ours.append((time.perf_counter() - t0) * 1000)
                hits += len(result.hits)
                t0 = time.perf_counter()
                vector = embedder.embed_query(question)
                raw_vectors.search(vector, USER, 20)
                raw_graph.fulltext(keyword_query([question]), USER, 40)
                raw.append((time.perf_counter() - t0) * 1000)
        finally:
            raw_vectors.close()
            raw_graph.close()
    return {
        "size": size,
        "ours_ms": ours,
        "raw_ms": raw,
        "populate_s": populate_s,
        "mean_hits": hits / len(questions),
    }


def run(quick: bool) -> dict[str, Any]:
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    questions = synthetic.questions(30 if quick else 100)
    rows: list[dict[str, Any]] = []
    detail = []
    for size in sizes:
        console.print(f"recall: populating {size:,} memories ...")
        m = measure(size, questions)
        detail.append({k: v for k, v in m.items() if not k.endswith("_ms")})
        note = f"populated in {m['populate_s']:.0f} s; {m['mean_hits']:.1f} hits/query"
        for q in (50, 95):
            rows.append(
                row(
                    f"recall p{q} at {size:,} memories",
                    percentile(m["ours_ms"], q),
                    percentile(m["raw_ms"], q),
                    "ms",
                    note if q == 50 else "",
                )
            )
    params = {"sizes": sizes, "questions": len(questions)}
    return {"name": "recall", "params": params, "detail": detail, "rows": rows}
