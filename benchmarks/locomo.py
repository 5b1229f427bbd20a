"""Retrieval benchmark on LoCoMo-format conversations (Maharana et al., ACL 2024).

For each conversation: a FRESH embedded thea memory; every turn becomes a DialogueTurn
experience node (content "Speaker: text", ``speaker`` set, ``event_time`` = the
session's date) linked to the concepts the deterministic extractor finds in it, all
under one user id per conversation so a query sees both speakers. Each question goes
through the deterministic plan (``fallback_plan``) and the real recall cascade; the
recalled node ids map back to dia_ids and are scored against the question's evidence.

Methods compared on the same data in the same run: BM25 over the turns, dense cosine
with the same MiniLM embedder, thea's full cascade, and the cascade with each stage
switched off in turn.

Run: ``python benchmarks/locomo.py --data ../shared/data/locomo_dev.json`` or
``python -m benchmarks.locomo`` (see docs/benchmarks.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from benchmarks.common import (
    RESULTS_DIR,
    console,
    fresh_memory,
    machine,
    shared_embedder,
    stamp,
)
from benchmarks.locomo_data import Conversation, Question, Turn, load_conversations, tokens
from benchmarks.metrics import Aggregate, score_query
from services.importer import import_history, turn_id
from services.plan_fallback import fallback_plan
from services.recall.cascade import RecallService
from services.recall.types import ALL_STAGES, RecallQuery, Stage
from thea.memory.universal import UniversalMemory

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
KS = (5, 10)
DEPTH = max(KS)
BATCH = 200
_DAY_MS = 86_400_000


class BM25Baseline:
    name = "BM25"

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.ids = [t.dia_id for t in turns]
        self.index = BM25Okapi([tokens(t.document) or ["_"] for t in turns])

    def rank(self, question: str) -> list[str]:
        scores = self.index.get_scores(tokens(question))
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        return [self.ids[i] for i in order]


class DenseBaseline:
    name = "dense (MiniLM cosine)"

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.embedder = shared_embedder()
        self.ids = [t.dia_id for t in turns]
        self.matrix = np.asarray(self.embedder.embed_documents([t.document for t in turns]), dtype=np.float32)

    def rank(self, question: str) -> list[str]:
        query = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        order = np.argsort(-(self.matrix @ query), kind="stable")[:DEPTH]
        return [self.ids[i] for i in order]


def ingest(memory: UniversalMemory, conv: Conversation, user_id: str) -> dict[str, str]:
    """Import the conversation through thea's importer (``thea import``'s path: turns with their
    dates, linked to the concepts the deterministic extractor finds, batched writes).

    Returns node id -> dia_id.
    """
    assert conv.history is not None
    import_history(memory, [conv.history], user_id, batch=BATCH)
    return {turn_id(user_id, conv.sample_id, t.dia_id): t.dia_id for t in conv.turns}


def thea_query(question: str, user_id: str, now_ms: int) -> RecallQuery:
    """The recall step's query, from the deterministic plan of the question (no LLM)."""
    plan = fallback_plan(question, now_ms=now_ms, user_id=user_id)
    pattern = plan.triple_pattern
    triple = (pattern[0], pattern[1], pattern[2]) if pattern and len(pattern) == 3 else None
    return RecallQuery(
        texts=plan.queries or [question],
        concepts=plan.concepts,
        user_id=user_id,
        time_from=plan.time_from,
        time_to=plan.time_to,
        triple_pattern=triple,
        limit=DEPTH,
    )


def thea_methods() -> dict[str, frozenset[Stage]]:
    methods = {"thea (full cascade)": ALL_STAGES}
    for stage in sorted(ALL_STAGES, key=lambda s: s.value):
        methods[f"thea without {stage.value}"] = ALL_STAGES - {stage}
    return methods


# -- run -------------------------------------------------------------------------------


@dataclass
class MethodScores:
    agg: Aggregate = field(default_factory=Aggregate)
    seconds: float = 0.0  # answering questions
    build_s: float = 0.0  # indexing the turns (thea: ingest into a fresh memory)
    queries: int = 0


