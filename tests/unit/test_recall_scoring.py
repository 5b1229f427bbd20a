"""Issue 26: the keyword stage's second field and best passage, and fusion calibrated per stage."""

from __future__ import annotations

import pytest

from services.common.time_window import TimeWindow
from services.recall.fusion import score_fusion
from services.recall.lexical import LexicalDoc, bm25, passages


def test_context_words_weigh_less_than_the_turns_own() -> None:
    # "a" says the query word itself; "b" only replies to a turn that said it
    docs = {
        "a": LexicalDoc(["garden", "tomato"], ["weather", "rain"]),
        "b": LexicalDoc(["sure", "thing"], ["garden", "tomato"]),
    }
    full = bm25(["tomato"], docs, total_docs=10, context_weight=1.0)
    assert full["a"] == pytest.approx(full["b"])
    light = bm25(["tomato"], docs, total_docs=10, context_weight=0.25)
    assert light["a"] > light["b"] > 0
    assert "b" not in bm25(["tomato"], docs, total_docs=10, context_weight=0.0)


def test_a_plain_token_list_scores_as_before() -> None:
    docs = {"a": ["camp", "camp", "lake"], "b": ["lake"]}
    assert bm25(["camp"], docs, 4) == bm25(["camp"], {k: LexicalDoc(v) for k, v in docs.items()}, 4)


def test_a_long_document_scores_by_its_best_passage() -> None:
    filler = [f"w{i}" for i in range(400)]
    long_doc = [*filler[:200], "tomato", "garden", *filler[200:]]
    docs = {"long": long_doc, "short": ["tomato", "soup", "recipe", "pot"]}
    whole = bm25(["tomato", "garden"], docs, total_docs=10)
    best = bm25(["tomato", "garden"], docs, total_docs=10, passage=32)
    # whole, the long reply is penalised for its length; by its best window it is not
    assert best["long"] > whole["long"]
    assert best["long"] > best["short"]


def test_passages_overlap_and_cover_the_text() -> None:
    tokens = [str(i) for i in range(10)]
    assert passages(tokens, 0) == [tokens]
    assert passages(tokens, 20) == [tokens]
    windows = passages(tokens, 4)
    assert windows[0] == ["0", "1", "2", "3"]
    assert windows[1][0] == "2"
    assert {t for w in windows for t in w} == set(tokens)


def test_fusion_depth_calibrates_each_stage_on_its_top_band() -> None:
    # vectors: bunched similarities, "v" a little ahead; keywords: "k" far ahead, "v" weak
    vectors = {"v": 0.62, "k": 0.55, **{f"x{i}": 0.54 for i in range(30)}}
    keywords = {"k": 12.0, "v": 4.0, **{f"x{i}": 1.0 for i in range(30)}}
    raw = {"vectors": vectors, "keywords": keywords}
    floors = {"vectors": 0.30}
    fixed = score_fusion(raw, {"vectors": 1.0, "keywords": 1.0}, floors)
    # from the fixed floor, the vectors hardly tell "v" from "k": keywords decide
    assert fixed["k"] > fixed["v"]
    calibrated = score_fusion(raw, {"vectors": 1.0, "keywords": 1.0}, floors, depth=20)
    # on each stage's top band, "v" is the vectors' clear best and the keywords' second
    assert calibrated["v"] > calibrated["k"]
    assert calibrated["x0"] == pytest.approx(0.0)


def test_fusion_depth_leaves_a_short_stage_on_its_floor() -> None:
    raw = {"vectors": {"a": 0.5, "b": 0.4}}
    assert score_fusion(raw, floors={"vectors": 0.3}, depth=20) == score_fusion(raw, floors={"vectors": 0.3})


def test_a_long_memory_loses_similarity_per_doubling_beyond_one_window() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from services.recall.cascade import RecallService
    from thea.models import DialogueTurn
    from thea.tuning import RecallTuning

    reply = DialogueTurn(id="reply", content="x" * 2800)  # four windows of 700
    port = SimpleNamespace(nodes=lambda ids: [reply] if "reply" in ids else [])
    memory = cast(Any, SimpleNamespace(recall_port=port))
    dense = {"reply": 0.60, "user": 0.56}
    lengths = {"user": 500}  # known from the keyword stage: one window, untouched
    read: dict[str, Any] = {}
    RecallService(memory, RecallTuning(long_penalty=0.05))._penalise_long(dense, lengths, read)
    assert dense["reply"] == pytest.approx(0.60 - 0.05 * 2)
    assert read == {"reply": reply}  # read once: the hits are made from it without a second read
    assert dense["user"] == 0.56
    assert dense["user"] > dense["reply"]


def test_the_vector_search_reads_vector_candidates_deep() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from services.recall.cascade import RecallService
    from services.recall.types import RecallQuery, TimeWindow
    from thea.tuning import RecallTuning

    asked: list[int] = []

    def nearest(collection: Any, vector: Any, limit: int, flt: Any, floor: Any) -> list[Any]:
        asked.append(limit)
        return []

    memory = cast(Any, SimpleNamespace(recall_port=SimpleNamespace(nearest=nearest)))
    query = RecallQuery(texts=["q"], user_id="u")
    RecallService(memory, RecallTuning(per_stage=20, vector_candidates=1))._vectors(
        query, [[1.0]], TimeWindow()
    )
    RecallService(memory, RecallTuning(per_stage=20, vector_candidates=60))._vectors(
        query, [[1.0]], TimeWindow()
    )
    assert asked == [20, 20, 60, 60]  # two collections each


