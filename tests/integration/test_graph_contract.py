"""The graph port contract: the typed operations, run on both Cypher adapters.

``falkordb``: :class:`FalkorDBGraphStore` on an embedded FalkorDB (FalkorDB's native client).
``neo4j_bolt``: :class:`Neo4jGraphStore` (the official ``neo4j`` driver) on the same engine
over FalkorDB's Bolt port, with FalkorDB's query dialect. No Neo4j server exists on the build
machine, so the second checks the driver-facing code (sessions, transactions, parameters,
result conversion) with every operation, not Neo4j's own Cypher semantics. FalkorDB's Bolt
endpoint refuses a string parameter holding a single quote (``'``), so the data here has none.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bolt_support import BATCH, bolt_falkordb
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.graph.base import GraphStore
from thea.memory.graph.falkordb import FalkorDBGraphStore
from thea.memory.graph.neo4j import Neo4jGraphStore
from thea.memory.operations import InsightFilter, MergeClaim, NodePatch
from thea.models import (
    Concept,
    DialogueTurn,
    DocumentChunk,
    Edge,
    EdgeType,
    Fact,
    FinalResponse,
    KnowledgeCrystal,
    NodeType,
    Report,
    Task,
    TaskStatus,
    UserImpulse,
    relation,
)


@pytest.fixture(params=["falkordb", "neo4j_bolt"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    if request.param == "falkordb":
        server = EmbeddedFalkorDB(tmp_path / "data").start()
        graph: GraphStore = FalkorDBGraphStore(server=server)
        try:
            graph.ensure_schema()
            yield graph
        finally:
            graph.close()
        return
    with bolt_falkordb(tmp_path / "bolt") as (_, port):
        bolt = Neo4jGraphStore(
            uri=f"bolt://127.0.0.1:{port}", user="", password="", batch_size=BATCH, dialect="falkordb"
        )
        if not bolt.health().ok:
            bolt.close()
            pytest.skip(f"the neo4j driver cannot talk to FalkorDB's Bolt port {port}")
        try:
            bolt.ensure_schema()
            yield bolt
        finally:
            bolt.close()


def _cycle(
    cid: str, user: str, t0: int, answered: bool = True
) -> list[UserImpulse | Task | Report | FinalResponse]:
    impulse = UserImpulse(id=cid, content=f"question {cid}", user_id=user, correlation_id=cid, created_at=t0)
    task = Task(
        id=f"{cid}-t", step="recall", service="recall", user_id=user, correlation_id=cid, created_at=t0 + 1
    )
    report = Report(
        id=f"{cid}-r",
        step="recall",
        task_id=task.id,
        status=TaskStatus.SUCCESS,
        user_id=user,
        correlation_id=cid,
        created_at=t0 + 2,
    )
    nodes: list[UserImpulse | Task | Report | FinalResponse] = [impulse, task, report]
    if answered:
        nodes.append(
            FinalResponse(
                id=f"{cid}-f", content="answer", user_id=user, correlation_id=cid, created_at=t0 + 3
            )
        )
    return nodes


# -- trace reads -------------------------------------------------------------------------


def test_trace_reads_one_cycle_oldest_first_and_the_latest_impulse_per_user(store: GraphStore) -> None:
    store.upsert_nodes(
        [*_cycle("c1", "ana", 1_000), *_cycle("c2", "ana", 2_000), *_cycle("c3", "bob", 3_000)]
    )
    traces = store.operations.traces
    assert [n.id for n in traces.cycle_nodes("c1")] == ["c1", "c1-t", "c1-r", "c1-f"]
    assert isinstance(traces.cycle_nodes("c1")[2], Report)
    assert traces.cycle_nodes("nope") == []
    assert traces.latest_impulse_id("ana") == "c2"
    assert traces.latest_impulse_id() == "c3"
    assert traces.latest_impulse_id("nobody") is None


def test_trace_reads_list_a_users_conversations_and_one_conversations_exchanges(store: GraphStore) -> None:
    """The web chat's history: conversations latest first, each titled by its first message;
    a conversation's messages oldest first with their answers; nothing of another user's."""
    said = [("a1", "ana", "s1", 1_000), ("a2", "ana", "s1", 2_000), ("a3", "ana", "s2", 3_000)]
    nodes = [
        UserImpulse(id=i, content=f"message {i}", user_id=u, session_id=s, correlation_id=i, created_at=t)
        for i, u, s, t in [*said, ("b1", "bob", "s1", 4_000)]
    ]
    answers = [
        FinalResponse(id=f"{i}-f", content=f"answer {i}", user_id="ana", correlation_id=i, created_at=t + 5)
        for i, _, _, t in said[:2]
    ]
    store.upsert_nodes([*nodes, *answers])
    store.upsert_edges([Edge(src=f"{i}-f", dst=i, type=EdgeType.IS_RESPONSE_TO) for i in ("a1", "a2")])
    traces = store.operations.traces
    listed = traces.chat_sessions("ana", 10)
    assert [(s.session_id, s.messages, s.first_text) for s in listed] == [
        ("s2", 1, "message a3"),
        ("s1", 2, "message a1"),
    ]
    assert (listed[1].started_at, listed[1].last_at) == (1_000, 2_000)
    assert [s.session_id for s in traces.chat_sessions("ana", 1)] == ["s2"]
    exchanges = traces.session_exchanges("ana", "s1", 10)
    assert [(e.impulse.id, e.answer, e.response_id) for e in exchanges] == [
        ("a1", "answer a1", "a1-f"),
        ("a2", "answer a2", "a2-f"),
    ]
    assert [e.impulse.id for e in traces.session_exchanges("ana", "s1", 1)] == ["a2"]  # the latest
    unanswered = traces.session_exchanges("ana", "s2", 10)
    assert [(e.impulse.id, e.answer) for e in unanswered] == [("a3", None)]
    assert [e.impulse.id for e in traces.session_exchanges("bob", "s1", 10)] == ["b1"]
    assert traces.session_exchanges("bob", "s2", 10) == []


# -- export and import -------------------------------------------------------------------


def test_exchange_pages_impulses_by_keyset_and_loads_cycles_in_one_batch(store: GraphStore) -> None:
    store.upsert_nodes(
        [*_cycle("c1", "ana", 1_000), *_cycle("c2", "ana", 1_000), *_cycle("c3", "bob", 3_000)]
    )
    exchange = store.operations.exchange
    first = exchange.impulses_page(-1, "", None, 2)
    assert [i.id for i in first] == ["c1", "c2"]  # same time: id breaks the tie
    rest = exchange.impulses_page(first[-1].created_at, first[-1].id, None, 2)
    assert [i.id for i in rest] == ["c3"]
    assert [i.id for i in exchange.impulses_page(-1, "", "bob", 10)] == ["c3"]
    cycles = exchange.cycles_nodes(["c1", "missing"])
    assert sorted(n.id for n in cycles["c1"]) == ["c1", "c1-f", "c1-r", "c1-t"]
    assert cycles["missing"] == []
    assert exchange.existing_ids(["c1", "c3-f", "nope"]) == {"c1", "c3-f"}
    assert exchange.existing_ids([]) == set()


def test_exchange_rejoins_pasted_documents_in_chunk_order(store: GraphStore) -> None:
    def chunk(doc: str, index: int, text: str, user: str = "ana") -> DocumentChunk:
        end = (index + 1) * len(text)
        return DocumentChunk(
            id=f"{doc}-{index}", content=text, document_id=doc, chunk_index=index,
            char_start=end - len(text), char_end=end, user_id=user,
        )  # fmt: skip

    # written out of order: the order is the chunks' index, not the write
    store.upsert_nodes([chunk("d1", 1, "world. "), chunk("d1", 0, "Hello "), chunk("d2", 0, "Bob", "bob")])
    exchange = store.operations.exchange
    assert exchange.documents_texts(["d1", "d2", "none"]) == {"d1": "Hello world. ", "d2": "Bob"}
    assert exchange.documents_texts([]) == {}
    assert [c.id for c in exchange.document_chunks("d1", "ana")] == ["d1-0", "d1-1"]
    assert exchange.document_chunks("d1", "bob") == []


# -- recall reads ------------------------------------------------------------------------


def _concept_world(store: GraphStore) -> tuple[Concept, Concept, Concept]:
    redis, queue, cache = (Concept.named(n, "ana") for n in ("Redis", "queue", "cache"))
    bob_redis = Concept.named("Redis", "bob")
    turn = DialogueTurn(
        id="turn", content="we run redis for the job queue", user_id="ana", created_at=5_000, event_time=1_500
    )
    old = Fact(id="old", content="redis was a cache", user_id="ana", created_at=9_000)
    bob_turn = DialogueTurn(id="bob-turn", content="redis at bob", user_id="bob", created_at=5_000)
    store.upsert_nodes([redis, queue, cache, bob_redis, turn, old, bob_turn])
    store.upsert_edges(
        [
            Edge(src="turn", dst=redis.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src="old", dst=redis.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src="bob-turn", dst=bob_redis.id, type=EdgeType.CONTAINS_CONCEPT),
            relation(redis.id, "USED_WITH", queue.id, confidence=0.8, source="turn", user_id="ana"),
            Edge(
                src=redis.id,
                dst=cache.id,
                type=EdgeType.IS_A,
                confidence=0.6,
                source="old",
                user_id="ana",
                valid_until=2_000,  # no longer valid
            ),
        ]
    )
    return redis, queue, cache


def test_keyword_matches_of_several_words_come_in_one_lookup_word_after_word(store: GraphStore) -> None:
    turns = [
        DialogueTurn(
            id=f"t{i}", content=f"the tram runs late today note {i}", user_id="ana", created_at=1_000 + i
        )
        for i in range(5)
    ]
    turns.append(DialogueTurn(id="kayak", content="we kayak on the lake", user_id="ana", created_at=2_000))
    turns.append(DialogueTurn(id="bob-kayak", content="kayak kayak", user_id="bob", created_at=2_000))
    store.upsert_nodes(turns)
    recall = store.operations.recall
    hits = recall.keyword_matches(["kayak", "tram"], [NodeType.DIALOGUE_TURN], "ana", 3)
    # each word's best 3 (ties in id order, the same cut on every run), the first word's first;
    # only the asking user's
    assert [h.id for h in hits] == ["kayak", "t0", "t1", "t2"]
    assert recall.keyword_matches([], [NodeType.DIALOGUE_TURN], "ana", 3) == []


def test_recall_reads_keywords_concept_links_neighbours_and_triples(store: GraphStore) -> None:
    redis, queue, cache = _concept_world(store)
    recall = store.operations.recall
    hits = recall.keyword_matches(["redis"], [NodeType.DIALOGUE_TURN], "ana", 10)
    assert [(h.id, h.user_id, h.event_time) for h in hits] == [("turn", "ana", 1_500)]
    assert hits[0].content == "we run redis for the job queue"
    assert hits[0].score > 0
    memories = [NodeType.DIALOGUE_TURN, NodeType.FACT]
    assert {h.id for h in recall.keyword_matches(["redis"], memories, "ana", 10)} == {"turn", "old"}

    assert sorted(recall.linked_memories([redis.id], "ana", None, None, 10)) == ["old", "turn"]
    assert recall.linked_memories([redis.id], "ana", 1_000, 2_000, 10) == ["turn"]  # by event time
    assert recall.linked_memories([redis.id], "bob", None, None, 10) == []  # not bob's concept

    now = 10_000
    relations = [EdgeType.USED_WITH, EdgeType.IS_A]
    found = recall.concept_neighbours([redis.id], relations, "ana", now)
    assert [(n.src, n.dst, n.relation, n.confidence) for n in found] == [
        (redis.id, queue.id, "USED_WITH", 0.8)
    ]
    assert recall.concept_neighbours([queue.id], relations, "ana", now)[0].dst == redis.id  # both directions
    assert recall.concept_neighbours([redis.id], relations, "bob", now) == []

    as_subject = recall.triple_matches(
        "USED_WITH", redis.id, known_is_subject=True, other=None, user_id="ana", now=now
    )
    assert [(m.known, m.other) for m in as_subject] == [(redis.id, queue.id)]
    as_object = recall.triple_matches(
        "USED_WITH", redis.id, known_is_subject=False, other=None, user_id="ana", now=now
    )
    assert as_object == []
    closed = recall.triple_matches(
        "IS_A", redis.id, known_is_subject=True, other=cache.id, user_id="ana", now=now
    )
    assert closed == []


# -- knowledge writes --------------------------------------------------------------------


def test_knowledge_writes_patch_nodes_and_close_only_the_sources_relations(store: GraphStore) -> None:
    redis, queue, _ = _concept_world(store)
    fact = Fact(id="fact", content="redis feeds the queue", user_id="ana")
    store.upsert_nodes([fact])
    store.upsert_edges(
        [
            Edge(src="fact", dst=redis.id, type=EdgeType.CONTAINS_CONCEPT),
            relation(redis.id, "PART_OF", queue.id, source="fact", user_id="ana"),
        ]
    )
    knowledge = store.operations.knowledge
    assert knowledge.patch_nodes([NodePatch("fact", {"confidence": 0.9}), NodePatch("nope", {"x": 1})]) == 1
    (patched,) = store.get_nodes(["fact"])
    assert isinstance(patched, Fact)
    assert patched.confidence == 0.9
    assert knowledge.patch_nodes([]) == 0

    assert knowledge.close_relations(["fact"], 7_777) == 1
    assert knowledge.close_relations(["fact"], 8_888) == 0  # already closed: history is kept
    views = store.operations.insights
    assert [(r.relation, r.valid_until) for r in views.relations_by_source("fact")] == [("PART_OF", 7_777)]
    assert [r.valid_until for r in views.relations_by_source("turn")] == [None]  # another source's


def test_deletion_removes_a_users_nodes_with_their_edges_and_asserted_relations(store: GraphStore) -> None:
    redis, queue, _ = _concept_world(store)
    fact = Fact(id="fact", content="redis feeds the queue", user_id="ana")
    newer = Fact(id="newer", content="redis feeds two queues", user_id="ana")
    store.upsert_nodes([fact, newer])
    store.upsert_edges(
        [
            Edge(src="fact", dst=redis.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src="newer", dst="fact", type=EdgeType.SUPERSEDES),
            relation(redis.id, "PART_OF", queue.id, source="fact", user_id="ana"),
        ]
    )
    deletion = store.deletion
    assert deletion.delete_nodes(["fact", "bob-turn", "nope"], "bob").ids == ["bob-turn"]
    assert store.get_nodes(["fact"])  # another user's ids match nothing
    deleted = deletion.delete_nodes(["fact", "nope"], "ana")
    assert (deleted.ids, deleted.relations) == (["fact"], 1)
    assert store.get_nodes(["fact"]) == []
    views = store.operations.insights
    assert views.relations_by_source("fact") == []
    assert [r.relation for r in views.relations_by_source("turn")] == ["USED_WITH"]  # another source's
    assert store.neighbourhood("newer", 1, user_id="ana").edges == []
    assert {n.id for n in store.get_nodes(["newer", redis.id, queue.id])} == {"newer", redis.id, queue.id}
    assert deletion.delete_nodes([], "ana").ids == []


# -- insight views and reflection --------------------------------------------------------


def _insights(store: GraphStore) -> tuple[Concept, Concept]:
    redis, queue = Concept.named("Redis", "ana"), Concept.named("queue", "ana")
    impulse = UserImpulse(id="imp", content="tell me", user_id="ana")
    crystals = [
        KnowledgeCrystal(id="k1", content="redis queues jobs", strength=3.0, user_id="ana"),
        KnowledgeCrystal(id="k2", content="redis is fast", strength=1.0, user_id="ana"),
        KnowledgeCrystal(
            id="k3", content="unsure", strength=2.0, user_id="ana", active=False, verification="unverified"
        ),
        KnowledgeCrystal(id="kb", content="from bob", strength=5.0, user_id="bob"),
    ]
    store.upsert_nodes([redis, queue, impulse, *crystals])
    store.upsert_edges(
        [
            Edge(src="k1", dst=redis.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
            Edge(src="k1", dst=queue.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
            Edge(src="k2", dst=redis.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
            Edge(src="k1", dst="imp", type=EdgeType.DERIVED_FROM),
            relation(redis.id, "USED_WITH", queue.id, confidence=0.7, source="k1", user_id="ana"),
        ]
    )
    return redis, queue


def test_insight_views_filter_by_state_user_concept_and_show_lineage(store: GraphStore) -> None:
    _insights(store)
    views = store.operations.insights
    active = views.matching(InsightFilter(user_id="ana"))
    assert [(r.insight.id, r.concepts) for r in active] == [("k1", ["Redis", "queue"]), ("k2", ["Redis"])]
    assert [r.insight.id for r in views.matching(InsightFilter(user_id="ana", concept="queue"))] == ["k1"]
    unverified = views.matching(InsightFilter(active=False, verification="unverified", user_id="ana"))
    assert [r.insight.id for r in unverified] == ["k3"]
    assert views.matching(InsightFilter(active=False, verification="archived", user_id="ana")) == []
    assert [r.insight.id for r in views.matching(InsightFilter(active=None, min_strength=2.5))] == [
        "kb",
        "k1",
    ]

    lineage = views.lineage("k1")
    assert lineage is not None
    assert (lineage.concepts, lineage.source_impulse_ids) == (["Redis", "queue"], ["imp"])
    assert views.lineage("imp") is None
    assert views.lineage("nope") is None
    (asserted,) = views.relations_by_source("k1")
    assert (asserted.subject, asserted.relation, asserted.object, asserted.confidence) == (
        "Redis",
        "USED_WITH",
        "queue",
        0.7,
    )


def test_reflection_pages_candidates_and_claims_each_merge_once(store: GraphStore) -> None:
    redis, queue = _insights(store)
    reflection = store.operations.reflection
    first = reflection.candidates("ana", "", 1)
    assert [(c.id, c.strength, sorted(c.concepts)) for c in first] == [
        ("k1", 3.0, sorted([redis.id, queue.id]))
    ]
    assert [c.id for c in reflection.candidates("ana", first[-1].id, 10)] == ["k2"]  # k3 is inactive
    assert reflection.users_with_insights() == ["ana"]  # bob has one active insight

    merged = KnowledgeCrystal(id="m1", content="redis queues jobs fast", strength=4.0, user_id="ana")
    rival = KnowledgeCrystal(id="m2", content="again", strength=4.0, user_id="ana")
    assert reflection.claim_merges([MergeClaim(merged, ("k1", "k2"))], 5_000) == {"m1"}
    assert reflection.claim_merges([MergeClaim(rival, ("k1", "k2"))], 6_000) == set()  # sources gone
    assert reflection.claim_merges([], 6_000) == set()
    assert reflection.merge_parents("ana") == {"k1": 1, "k2": 1}
    sources = {n.id: n for n in store.get_nodes(["k1", "k2", "m2"])}
    assert set(sources) == {"k1", "k2"}  # the losing claim wrote nothing
    assert all(isinstance(n, KnowledgeCrystal) and not n.active for n in sources.values())
    lineage = store.operations.insights.lineage("m1")
    assert lineage is not None
    assert sorted(lineage.merged_from) == ["k1", "k2"]
    k1 = store.operations.insights.lineage("k1")
    assert k1 is not None
    assert k1.merged_into == ["m1"]


# -- maintenance -------------------------------------------------------------------------


def test_admin_pages_memories_finds_unanswered_cycles_and_counts_outcomes(store: GraphStore) -> None:
    store.upsert_nodes([*_cycle("s-1", "stress-a", 1_000), *_cycle("s-2", "stress-b", 2_000, answered=False)])
    store.upsert_nodes([KnowledgeCrystal(id="k", content="x", user_id="stress-a")])
    store.upsert_edges(
        [
            Edge(src="k", dst="s-1", type=EdgeType.DERIVED_FROM),
            Edge(src="s-1-f", dst="s-1", type=EdgeType.IS_RESPONSE_TO),
        ]
    )
    admin = store.operations.admin
    page = admin.memory_page("", 3)
    assert [p["id"] for p in page] == ["k", "s-1", "s-1-f"]
    assert [p["id"] for p in admin.memory_page("s-1-t", 10)] == ["s-2", "s-2-r", "s-2-t"]
    assert admin.cycles_without_response(["s-1", "s-2"]) == ["s-2"]
    assert admin.cycles_without_response([]) == []
    outcomes = {o.impulse_id: (o.responses, o.crystals) for o in admin.cycle_outcomes("stress-")}
    assert outcomes == {"s-1": (1, 1), "s-2": (0, 0)}


def test_admin_finds_and_deletes_ownerless_concepts(store: GraphStore) -> None:
    shared = Concept(id="shared-redis", name="Redis", norm="redis")  # written before concepts had owners
    other = Concept(id="shared-cache", name="cache", norm="cache")
    turn = DialogueTurn(id="t", content="redis", user_id="ana")
    store.upsert_nodes([shared, other, turn])
    store.upsert_edges(
        [
            Edge(src="t", dst="shared-redis", type=EdgeType.CONTAINS_CONCEPT),
            relation("shared-redis", "IS_A", "shared-cache", source="t"),
        ]
    )
    admin = store.operations.admin
    (link,) = admin.legacy_links(["shared-redis"])
    assert (link.concept_id, link.src, link.user_id, link.type) == (
        "shared-redis",
        "t",
        "ana",
        "CONTAINS_CONCEPT",
    )
    (rel,) = admin.legacy_relations(["shared-redis"])
    assert (rel.subject, rel.relation, rel.object, rel.user_id) == ("Redis", "IS_A", "cache", "ana")
    assert admin.legacy_aliases(["shared-redis"]) == {}
    assert admin.delete_legacy_concepts(["shared-redis", "shared-cache"]) == 2
    assert store.get_nodes(["shared-redis", "shared-cache"]) == []
    assert admin.legacy_links(["shared-redis"]) == []
