"""Recall latency at LoCoMo scale: the default cascade on real conversations vs dense retrieval.

Issue 26's budget is recall at most 50 ms per query at LoCoMo scale on 2 cores. Each LoCoMo
development conversation (quick: the first; full: all three, 369-663 turns each) is imported
into a fresh embedded memory through thea's importer (``thea import``'s path, as
``benchmarks/locomo.py`` does), then every question with evidence runs, after a few warm-up
queries:

- thea: the deterministic plan of the question and the default recall cascade
  (``RecallService.recall_sync``: the query embedded and searched beside the keyword, triple and
  activation stages, fusion, the hits read back);
- raw: the dense baseline of the retrieval benchmark (one MiniLM query embedding and a cosine
  over the conversation's vectors held in numpy), the least any vector recall pays.

Figures are the median, mean and 95th percentile over the questions, in ms. Take the heavy-run
lock: on a machine shared with other runs the figures measure the load, not the code.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.common import console, fresh_memory, percentile, row
from benchmarks.locomo import DEFAULT_DATA, ingest, thea_query
from benchmarks.locomo_baselines import DenseBaseline
from benchmarks.locomo_data import DataSet, load_data_set
from services.recall.cascade import RecallService

#: issue 26: recall at LoCoMo scale on 2 cores
BUDGET_MS = 50.0
WARM_UP = 10


def measure(conversation_index: int) -> dict[str, Any]:
    """Per-question recall times (ms) of thea and of the dense baseline on one conversation."""
    conv = load_data_set(DEFAULT_DATA, DataSet.LOCOMO)[conversation_index]
    user_id = f"locomo:{conv.sample_id}"
    now = conv.asked_at
    questions = [q.question for q in conv.questions if q.evidence]
    dense = DenseBaseline(conv.turns)
    with fresh_memory(prefix="thea-bench-recall-locomo-") as memory:
        started = time.perf_counter()
        ingest(memory, conv, user_id)
        import_s = time.perf_counter() - started
        service = RecallService(memory)
        queries = [thea_query(q, user_id, now) for q in questions]
        for query in queries[:WARM_UP]:
            service.recall_sync(query)
        ours: list[float] = []
        raw: list[float] = []
        for question, query in zip(questions, queries, strict=True):
            t0 = time.perf_counter()
            service.recall_sync(query)
            ours.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            dense.rank(question)
            raw.append((time.perf_counter() - t0) * 1000)
    return {
        "conversation": conv.sample_id,
        "turns": len(conv.turns),
        "questions": len(questions),
        "import_s": round(import_s, 1),
        "ours_ms": ours,
        "raw_ms": raw,
    }


def run(quick: bool) -> dict[str, Any]:
    conversations = 1 if quick else len(load_data_set(DEFAULT_DATA, DataSet.LOCOMO))
    ours: list[float] = []
    raw: list[float] = []
    detail = []
    for index in range(conversations):
        console.print(f"recall-locomo: importing conversation {index + 1} of {conversations} ...")
        m = measure(index)
        ours += m["ours_ms"]
        raw += m["raw_ms"]
        detail.append({k: v for k, v in m.items() if not k.endswith("_ms")})
    note = f"{len(ours)} questions, {sum(d['turns'] for d in detail)} turns; budget {BUDGET_MS:.0f} ms"
    rows = [
        row("recall p50 at LoCoMo scale", percentile(ours, 50), percentile(raw, 50), "ms", note),
        row("recall mean at LoCoMo scale", statistics.fmean(ours), statistics.fmean(raw), "ms"),
        row("recall p95 at LoCoMo scale", percentile(ours, 95), percentile(raw, 95), "ms"),
    ]
    within = statistics.fmean(ours) <= BUDGET_MS
    console.print(
        f"recall-locomo: mean {statistics.fmean(ours):.1f} ms/query, "
        f"{'within' if within else 'OVER'} the {BUDGET_MS:.0f} ms budget"
    )
    params = {"conversations": conversations, "warm_up": WARM_UP, "budget_ms": BUDGET_MS}
    return {
        "name": "recall-locomo",
        "params": params,
        "detail": detail,
        "rows": rows,
        "within_budget": within,
    }
