"""The conversation cache port on both adapters: in the process (embedded) and in Redis (the
server profile's replicas share it), on a real Redis (the embedded FalkorDB server)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import redis

from services.common.exchange import Exchange
from services.common.tokens import estimate_tokens
from services.cycle.context import ConversationCache
from services.cycle.context_local import ContextCache
from thea.errors import QueueUnavailable
from thea.runtime import Runtime
from thea.testing.service import free_port
from workers.conversations import RedisConversationCache

Make = Callable[[int], ConversationCache]


def _ex(i: int, words: int = 40) -> Exchange:
    text = " ".join(f"word{i}" for _ in range(words))
    return Exchange(question=text, answer=text, impulse_id=f"imp{i}", response_id=f"res{i}", at=i)


@pytest.fixture(params=["process", "redis"])
def make(request: pytest.FixtureRequest) -> Make:
    """A cache with the given context window (each call: another replica, on the same store)."""
    if request.param == "process":
        return lambda window: ContextCache(window, 0.7)
    conn: redis.Redis = request.getfixturevalue("redis_connection")
    return lambda window: RedisConversationCache(conn, window, 0.7)


def test_what_is_added_is_the_history_in_order(make: Make) -> None:
    cache = make(4096)
    assert not cache.holds("u", "s")
    cache.add("u", "s", _ex(1))
    cache.add("u", "s", Exchange("Thanks, noted.", "Noted.", "imp2", "res2", templated=True))
    cache.add("u", "s", _ex(3))
    assert cache.holds("u", "s")
    assert [e.impulse_id for e in cache.exchanges("u", "s")] == ["imp1", "imp2", "imp3"]
    assert cache.history("u", "s") == [("user", _ex(1).question), ("assistant", _ex(1).answer)] * 1 + [
        ("user", _ex(3).question),
        ("assistant", _ex(3).answer),
    ]  # a templated exchange is never shown to the model
    assert cache.exchanges("u", "s")[1] == Exchange(
        "Thanks, noted.", "Noted.", "imp2", "res2", templated=True
    )
    assert cache.make_room("u", "s", "short question") == []


def test_eviction_pops_the_oldest_pairs_just_enough(make: Make) -> None:
    cache = make(1000)  # budget 700 tokens, each exchange ~100
    for i in range(10):
        cache.add("u", "s", _ex(i))
    per = _ex(0).tokens
    incoming = "x " * 200
    evicted = cache.make_room("u", "s", incoming)
    assert [e.impulse_id for e in evicted] == [f"imp{i}" for i in range(len(evicted))]
    assert (
        cache.tokens("u", "s") + estimate_tokens(incoming)
        <= 700
        < cache.tokens("u", "s") + per + estimate_tokens(incoming)
    )
    assert cache.make_room("u", "s", incoming) == []  # what was evicted is gone


def test_a_session_emptied_by_eviction_is_still_held(make: Make) -> None:
    cache = make(1000)
    cache.add("u", "s", _ex(1))
    assert len(cache.make_room("u", "s", "x " * 2000)) == 1
    assert cache.exchanges("u", "s") == []
    assert cache.holds("u", "s")  # so the cycle does not restore what it just evicted
    assert cache.restore("u", "s", [_ex(1)]) == 0


def test_restore_fills_only_an_absent_session_with_what_fits(make: Make) -> None:
    cache = make(1000)
    fit = 700 // _ex(0).tokens  # budget 700 tokens
    assert cache.restore("u", "s", [_ex(i) for i in range(10)]) == fit
    assert [e.impulse_id for e in cache.exchanges("u", "s")] == [f"imp{i}" for i in range(10 - fit, 10)]
    assert cache.restore("u", "s", [_ex(42)]) == 0


def test_sessions_and_users_are_isolated_and_clear_hands_the_exchanges_back(make: Make) -> None:
    cache = make(4096)
    cache.add("ana", "s1", _ex(1))
    assert cache.history("bob", "s1") == []
    assert cache.history("ana", "s2") == []
    assert [e.impulse_id for e in cache.clear("ana", "s1")] == ["imp1"]
    assert not cache.holds("ana", "s1")
    assert cache.clear("ana", "s1") == []


def test_replicas_on_one_redis_share_one_conversation(redis_connection: redis.Redis) -> None:
    a, b = RedisConversationCache(redis_connection, 4096), RedisConversationCache(redis_connection, 4096)
    a.add("ana", "s", _ex(1))
    b.add("ana", "s", _ex(2))
    assert b.holds("ana", "s")
    assert [e.impulse_id for e in a.exchanges("ana", "s")] == ["imp1", "imp2"]


def test_replicas_making_room_at_once_evict_each_exchange_once(redis_connection: redis.Redis) -> None:
    """Two replicas evicting in one session at the same moment: every exchange is handed to
    distillation by exactly one of them."""
    replicas = [RedisConversationCache(redis_connection, 10_000) for _ in range(8)]
    for i in range(60):
        replicas[0].add("ana", "s", _ex(i))
    evicted: list[list[Exchange]] = [[] for _ in replicas]
    start = threading.Barrier(len(replicas))

    def evict(n: int) -> None:
        start.wait()
        for _ in range(5):
            evicted[n] += replicas[n].make_room("ana", "s", "x " * (1000 * (n + 1)))

    threads = [threading.Thread(target=evict, args=(n,)) for n in range(len(replicas))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = [e.impulse_id for batch in evicted for e in batch]
    assert ids
    assert len(ids) == len(set(ids))
    left = [e.impulse_id for e in replicas[0].exchanges("ana", "s")]
    assert sorted(ids + left, key=lambda i: int(i[3:])) == [f"imp{i}" for i in range(60)]


def test_sessions_expire_when_unused(redis_connection: redis.Redis) -> None:
    cache = RedisConversationCache(redis_connection, 4096, ttl_s=60)
    cache.add("ana", "s", _ex(1))
    for key in RedisConversationCache.keys("ana", "s"):
        assert 0 < redis_connection.ttl(key) <= 60


def _down() -> redis.Redis:
    """A Redis client as the runtime makes it (thea.runtime.queue_connection), whose server is
    gone: nothing listens on its port."""
    return redis.Redis.from_url(
        f"redis://127.0.0.1:{free_port()}/0", socket_timeout=5, socket_connect_timeout=2
    )


def test_an_unreachable_redis_is_a_thea_error() -> None:
    cache = RedisConversationCache(_down(), 4096)
    for call in (
        lambda: cache.exchanges("u", "s"),
        lambda: cache.holds("u", "s"),
        lambda: cache.make_room("u", "s", "hi"),
        lambda: cache.add("u", "s", _ex(1)),
        lambda: cache.restore("u", "s", [_ex(1)]),
        lambda: cache.clear("u", "s"),
    ):
        with pytest.raises(QueueUnavailable):
            call()


async def test_a_cycle_answers_without_its_conversation_when_the_store_is_down(runtime: Runtime) -> None:
    runtime.orchestrator.context = RedisConversationCache(_down(), 4096)
    result = await runtime.orchestrator.handle_impulse("What is a good name for a cat?", "ana", "s1")
    assert result.answer
    assert not result.failed_steps