def test_issue_26_defaults_and_the_presets_that_keep_the_old_cascade() -> None:
    from services.recall.types import Stage
    from thea.tuning import RECALL_PRESETS, Tuning

    default = RECALL_PRESETS["default"]
    assert default.long_penalty > 0
    assert 0 < default.context_weight < 1
    assert default.vector_candidates >= default.per_stage  # 20: 60 did not earn its place
    assert default.stage_weights[Stage.VECTORS] == default.stage_weights[Stage.KEYWORDS]
    assert Tuning().short_reply_context  # reply context only from short turns
    before = RECALL_PRESETS["rank-fusion"]
    assert before.long_penalty == 0
    assert before.context_weight == 1
    assert before.vector_candidates == before.per_stage


def test_feedback_words_come_from_the_best_hits_and_are_not_the_question() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from services.recall.cascade import RecallService
    from services.recall.lexical import terms
    from thea.tuning import RecallTuning

    contents = {
        "a": "Mel: we went camping at the lake, pottery after",
        "b": "Mel: camping again, the lake was cold",
        "c": "Mel: my pottery class was fun",
        "d": "Mel: camping is great",
    }
    docs = {i: LexicalDoc(terms(t)) for i, t in contents.items()}
    scores = {"a": 3.0, "b": 2.0, "c": 0.5, "d": 1.0}
    service = RecallService(cast(Any, SimpleNamespace()), RecallTuning(prf_terms=1, prf_docs=2))
    # "lake" is in both best hits and rarer among the candidates than the asked "camping"
    assert service._feedback_words({"camp": 1.0}, docs, contents, scores) == ["lake"]
    assert RecallTuning().prf_terms == 0  # off by default: it did not win on both shapes


def test_the_second_hop_follows_names_of_the_best_hits_the_question_did_not_name() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from services.recall.cascade import RecallService
    from services.recall.types import RecallQuery
    from thea.models import Concept, DialogueTurn
    from thea.tuning import RecallTuning

    first = DialogueTurn(id="first", content="Caroline: I went to Boston with Melanie", user_id="u")
    looked_up: list[list[str]] = []

    def concepts_by_norm(norms: list[str], user_id: str) -> dict[str, Any]:
        looked_up.append(list(norms))
        return {"boston": Concept(id="c-boston", name="Boston", user_id="u")}

    port = SimpleNamespace(
        nodes=lambda ids: [first] if "first" in ids else [],
        concepts_by_norm=concepts_by_norm,
        linked_memories=lambda ids, *rest: ["first", "second"] if ids == ["c-boston"] else [],
        recallable_count=lambda: 100,
    )
    service = RecallService(cast(Any, SimpleNamespace(recall_port=port)), RecallTuning(hop_from=1))
    query = RecallQuery(texts=["Where did Caroline go with Melanie?"], concepts=["Melanie"], user_id="u")
    hop = service._second_hop(query, {"first": 1.0, "other": 0.5}, TimeWindow(), {})
    assert looked_up == [["boston"]]  # Melanie was asked for, Caroline is sentence-initial
    assert list(hop) == ["second"]  # the first hit itself is not its own second hop
    assert RecallTuning().hop_from == 0  # off by default: it did not win on both shapes


def test_one_memory_keeps_only_the_rows_on_the_products_memory() -> None:
    from benchmarks.locomo import Memory, chosen_methods

    every = chosen_methods(e5=False, explore=True, one_memory=False)
    one = chosen_methods(e5=False, explore=True, one_memory=True)
    assert "thea (full cascade)" in one
    assert "x prf3 w0.3" in one
    assert {m.memory for m in one.values()} == {Memory()}
    assert len({m.memory for m in every.values()}) == 3


def test_separation_reads_how_far_the_best_stands_above_the_deep_ones() -> None:
    from services.recall.fusion import separation

    bunched = [0.55, 0.54, *[0.53] * 30]
    apart = [0.80, 0.50, *[0.40] * 30]
    assert separation(bunched, 20, 0.30) == pytest.approx((0.55 - 0.53) / (0.55 - 0.30))
    assert separation(apart, 20, 0.30) == pytest.approx((0.80 - 0.40) / (0.80 - 0.30))
    assert separation([0.6, 0.5], 20, 0.30) == 1.0  # the rest is at the floor
    assert separation([0.2], 20, 0.30) == 0.0
    assert separation([], 20, 0.30) == 0.0


def test_bunched_similarities_do_not_outvote_a_clear_keyword_match() -> None:
    """Short social turns: every turn is about as similar to the question (0.50-0.56), so the
    vector stage's order says little; the turn that holds the question's words stays first. When
    the vector stage's best stands out, it weighs in full and can carry its memory first."""
    from types import SimpleNamespace
    from typing import Any, cast

    from services.recall.cascade import RecallService
    from thea.tuning import RecallTuning

    memory = cast(Any, SimpleNamespace(recall_port=SimpleNamespace(recallable_count=lambda: 100)))
    keywords = {"kw": 10.0, "vec": 8.0, **{f"x{i}": 1.0 for i in range(25)}}
    bunched = {"vec": 0.56, "kw": 0.50, **{f"x{i}": 0.50 for i in range(25)}}
    shared = RecallService(memory, RecallTuning())
    whole = RecallService(memory, RecallTuning(vector_weight_floor=1.0))
    raw = {"vectors": bunched, "keywords": keywords}
    assert whole._fuse(raw)["vec"] > whole._fuse(raw)["kw"]  # the old fusion: bunched cosines win
    fused = shared._fuse(raw)
    assert fused["kw"] > fused["vec"]
    clear = {"vec": 0.80, "kw": 0.40, **{f"x{i}": 0.35 for i in range(25)}}
    fused = shared._fuse({"vectors": clear, "keywords": {"kw": 10.0, "vec": 7.5}})
    assert fused["vec"] > fused["kw"]
