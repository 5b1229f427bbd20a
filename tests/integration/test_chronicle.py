"""The chronicle (temporal log) contract on both adapters.

``sqlite``: the embedded WAL-mode file. ``redis``: the server adapter on a real
redis-server (the embedded FalkorDB child process, which is a Redis 8 server).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis.backoff import NoBackoff
from redis.retry import Retry

from thea.errors import ChronicleUnavailable
from thea.memory.chronicle.base import Chronicle
from thea.memory.chronicle.redis import RedisChronicle
from thea.memory.chronicle.sqlite import SQLiteChronicle
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.models import ChronicleEvent

Opener = Callable[[], Chronicle]


@pytest.fixture(params=["sqlite", "redis"])
def open_chronicle(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens handles on ONE log (like several thea processes would); closes them all after."""
    handles: list[Chronicle] = []
    if request.param == "redis":
        server: EmbeddedFalkorDB = request.getfixturevalue("falkordb_server")

        def opener() -> Chronicle:
            handles.append(RedisChronicle(server.client(), key_prefix="test:chronicle"))
            return handles[-1]

    else:

        def opener() -> Chronicle:
            handles.append(SQLiteChronicle(tmp_path / "chronicle.sqlite3"))
            return handles[-1]

    try:
        yield opener
    finally:
        for handle in handles:
            handle.close()


@pytest.fixture
def log(open_chronicle: Opener) -> Chronicle:
    return open_chronicle()


def ev(
    i: int, time: int, *, user: str | None = "ana", type_: str = "UserImpulse", **kw: str
) -> ChronicleEvent:
    return ChronicleEvent(id=f"e{i:03d}", type=type_, time=time, user_id=user, summary=f"event {i}", **kw)


def ids(events: list[ChronicleEvent]) -> list[str]:
    return [e.id for e in events]


def test_append_is_idempotent_by_id(log: Chronicle) -> None:
    batch = [ev(1, 100), ev(2, 200), ev(3, 300)]
    assert log.append(batch) == 3
    assert log.append(batch) == 0  # a retried write changes nothing
    assert log.append([ev(3, 300), ev(4, 400), ev(4, 400)]) == 1  # only e004 is new, once
    assert log.count() == 4
    # the first write of an id wins: a retry with other content does not rewrite history
    assert log.append([ev(1, 999).model_copy(update={"summary": "rewritten"})]) == 0
    (first,) = log.range(0, 1_000, limit=1)
    assert (first.id, first.time, first.summary) == ("e001", 100, "event 1")
    assert log.append([]) == 0


def test_events_round_trip_every_field(log: Chronicle) -> None:
    event = ChronicleEvent(
        id="full",
        type="FinalResponse",
        time=1_234,
        user_id="ana",
        session_id="s-1",
        correlation_id="c-1",
        summary="answered: 'quotes', \"double\", emoji \U0001f9e0, newline\nend",
    )
    log.append([event])
    assert log.range(1_234, 1_235) == [event]


def test_range_is_half_open_and_ordered_by_time_then_id(log: Chronicle) -> None:
    # appended out of order, with a tie on time 200
    log.append([ev(5, 500), ev(3, 200), ev(1, 100), ev(2, 200), ev(4, 400)])
    assert ids(log.range(100, 500)) == ["e001", "e002", "e003", "e004"]  # 500 excluded
    assert ids(log.range(200, 201)) == ["e002", "e003"]
    assert log.range(201, 400) == []
    assert ids(log.range(0, 10_000, limit=2)) == ["e001", "e002"]  # oldest first, then cut
    assert ids(log.range(0, 10_000)) == ["e001", "e002", "e003", "e004", "e005"]


def test_range_filters_by_type(log: Chronicle) -> None:
    log.append([ev(1, 100), ev(2, 200, type_="Fact"), ev(3, 300, type_="Report"), ev(4, 400, type_="Fact")])
    assert ids(log.range(0, 1_000, types=["Fact"])) == ["e002", "e004"]
    assert ids(log.range(0, 1_000, types=["Fact", "Report"], limit=2)) == ["e002", "e003"]
    assert log.range(0, 1_000, types=["Nothing"]) == []


def test_latest_is_newest_first(log: Chronicle) -> None:
    log.append([ev(i, 100 * i) for i in range(1, 8)])
    assert ids(log.latest(3)) == ["e007", "e006", "e005"]
    assert len(log.latest(100)) == 7
    log.append([ev(8, 700)])  # tie with e007: higher id first, the reverse of range()
    assert ids(log.latest(2)) == ["e008", "e007"]


def test_latest_of_a_rare_type_finds_old_events(log: Chronicle) -> None:
    """The newest Fact is found even when hundreds of newer events of other types follow it."""
    log.append([ev(1, 10, type_="Fact")])
    log.append([ev(i, 100 + i) for i in range(2, 400)])
    assert ids(log.latest(1, types=["Fact"])) == ["e001"]
    assert ids(log.latest(5, types=["Fact", "Nothing"])) == ["e001"]


