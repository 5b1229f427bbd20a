"""Retrieval metrics on tiny hand-made rankings; expected values are worked out in the comments."""

from __future__ import annotations

import pytest

from benchmarks.metrics import aggregate, hit_at_k, ndcg_at_k, recall_at_k, score_query


def test_recall_counts_relevant_ids_in_the_first_k() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    relevant = {"b", "e", "z"}  # z is never retrieved
    # top-2 = {a, b}: 1 of 3 relevant -> 1/3
    assert recall_at_k(ranked, relevant, 2) == pytest.approx(1 / 3)
    # top-5 holds b and e: 2 of 3 -> 2/3
    assert recall_at_k(ranked, relevant, 5) == pytest.approx(2 / 3)
    # k beyond the list changes nothing
    assert recall_at_k(ranked, relevant, 50) == pytest.approx(2 / 3)
    assert recall_at_k(["x", "y"], {"a"}, 10) == 0.0


def test_ndcg_with_binary_gains() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    relevant = {"b", "e", "z"}
    # DCG@5  = 1/log2(3) + 1/log2(6)            = 0.63093 + 0.38685          = 1.01778
    # IDCG@5 = 1/log2(2) + 1/log2(3) + 1/log2(4) = 1 + 0.63093 + 0.5          = 2.13093
    # nDCG@5 = 1.01778 / 2.13093                                               = 0.47762
    assert ndcg_at_k(ranked, relevant, 5) == pytest.approx(0.47762, abs=1e-5)
    # one relevant id at rank 2: DCG = 1/log2(3) = 0.63093, IDCG = 1 -> 0.63093
    assert ndcg_at_k(["x", "a", "y"], {"a"}, 10) == pytest.approx(0.63093, abs=1e-5)
    # perfect ranking -> 1.0
    assert ndcg_at_k(["a", "b", "x"], {"a", "b"}, 10) == pytest.approx(1.0)
    # two relevant at ranks 2 and 3 with k=10: DCG = 0.63093 + 0.5 = 1.13093,
    # IDCG only counts min(k, |relevant|) = 2 ideal hits: 1 + 0.63093 = 1.63093 -> 0.69343
    assert ndcg_at_k(["c", "a", "b"], {"a", "b"}, 10) == pytest.approx(0.69343, abs=1e-5)
    # relevant id just outside k contributes nothing
    assert ndcg_at_k(["x", "y", "a"], {"a"}, 2) == 0.0


def test_duplicates_in_a_ranking_count_once() -> None:
    # [x, x, a] is read as [x, a]: a sits at rank 2 inside k=2
    assert recall_at_k(["x", "x", "a"], {"a"}, 2) == 1.0
    assert ndcg_at_k(["x", "x", "a"], {"a"}, 2) == pytest.approx(0.63093, abs=1e-5)
    # a repeated relevant id cannot push nDCG above 1: [a, a] -> [a], DCG = 1 = IDCG
    assert ndcg_at_k(["a", "a"], {"a"}, 10) == pytest.approx(1.0)


def test_hit_and_score_query() -> None:
    assert hit_at_k(["x", "a"], {"a", "b"}, 1) == 0.0
    assert hit_at_k(["x", "a"], {"a", "b"}, 2) == 1.0
    scores = score_query(["x", "a", "y", "b"], {"a", "b"}, ks=(2, 4))
    # recall@2 = 1/2; recall@4 = 2/2;
    # nDCG@4 = (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3)) = (0.63093 + 0.43068) / 1.63093 = 0.65092
    assert scores["recall@2"] == pytest.approx(0.5)
    assert scores["recall@4"] == pytest.approx(1.0)
    assert scores["ndcg@4"] == pytest.approx(0.65092, abs=1e-5)
    assert set(scores) == {"recall@2", "recall@4", "ndcg@4"}


def test_undefined_cases_raise() -> None:
    with pytest.raises(ValueError, match="no relevant"):
        recall_at_k(["a"], set(), 5)
    with pytest.raises(ValueError, match="no relevant"):
        ndcg_at_k(["a"], [], 5)
    with pytest.raises(ValueError, match="k must be"):
        recall_at_k(["a"], {"a"}, 0)


def test_aggregate_means_per_category_and_overall() -> None:
    records = [
        ("multi-hop", {"recall@5": 1.0, "ndcg@10": 0.5}),
        ("multi-hop", {"recall@5": 0.0, "ndcg@10": 0.0}),
        ("temporal", {"recall@5": 0.25, "ndcg@10": 1.0}),
    ]
    means = aggregate(records)
    # multi-hop: recall (1 + 0) / 2 = 0.5, ndcg (0.5 + 0) / 2 = 0.25
    assert means["multi-hop"] == {"recall@5": 0.5, "ndcg@10": 0.25, "n": 2.0}
    assert means["temporal"] == {"recall@5": 0.25, "ndcg@10": 1.0, "n": 1.0}
    # overall is the mean over queries, not over categories: (1 + 0 + 0.25) / 3 = 0.41667,
    # ndcg (0.5 + 0 + 1) / 3 = 0.5 (a mean over categories would give (0.5 + 0.25) / 2 = 0.375)
    assert means["overall"]["recall@5"] == pytest.approx(0.41667, abs=1e-5)
    assert means["overall"]["ndcg@10"] == pytest.approx(0.5)
    assert means["overall"]["n"] == 3.0
    assert aggregate([]) == {}
