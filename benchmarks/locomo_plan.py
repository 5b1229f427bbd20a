"""Does the model's search plan add to recall? LoCoMo recall@10 with the deterministic plan (what
the cycle uses with ``cycle.first_look = "rules"``) beside the offline model's plan (``separate``:
the planner's own call; ``combined``: the plan fields of the instinct's call), same questions,
same memory, same recall cascade.

Each model plan goes through the planner's own checks (grounded concepts, the literal question
always searches too). Its time window is the deterministic one (both only set a window when the
question says one, and the questions are asked "after the last session", which only the
deterministic plan can be told), so the comparison is about queries, concepts and triples.

Run: ``python -m benchmarks.locomo_plan [--questions N] [--conversations N]`` (offline model;
take the heavy-run lock).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS_DIR, console, fresh_memory, machine, stamp, write_json
from benchmarks.locomo import DEPTH, KS, ingest, thea_query
from benchmarks.locomo_data import default_data, load_conversations
from benchmarks.metrics import Aggregate, score_query
from services.cycle.instinct import InstinctService
from services.cycle.planner import PlannerService
from services.cycle.steps import CycleState
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery
from thea.config import default_cache_dir, load_settings
from thea.llm.factory import build_chat_model
from thea.models import UserImpulse
from thea.tuning import RecallTuning


async def model_query(
    question: str, user_id: str, rules: RecallQuery, planner: PlannerService, first: InstinctService | None
) -> RecallQuery:
    state = CycleState(
        impulse=UserImpulse(content=question, user_id=user_id),
        correlation_id="bench",
        user_id=user_id,
        session_id="bench",
    )
    if first is not None:
        await first.handle(state)  # fills state.first_look: the plan step then needs no call
    await planner.handle(state)
    assert state.plan is not None
    pattern = state.plan.triple_pattern
    return RecallQuery(
        texts=state.plan.queries or [question],
        concepts=state.plan.concepts,
        user_id=user_id,
        time_from=rules.time_from,
        time_to=rules.time_to,
        triple_pattern=(pattern[0], pattern[1], pattern[2]) if pattern and len(pattern) == 3 else None,
        limit=DEPTH,
    )


def evaluate(data: Path, conversations: int, questions: int) -> dict[str, Any]:
    settings = load_settings("embedded", llm={"model_dir": default_cache_dir()})
    llm = build_chat_model(settings, progress=False)
    timeout = settings.llm.timeout_s
    planner = PlannerService(llm, timeout, use_model=True)
    combined = InstinctService(llm, timeout, max_tokens=settings.cycle.instinct_tokens, combined=True)
    scores = {"rules": Aggregate(), "separate": Aggregate(), "combined": Aggregate()}
    seconds = {name: 0.0 for name in scores}
    asked = 0
    for conv in load_conversations(data)[:conversations]:
        user_id = f"locomo:{conv.sample_id}"
        now = conv.asked_at
        with fresh_memory(prefix="thea-locomo-plan-") as memory:
            id_to_dia = ingest(memory, conv, user_id)
            recall = RecallService(memory, RecallTuning())
            for question in [q for q in conv.questions if q.evidence][:questions]:
                rules = thea_query(question.question, user_id, now)
                queries = {"rules": rules}
                for name, first in (("separate", None), ("combined", combined)):
                    started = time.perf_counter()
                    queries[name] = asyncio.run(
                        model_query(question.question, user_id, rules, planner, first)
                    )
                    seconds[name] += time.perf_counter() - started
                for name, query in queries.items():
                    hits = recall.recall_sync(query).hits
                    ranked = [id_to_dia[h.id] for h in hits if h.id in id_to_dia]
                    scores[name].add(question.category, score_query(ranked, question.evidence, KS))
                asked += 1
                console.print(f"{asked} questions", end="\r")
    overall = {name: agg.means().get("overall", {}) for name, agg in scores.items()}
    return {
        "name": "locomo_plan",
        "timestamp": stamp(),
        "machine": machine(),
        "params": {"data": str(data), "conversations": conversations, "questions_each": questions},
        "questions": asked,
        "overall": overall,
        "plan_seconds_per_question": {k: round(v / max(asked, 1), 2) for k, v in seconds.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--questions", type=int, default=60, help="questions with evidence per conversation")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    result = evaluate(args.data, args.conversations, args.questions)
    console.print(
        json.dumps({k: result[k] for k in ("questions", "overall", "plan_seconds_per_question")}, indent=2)
    )
    console.print(f"results: {write_json(result, 'locomo_plan', args.out)}")


if __name__ == "__main__":
    main()