def test_per_user_filtering(log: Chronicle) -> None:
    log.append(
        [
            ev(1, 100, user="ana"),
            ev(2, 200, user="bob"),
            ev(3, 300, user="ana", type_="Fact"),
            ev(4, 400, user=None),  # a system event belongs to no user
            ev(5, 500, user="bob"),
        ]
    )
    assert ids(log.range(0, 1_000, user_id="ana")) == ["e001", "e003"]
    assert ids(log.range(0, 1_000, user_id="bob")) == ["e002", "e005"]
    assert ids(log.range(0, 1_000, user_id="ana", types=["Fact"])) == ["e003"]
    assert ids(log.latest(1, user_id="ana")) == ["e003"]
    assert ids(log.latest(10, user_id="bob")) == ["e005", "e002"]
    assert log.latest(10, user_id="carol") == []
    assert len(log.range(0, 1_000)) == 5  # no user filter: everyone, including system events


def test_by_correlation_returns_one_cycle_oldest_first(log: Chronicle) -> None:
    log.append(
        [
            ev(3, 300, correlation_id="cycle-a"),
            ev(1, 100, correlation_id="cycle-a"),
            ev(2, 200, correlation_id="cycle-b"),
            ev(4, 400),
        ]
    )
    assert ids(log.by_correlation("cycle-a")) == ["e001", "e003"]
    assert ids(log.by_correlation("cycle-b")) == ["e002"]
    assert log.by_correlation("no-such-cycle") == []


def test_existing_ids_and_count(log: Chronicle) -> None:
    assert log.count() == 0
    assert log.existing_ids(["e001"]) == set()
    log.append([ev(i, i) for i in range(1, 601)])  # more than one lookup chunk
    assert log.count() == 600
    asked = ["e001", "e600", "missing", "e999"]
    assert log.existing_ids(asked) == {"e001", "e600"}
    assert log.existing_ids([]) == set()


def test_health_reports_ok_and_event_count(log: Chronicle) -> None:
    log.append([ev(1, 1), ev(2, 2)])
    health = log.health()
    assert health.ok is True
    assert health.component == "chronicle"
    assert health.backend == log.backend
    assert "2 events" in health.detail


def test_second_handle_shares_the_log(open_chronicle: Opener) -> None:
    """Two processes (handles) append to and read one log."""
    first, second = open_chronicle(), open_chronicle()
    first.append([ev(1, 100)])
    assert second.append([ev(1, 100), ev(2, 200)]) == 1
    assert ids(first.range(0, 1_000)) == ["e001", "e002"]
    assert first.count() == second.count() == 2


# -- adapter-specific: durability and failures -------------------------------------------------


def test_sqlite_log_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "chronicle.sqlite3"  # missing folders are created
    first = SQLiteChronicle(path)
    first.append([ev(1, 100, correlation_id="c"), ev(2, 200)])
    first.close()
    again = SQLiteChronicle(path)
    try:
        assert again.count() == 2
        assert ids(again.by_correlation("c")) == ["e001"]
        assert again.append([ev(1, 100)]) == 0  # still idempotent after a restart
    finally:
        again.close()


def test_closed_sqlite_log_says_so(tmp_path: Path) -> None:
    log = SQLiteChronicle(tmp_path / "chronicle.sqlite3")
    log.close()
    with pytest.raises(ChronicleUnavailable, match="closed"):
        log.append([ev(1, 1)])
    health = log.health()
    assert health.ok is False
    assert "closed" in health.detail


def test_redis_log_reports_a_dead_server(falkordb_server: EmbeddedFalkorDB) -> None:
    # no reconnect retries: the default back-off would only make this test slow
    client = falkordb_server.client(socket_timeout=1.0, retry=Retry(NoBackoff(), 0))
    log = RedisChronicle(client, key_prefix="test:down")
    log.append([ev(1, 1)])
    falkordb_server.stop()
    try:
        assert log.health().ok is False
        with pytest.raises(ChronicleUnavailable):
            log.append([ev(2, 2)])
        with pytest.raises(ChronicleUnavailable):
            log.range(0, 10)
    finally:
        log.close()


def test_redis_key_prefixes_keep_logs_apart(falkordb_server: EmbeddedFalkorDB) -> None:
    a = RedisChronicle(falkordb_server.client(), key_prefix="tenant-a:chronicle")
    b = RedisChronicle(falkordb_server.client(), key_prefix="tenant-b:chronicle")
    try:
        a.append([ev(1, 1)])
        assert b.count() == 0
        assert b.existing_ids(["e001"]) == set()
        assert a.count() == 1
    finally:
        a.close()
        b.close()
