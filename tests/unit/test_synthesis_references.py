"""Which recalled memories reach the answering model."""

from __future__ import annotations

from services.cycle.answer_inputs import references_for
from services.recall.types import RecallHit


def hit(i: str, score: float, text: str = "some memory") -> RecallHit:
    return RecallHit(id=i, type="UserImpulse", text=text, score=score)


def test_weak_distractors_stay_out_of_the_prompt() -> None:
    hits = [hit("cat", 7.1), hit("cat2", 6.0), hit("name", 1.6)]
    assert [r.source_id for r in references_for(hits, 1000)] == ["cat", "cat2"]


def test_close_scores_all_stay_most_relevant_first() -> None:
    hits = [hit("a", 1.6), hit("b", 1.0), hit("c", 0.9)]
    assert [r.source_id for r in references_for(hits, 1000)] == ["a", "b", "c"]


def test_the_token_budget_keeps_whole_memories_only() -> None:
    hits = [hit("long", 5.0, "word " * 300), hit("short", 4.0, "tiny")]
    assert [r.source_id for r in references_for(hits, 50)] == ["short"]


def test_no_hits_no_references() -> None:
    assert references_for([], 1000) == []
