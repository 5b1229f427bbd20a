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


# -- ranking functions of the recall cascade's keyword stage and fusion -----------------------


def test_stemmer_maps_inflections_to_one_key() -> None:
    from services.recall.lexical import stem

    assert {stem(w) for w in ("camping", "camped", "camps", "camp")} == {"camp"}
    assert {stem(w) for w in ("planning", "plans", "plan")} == {"plan"}
    assert stem("stories") == stem("story")
    assert stem("making") == stem("make")
    assert stem("class") == "class"  # no stripping of a double s
    assert stem("bus") == "bus"  # words of three letters or fewer stay


def test_bm25_prefers_rare_words_and_short_documents() -> None:
    from services.recall.lexical import bm25

    docs = {
        "a": ["carolin", "camp", "trip"],
        "b": ["carolin", "said", "hello", "again", "today"],
        "c": ["carolin"],
        "d": ["pottery"],
    }
    scores = bm25(["carolin", "camp"], docs, total_docs=4)
    # df(carolin) = 3 -> idf = ln(1 + 1.5/3.5) = 0.3567; df(camp) = 1 -> idf = ln(1 + 3.5/1.5) = 1.2040
    # only "a" holds the rare word, so it leads; c beats b on length (1 vs 5 words); d has no query word
    assert sorted(scores, key=lambda k: -scores[k]) == ["a", "c", "b"]
    # avgdl = (3 + 5 + 1 + 1) / 4 = 2.5; c (tf 1, length 1), k1 = 1.2, b = 0.75:
    # 0.3567 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / 2.5)) = 0.78468 / 1.66 = 0.4727
    assert scores["c"] == pytest.approx(0.4727, abs=1e-4)
    assert bm25([], docs, 4) == {}


def test_ranked_shares_ranks_between_ties_and_drops_a_tie_cut_in_half() -> None:
    from services.recall.fusion import ranked, rrf

    scored = [("d", 1.0), ("b", 2.0), ("a", 3.0), ("c", 2.0)]
    # a is first; b and c tie for places 2 and 3 -> both get rank 2.5; d is past the limit
    assert ranked(scored, 3) == [("a", 1.0), ("b", 2.5), ("c", 2.5)]
    # with room for 2 the tie group (places 2-3) would be cut in half: it is left out whole
    assert ranked(scored, 2) == [("a", 1.0)]
    # a stage where everything ties says nothing at all
    assert ranked([("x", 1.0), ("y", 1.0), ("z", 1.0)], 2) == []
    fused = rrf({"v": [("a", 1.0), ("b", 2.0)], "k": [("b", 1.0)]}, k=60)
    # a: 1/61 = 0.016393; b: 1/62 + 1/61 = 0.032522
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
