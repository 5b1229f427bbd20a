"""Smart FIFO eviction and recall budget packing."""

from __future__ import annotations

from services.common.exchange import Exchange
from services.common.tokens import estimate_tokens
from services.cycle.budget import pack, recall_budget
from services.cycle.context_local import ContextCache


def _ex(i: int, words: int = 40) -> Exchange:
    text = " ".join(f"word{i}" for _ in range(words))
    return Exchange(question=text, answer=text, impulse_id=f"imp{i}", response_id=f"res{i}", at=i)


def test_no_eviction_below_threshold() -> None:
    cache = ContextCache(context_window=4096, share=0.7)
    cache.add("u", "s", _ex(1))
    assert cache.make_room("u", "s", "short question") == []
    assert len(cache.history("u", "s")) == 2


def test_eviction_triggers_at_threshold_oldest_pairs_first() -> None:
    cache = ContextCache(context_window=1000, share=0.7)  # budget 700 tokens
    for i in range(10):
        cache.add("u", "s", _ex(i))  # each exchange ~100 tokens
    per = _ex(0).tokens
    assert cache.tokens("u", "s") == 10 * per
    incoming = "x " * 200
    evicted = cache.make_room("u", "s", incoming)
    assert [e.impulse_id for e in evicted] == [f"imp{i}" for i in range(len(evicted))]
    assert cache.tokens("u", "s") + estimate_tokens(incoming) <= 700
    # and it evicted no more than needed: putting the last evicted pair back would overflow
    assert cache.tokens("u", "s") + per + estimate_tokens(incoming) > 700


def test_sessions_and_users_are_isolated() -> None:
    cache = ContextCache(context_window=4096)
    cache.add("ana", "s1", _ex(1))
    assert cache.history("bob", "s1") == []
    assert cache.history("ana", "s2") == []


def test_least_recently_used_session_dropped_beyond_limit() -> None:
    cache = ContextCache(context_window=4096, max_sessions=2)
    cache.add("u", "a", _ex(1))
    cache.add("u", "b", _ex(2))
    dropped = cache.add("u", "c", _ex(3))
    assert [e.impulse_id for e in dropped] == ["imp1"]
    assert cache.history("u", "a") == []


def test_recall_budget_is_min_of_cap_and_share() -> None:
    assert recall_budget(4096, 0.15, 600) == 600
    assert recall_budget(2048, 0.15, 600) == 307


def test_pack_keeps_whole_items_in_relevance_order() -> None:
    texts = ["a" * 400, "b" * 4000, "c" * 400, "d" * 400]  # ~100, ~1000, ~100, ~100 tokens
    chosen = pack(["A", "B", "C", "D"], texts, budget=250, overhead=10)
    assert chosen == ["A", "C"]  # B too big is skipped whole, D no longer fits


def test_the_acknowledgement_of_what_a_message_told_is_never_shown_to_the_model() -> None:
    # terminal trial: after "can you suggest a quick high protein lunch? I'm lactose intolerant"
    # was answered "Noted: ... I'll remember that. ...", the small model copied "Noted:" into the
    # answers to the next requests instead of helping
    from services.common.exchange import Exchange
    from services.cycle.context import Conversation

    said = Exchange(
        question="can you suggest a lunch? I'm lactose intolerant",
        answer="Noted: you're lactose intolerant. I'll remember that. Try a chickpea salad.",
        impulse_id="i1",
        response_id="r1",
    )
    only_noted = Exchange(
        question="Kim here. 34.",
        answer="Noted: Kim here. 34. I'll remember that.",
        impulse_id="i2",
        response_id="r2",
    )
    history = Conversation([said, only_noted]).history()
    assert history == [
        ("user", "can you suggest a lunch? I'm lactose intolerant"),
        ("assistant", "Try a chickpea salad."),
    ]