def evaluate(
    conversations: Sequence[Conversation], *, max_questions: int | None = None
) -> tuple[dict[str, MethodScores], dict[str, Any]]:
    baselines: list[tuple[str, Callable[[Sequence[Turn]], Any]]] = [
        (BM25Baseline.name, BM25Baseline),
        (DenseBaseline.name, DenseBaseline),
    ]
    thea = thea_methods()
    scores: dict[str, MethodScores] = {name: MethodScores() for name, _ in baselines}
    scores.update({name: MethodScores() for name in thea})
    info: dict[str, Any] = {"conversations": [], "skipped_no_evidence": 0, "unknown_evidence_ids": 0}
    todo = [(c, c.questions[:max_questions] if max_questions else c.questions) for c in conversations]
    total = sum(len(qs) for _, qs in todo)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("LoCoMo", total=total)
        for conv, questions in todo:
            user_id = f"locomo:{conv.sample_id}"
            progress.update(task, description=f"{conv.sample_id}: ingest {len(conv.turns)} turns")
            with fresh_memory(prefix="thea-locomo-") as memory:
                ingest_s = time.perf_counter()
                id_to_dia = ingest(memory, conv, user_id)
                ingest_s = time.perf_counter() - ingest_s
                for name in thea:
                    scores[name].build_s += ingest_s
                built = {}
                for name, factory in baselines:
                    started = time.perf_counter()
                    built[name] = factory(conv.turns)
                    scores[name].build_s += time.perf_counter() - started
                service = RecallService(memory)
                now = conv.end_ms + _DAY_MS  # questions are asked after the last session
                progress.update(task, description=f"{conv.sample_id}: questions")
                for question in questions:
                    progress.advance(task)
                    if not question.evidence:
                        info["skipped_no_evidence"] += 1
                        continue
                    for name, method in built.items():
                        started = time.perf_counter()
                        ranked = method.rank(question.question)
                        _score(scores[name], question, ranked, started)
                    query = thea_query(question.question, user_id, now)
                    for name, stages in thea.items():
                        started = time.perf_counter()
                        result = service.recall_sync(query, stages)
                        ranked = [id_to_dia[h.id] for h in result.hits if h.id in id_to_dia]
                        _score(scores[name], question, ranked, started)
            info["unknown_evidence_ids"] += conv.unknown_evidence
            info["conversations"].append(
                {
                    "sample_id": conv.sample_id,
                    "turns": len(conv.turns),
                    "questions": len(questions),
                    "ingest_s": round(ingest_s, 3),
                }
            )
    return scores, info


def _score(target: MethodScores, question: Question, ranked: list[str], started: float) -> None:
    target.seconds += time.perf_counter() - started
    target.queries += 1
    target.agg.add(question.category, score_query(ranked, question.evidence, KS))


# -- output ----------------------------------------------------------------------------

METRICS = ("recall@5", "recall@10", "ndcg@10")


