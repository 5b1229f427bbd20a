"""Plain knowledge notation and the grouping rule of reflection (no I/O)."""

from __future__ import annotations

from services.common.notation import parse_notation
from services.reflection.grouping import Candidate, group_by_concepts, group_near_duplicates
from thea.models import EdgeType


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(t.subject, t.predicate.value, t.object) for t in parse_notation(text)]


def test_arrows_colons_and_tildes_become_typed_relations() -> None:
    assert triples("heavy load -> timeouts") == [("heavy load", "CAUSES", "timeouts")]
    assert triples("Nginx → high latency.") == [("Nginx", "CAUSES", "high latency")]
    assert triples("Redis::database") == [("Redis", EdgeType.IS_A.value, "database")]
    assert triples("redis~queues~workers") == [
        ("redis", "RELATED_TO", "queues"),
        ("redis", "RELATED_TO", "workers"),
        ("queues", "RELATED_TO", "workers"),
    ]


def test_prose_without_notation_and_self_loops_give_nothing() -> None:
    assert triples("I went to the market and bought apples.") == []
    assert triples("x -> x") == []


def test_only_the_words_next_to_the_operator_are_taken_from_a_sentence() -> None:
    assert triples("I work on Redis queues. cache -> speed") == [("cache", "CAUSES", "speed")]
    assert triples("I really think that heavy load → timeouts, always") == [
        ("heavy load", "CAUSES", "timeouts")
    ]


def c(i: str, *concepts: str, strength: float = 1.0) -> Candidate:
    return Candidate(i, f"text {i}", strength, tuple(concepts))


def test_insights_sharing_a_concept_pair_form_one_group_and_nothing_chains() -> None:
    cands = [c("1", "A", "B"), c("2", "A", "B"), c("3", "B", "C"), c("4", "C", "D"), c("5", "E")]
    groups = group_by_concepts(cands)
    assert [g.ids for g in groups] == [["1", "2"]]  # 3 shares B with 2 but not the pair
    assert groups[0].strength == 2.0


def test_each_insight_joins_at_most_one_group_and_big_buckets_are_split() -> None:
    cands = [c(str(i), "A", "B") for i in range(5)] + [c("x", "A", "B", "C"), c("y", "B", "C")]
    groups = group_by_concepts(cands, max_group=3)
    members = [i for g in groups for i in g.ids]
    assert len(members) == len(set(members))
    assert all(2 <= len(g.members) <= 3 for g in groups)
    # the A-B bucket is biggest and goes first; y is left alone once x is taken
    assert sorted(members) == ["0", "1", "2", "3", "4", "x"]


def test_single_concept_insights_group_only_with_the_same_single_concept() -> None:
    groups = group_by_concepts([c("1", "tea"), c("2", "tea"), c("3", "tea", "coffee")])
    assert [g.ids for g in groups] == [["1", "2"]]


def test_near_duplicates_group_by_the_similarity_relation() -> None:
    cands = [c("1"), c("2"), c("3"), c("4")]
    groups = group_near_duplicates(cands, {"1": ["2"], "2": ["1"], "3": [], "4": ["4"]})
    assert [g.ids for g in groups] == [["1", "2"]]
    assert groups[0].reason == "similar"


def test_insights_are_kept_compact_in_whole_sentences() -> None:
    from services.reflection.crystallizer import compact

    assert compact("Ana works on Redis queues.") == "Ana works on Redis queues."
    rambling = "Ana works on Redis queues. " + "It is a great way to learn about things. " * 20
    short = compact(rambling, limit=80)
    assert short == "Ana works on Redis queues. It is a great way to learn about things."
    assert compact("x" * 500, limit=50).endswith("…")
