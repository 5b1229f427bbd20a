"""``python benchmarks/locomo.py --with-crystals``: does the slow loop's knowledge help recall?

One conversation is imported into a fresh memory and its questions are asked through the
recall cascade; then every imported session is crystallized with the configured model
(services/reflection/session_crystals.py: one model call per session) and the questions are asked
again. Rows: the cascade with and without crystals, each with and without spreading
activation and the triple stage. Crystal hits are not dialogue turns: they are left out of
the turn ranking that is scored, and the mean number of crystals in the top 10 is reported
(they take places in the answer's prompt).
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.common import console, fresh_memory
from benchmarks.locomo_data import Conversation
from benchmarks.metrics import Aggregate, score_query
from services.knowledge.importer import turn_nodes
from services.recall.cascade import RecallService
from services.recall.types import ALL_STAGES, Stage
from services.reflection.session_crystals import SessionCrystallizer
from thea.config import load_settings
from thea.llm.factory import build_chat_model
from thea.models import DialogueTurn

ROWS = {
    "cascade": ALL_STAGES,
    "cascade without activation": ALL_STAGES - {Stage.ACTIVATION},
    "cascade without activation and triples": ALL_STAGES - {Stage.ACTIVATION, Stage.TRIPLES},
}


def _evaluate(
    service: RecallService, conv: Conversation, user_id: str, id_to_dia: dict[str, str], now: int
) -> dict[str, Any]:
    from benchmarks.locomo import DEPTH, KS, thea_query

    out: dict[str, Any] = {}
    for name, stages in ROWS.items():
        agg, crystals = Aggregate(), 0
        for question in conv.questions:
            if not question.evidence:
                continue
            query = thea_query(question.question, user_id, now)
            hits = service.recall_sync(query, stages).hits[:DEPTH]
            crystals += sum(1 for h in hits if h.type == "KnowledgeCrystal")
            ranked = [id_to_dia[h.id] for h in hits if h.id in id_to_dia]
            agg.add(question.category, score_query(ranked, question.evidence, KS))
        means = agg.means()
        out[name] = {
            "overall": means["overall"],
            "crystals_in_top10": crystals / max(1, means["overall"]["n"]),
        }
    return out


def first_sessions(conv: Conversation, count: int | None) -> Conversation:
    """The conversation cut to its first ``count`` sessions, with the questions answered there."""
    if not count:
        return conv
    assert conv.history is not None
    keep = {str(n) for n in range(1, count + 1)}
    turns = [t for t in conv.turns if str(t.session) in keep]
    known = {t.dia_id for t in turns}
    history = replace(conv.history, turns=[t for t in conv.history.turns if t.session in keep])
    questions = [q for q in conv.questions if q.evidence and all(e in known for e in q.evidence)]
    return replace(conv, turns=turns, questions=questions, history=history)


def run_crystals(
    conv: Conversation, model: str, model_dir: Path, sessions: int | None = None
) -> dict[str, Any]:
    from benchmarks.locomo import ingest

    conv = first_sessions(conv, sessions)

    user_id = f"locomo:{conv.sample_id}"
    now = conv.asked_at
    llm_settings = load_settings("embedded", data_dir=model_dir, llm={"provider": model, "timeout_s": 600.0})
    llm = build_chat_model(llm_settings, progress=False)
    with fresh_memory(prefix="thea-locomo-crystals-") as memory:
        id_to_dia = ingest(memory, conv, user_id)
        service = RecallService(memory)
        before = _evaluate(service, conv, user_id, id_to_dia, now)
        assert conv.history is not None
        by_session: dict[str, list[DialogueTurn]] = defaultdict(list)
        for turn in turn_nodes(conv.history, user_id):
            by_session[turn.node.session_id or ""].append(turn.node)
        crystallizer = SessionCrystallizer(memory, llm, timeout_s=llm_settings.llm.timeout_s)
        started, made, triples, failed = time.perf_counter(), 0, 0, 0
        for number, (session_id, turns) in enumerate(by_session.items(), start=1):
            console.print(f"crystallizing session {number}/{len(by_session)} ({len(turns)} turns)")
            try:
                outcome = asyncio.run(crystallizer.crystallize(user_id, session_id, turns))
            except Exception as exc:  # one session's failure is reported, the rest go on
                console.print(f"[yellow]session {session_id}: {exc}[/yellow]")
                failed += 1
                continue
            made += int(outcome.created)
            triples += outcome.triples
        seconds = time.perf_counter() - started
        service = RecallService(memory)
        after = _evaluate(service, conv, user_id, id_to_dia, now)
    rows = {f"{name}, no crystals": m for name, m in before.items()}
    rows.update({f"{name}, with crystals": m for name, m in after.items()})
    return {
        "conversation": conv.sample_id,
        "model": model,
        "sessions": len(by_session),
        "questions": sum(1 for q in conv.questions if q.evidence),
        "crystals": made,
        "triples": triples,
        "failed_sessions": failed,
        "crystallize_s": round(seconds, 1),
        "rows": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['conversation']}: {result['sessions']} sessions, {result['questions']} questions, "
        f"{result['crystals']} crystals, "
        f"{result['triples']} triples, {result['failed_sessions']} failed, crystallized in "
        f"{result['crystallize_s']:.0f} s with the {result['model']} model",
        "",
        "| rows | recall@5 | recall@10 | nDCG@10 | crystals in top 10 |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, m in result["rows"].items():
        o = m["overall"]
        lines.append(
            f"| {name} | {o['recall@5']:.3f} | {o['recall@10']:.3f} | {o['ndcg@10']:.3f} | "
            f"{m['crystals_in_top10']:.2f} |"
        )
    return "\n".join(lines) + "\n"