def summarise(scores: dict[str, MethodScores]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, s in scores.items():
        means = s.agg.means()
        out[name] = {
            "overall": means.get("overall", {}),
            "by_category": {k: v for k, v in sorted(means.items()) if k != "overall"},
            "ms_per_query": 1000 * s.seconds / max(s.queries, 1),
            "build_s": s.build_s,
        }
    return out


def markdown(summary: dict[str, Any]) -> str:
    categories = sorted({c for m in summary.values() for c in m["by_category"]})
    lines = [
        "| method | recall@5 | recall@10 | nDCG@10 | ms/query | index s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, m in summary.items():
        o = m["overall"]
        lines.append(
            f"| {name} | {o.get('recall@5', 0):.3f} | {o.get('recall@10', 0):.3f} | "
            f"{o.get('ndcg@10', 0):.3f} | {m['ms_per_query']:.1f} | {m['build_s']:.1f} |"
        )
    lines += ["", "recall@10 by category (n = questions with evidence):", ""]
    counts = {c: int(next(iter(summary.values()))["by_category"][c]["n"]) for c in categories}
    lines.append("| method | " + " | ".join(f"{c} (n={counts[c]})" for c in categories) + " |")
    lines.append("| --- |" + " ---: |" * len(categories))
    for name, m in summary.items():
        cells = [f"{m['by_category'][c]['recall@10']:.3f}" for c in categories]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rich_table(summary: dict[str, Any]) -> Table:
    table = Table(title="LoCoMo retrieval (evidence turns)")
    table.add_column("method")
    for header in ("recall@5", "recall@10", "nDCG@10", "ms/query", "index s"):
        table.add_column(header, justify="right")
    best = max(m["overall"].get("recall@10", 0.0) for m in summary.values())
    for name, m in summary.items():
        o = m["overall"]
        r10 = f"{o.get('recall@10', 0):.3f}"
        table.add_row(
            name,
            f"{o.get('recall@5', 0):.3f}",
            f"[bold]{r10}[/bold]" if o.get("recall@10", 0) == best else r10,
            f"{o.get('ndcg@10', 0):.3f}",
            f"{m['ms_per_query']:.1f}",
            f"{m['build_s']:.1f}",
        )
    return table


def chart(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    main = [n for n in summary if not n.startswith("thea without")]
    ablations = [n for n in summary if n.startswith("thea (") or n.startswith("thea without")]
    categories = [*sorted({c for m in summary.values() for c in m["by_category"]}), "overall"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / len(main)

    def recall10(name: str, category: str) -> float:
        m = summary[name]
        scores = m["overall"] if category == "overall" else m["by_category"].get(category, {})
        return float(scores.get("recall@10", 0.0))

    for i, name in enumerate(main):
        values = [recall10(name, c) for c in categories]
        left.bar(np.arange(len(categories)) + i * width, values, width, label=name)
    left.set_xticks(np.arange(len(categories)) + width * (len(main) - 1) / 2, categories)
    left.set_ylabel("recall@10 of evidence turns")
    left.set_ylim(0, 1)
    left.set_title("by question category")
    left.legend(fontsize=8)
    values = [summary[n]["overall"].get("recall@10", 0.0) for n in ablations]
    ndcg = [summary[n]["overall"].get("ndcg@10", 0.0) for n in ablations]
    x = np.arange(len(ablations))
    right.bar(x - 0.2, values, 0.4, label="recall@10")
    right.bar(x + 0.2, ndcg, 0.4, label="nDCG@10")
    right.set_xticks(x, [n.replace("thea ", "").strip("()") for n in ablations], rotation=30, ha="right")
    right.set_ylim(0, 1)
    right.set_title("cascade ablations (overall)")
    right.legend(fontsize=8)
    fig.suptitle("thea recall on LoCoMo (Maharana et al., 2024)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_locomo(
    data: Path,
    out_dir: Path = RESULTS_DIR,
    *,
    limit_conversations: int | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    if not data.is_file():
        raise SystemExit(f"LoCoMo data file not found: {data} (pass --data PATH)")
    started = time.perf_counter()
    conversations = load_conversations(data)
    if quick:
        limit_conversations = 1
    if limit_conversations:
        conversations = conversations[:limit_conversations]
    scores, info = evaluate(conversations, max_questions=100 if quick else None)
    summary = summarise(scores)
    elapsed = time.perf_counter() - started
    when = stamp()
    result: dict[str, Any] = {
        "name": "locomo",
        "quick": quick,
        "timestamp": when,
        "data": {
            "file": str(data),
            "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
            "source": "LoCoMo, Maharana et al. 2024 (snap-research/locomo)",
        },
        "machine": machine(),
        "elapsed_s": round(elapsed, 1),
        "info": info,
        "methods": summary,
        "rows": [
            {"metric": f"{name} {metric}", "ours": m["overall"].get(metric), "raw": None, "unit": ""}
            for name, m in summary.items()
            for metric in METRICS
        ],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / f"locomo-{when}"
    result["files"] = [str(base.with_suffix(s)) for s in (".json", ".md", ".png")]
    base.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    table = markdown(summary)
    base.with_suffix(".md").write_text(table, encoding="utf-8")
    try:
        chart(summary, base.with_suffix(".png"))
    except ImportError:
        result["files"].remove(str(base.with_suffix(".png")))
        console.print("[yellow]matplotlib is not installed: no chart[/yellow]")
    console.print(rich_table(summary))
    console.print(table)
    console.print(
        f"{sum(c['questions'] for c in info['conversations'])} questions, "
        f"{info['skipped_no_evidence']} without evidence skipped, {elapsed:.1f} s; "
        f"results in {base}.{{json,md,png}}"
    )
    return result


def run(quick: bool) -> dict[str, Any]:
    """Registry entry (python -m benchmarks locomo)."""
    return run_locomo(DEFAULT_DATA, quick=quick)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="thea recall vs BM25 and dense retrieval on LoCoMo data")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON file")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the .json/.md/.png results")
    parser.add_argument("--limit-conversations", type=int, default=None, help="use only the first N")
    parser.add_argument("--quick", action="store_true", help="first conversation, first 100 questions")
    args = parser.parse_args(argv)
    run_locomo(args.data, args.out, limit_conversations=args.limit_conversations, quick=args.quick)


if __name__ == "__main__":
    main()
