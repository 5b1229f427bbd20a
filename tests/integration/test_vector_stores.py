"""The vector port contract, run on every adapter with real MiniLM embeddings.

``qdrant_edge``: the Qdrant engine in-process (embedded profile), in a temporary folder.
``qdrant_server``: the server adapter driven by qdrant-client's local mode (``:memory:``);
no Qdrant server exists on the build machine, so this checks the adapter's requests and
result handling, not a server's behaviour.
``graph_falkordb``: the graph store's own vector index (``vector.backend = "graph"``) on a real
embedded FalkorDB, FalkorDB's query dialect. Its Neo4j query files are linted only
(tests/unit/test_cypher_neo4j_dialect.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from thea.errors import VectorStoreLocked, VectorStoreUnavailable
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.graph.falkordb import FalkorDBGraphStore
from thea.memory.vector.base import VectorStore
from thea.memory.vector.graph_index import GraphIndexStore
from thea.memory.vector.qdrant_edge import QdrantEdgeStore
from thea.memory.vector.qdrant_server import QdrantServerStore
from thea.models import Collection, VectorFilter, VectorRecord

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

DIM = 384
EXP = Collection.EXPERIENCE

# id, text, type, user, created_at
DOCS: list[tuple[str, str, str, str, int]] = [
    ("redis", "Redis queues hold background jobs for the workers.", "Fact", "ana", 1_000),
    ("pasta", "Boil the pasta for nine minutes in salted water.", "DialogueTurn", "ana", 2_000),
    ("cat", "My cat sleeps on the warm windowsill all afternoon.", "Fact", "bob", 3_000),
    ("neo4j", "Neo4j stores the knowledge graph as nodes and relationships.", "Fact", "bob", 4_000),
    ("rust", "The borrow checker rejects two mutable references.", "UserImpulse", "ana", 5_000),
]
# stable UUID node ids, as thea uses, so both adapters see the same point ids
IDS = {key: str(uuid.uuid5(uuid.NAMESPACE_URL, key)) for key, *_ in DOCS}
KEY = {v: k for k, v in IDS.items()}


@pytest.fixture(params=["qdrant_edge", "qdrant_server", "graph_falkordb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "graph_falkordb":
        graph = FalkorDBGraphStore(server=EmbeddedFalkorDB(tmp_path / "data"))
        try:
            graph.ensure_schema()
            vs: VectorStore = GraphIndexStore(graph.cypher_access(), dimension=DIM)
            yield vs
            vs.close()
        finally:
            graph.close()
        return
    if request.param == "qdrant_edge":
        vs = QdrantEdgeStore(tmp_path / "vectors", dimension=DIM)
    else:
        vs = QdrantServerStore(client=QdrantClient(":memory:"), dimension=DIM)
    try:
        yield vs
    finally:
        vs.close()


@pytest.fixture(scope="module")
def vectors(embedder: Any) -> dict[str, list[float]]:
    return dict(zip(IDS, embedder.embed_documents([d[1] for d in DOCS]), strict=True))


def _records(vectors: dict[str, list[float]], **overrides: Any) -> list[VectorRecord]:
    return [
        VectorRecord(
            id=IDS[key],
            collection=EXP,
            vector=vectors[key],
            text=text,
            type=type_,
            user_id=user,
            created_at=created,
            **overrides,
        )
        for key, text, type_, user, created in DOCS
    ]


def _keys(hits: Any) -> list[str]:
    return [KEY[h.id] for h in hits]


def test_search_ranks_by_meaning_best_first(
    store: VectorStore, vectors: dict[str, list[float]], embedder: Any
) -> None:
    assert store.upsert(_records(vectors)) == len(DOCS)
    query = embedder.embed_query("Which message broker runs our job queue?")
    hits = store.search(EXP, query, limit=3)
    assert len(hits) == 3
    assert _keys(hits)[0] == "redis"
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    top = hits[0]
    assert top.text == DOCS[0][1]
    assert (top.type, top.user_id, top.created_at, top.active) == ("Fact", "ana", 1_000, True)

    food = store.search(EXP, embedder.embed_query("how long to cook spaghetti"), limit=1)
    assert _keys(food) == ["pasta"]


def test_score_threshold_drops_unrelated_points(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    store.upsert(_records(vectors))
    hits = store.search(EXP, vectors["cat"], limit=10, score_threshold=0.99)
    assert _keys(hits) == ["cat"]  # only the identical vector is that similar
    assert hits[0].score == pytest.approx(1.0, abs=1e-3)


def test_filters_on_type_user_and_time(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    store.upsert(_records(vectors))
    query = vectors["redis"]

    def found(flt: VectorFilter) -> set[str]:
        return set(_keys(store.search(EXP, query, limit=10, flt=flt)))

    assert found(VectorFilter(types=["Fact"])) == {"redis", "cat", "neo4j"}
    assert found(VectorFilter(types=["DialogueTurn", "UserImpulse"])) == {"pasta", "rust"}
    assert found(VectorFilter(user_id="bob")) == {"cat", "neo4j"}
    assert found(VectorFilter(user_id="nobody")) == set()
    assert found(VectorFilter(types=["Fact"], user_id="ana")) == {"redis"}
    # created_at range is half-open: from inclusive, to exclusive
    assert found(VectorFilter(created_from=2_000, created_to=4_000)) == {"pasta", "cat"}
    assert found(VectorFilter(created_from=4_000)) == {"neo4j", "rust"}
    assert found(VectorFilter(created_to=1_001)) == {"redis"}


def test_deactivated_points_leave_active_only_search(
    store: VectorStore, vectors: dict[str, list[float]]
) -> None:
    store.upsert(_records(vectors))
    store.set_active(EXP, [IDS["redis"], IDS["cat"]], False)
    query = vectors["redis"]
    active = set(_keys(store.search(EXP, query, limit=10, flt=VectorFilter(active=True))))
    assert active == {"pasta", "neo4j", "rust"}
    archived = store.search(EXP, query, limit=10, flt=VectorFilter(active=False))
    assert set(_keys(archived)) == {"redis", "cat"}
    assert all(h.active is False for h in archived)
    assert len(store.search(EXP, query, limit=10)) == len(DOCS)  # no filter: still stored

    store.set_active(EXP, [IDS["redis"]], True)
    active = set(_keys(store.search(EXP, query, limit=10, flt=VectorFilter(active=True))))
    assert "redis" in active
    assert "cat" not in active


def test_upsert_is_idempotent_and_last_write_wins(
    store: VectorStore, vectors: dict[str, list[float]]
) -> None:
    rec = _records(vectors)[0]
    store.upsert([rec])
    store.upsert([rec.model_copy(update={"text": "Redis also caches sessions."})])
    assert store.count(EXP) == 1
    (hit,) = store.search(EXP, rec.vector, limit=5)
    assert hit.id == rec.id
    assert hit.text == "Redis also caches sessions."


def test_chunks_of_one_node_come_back_as_one_hit(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    node = "long-note-1"  # a non-UUID node id works too
    chunks = [
        VectorRecord(id=node, collection=EXP, vector=vectors[k], type="Fact", text=k, chunk=i)
        for i, k in enumerate(["redis", "neo4j", "cat"])
    ]
    store.upsert(chunks)
    store.upsert(chunks)  # re-recording a chunked node overwrites its chunks
    assert store.count(EXP) == 3
    hits = store.search(EXP, vectors["neo4j"], limit=5)
    assert [h.id for h in hits] == [node]
    assert (hits[0].chunk, hits[0].text) == (1, "neo4j")  # the best-matching chunk
    store.delete(EXP, [node])
    assert store.count(EXP) == 0


def test_a_filter_finds_its_matches_far_behind_the_nearest_points(
    store: VectorStore, vectors: dict[str, list[float]]
) -> None:
    """One user's memories must not crowd out another's: 60 of ana's points sit right on the
    query, bob's two far from it; bob's search still finds both (the graph index widens)."""
    query = vectors["redis"]
    near = [
        VectorRecord(
            id=f"ana-{i}",
            collection=EXP,
            vector=[x + (0.001 * i if j == i else 0.0) for j, x in enumerate(query)],
            type="Fact",
            text=f"ana {i}",
            user_id="ana",
        )
        for i in range(60)
    ]
    far = [
        VectorRecord(
            id=f"bob-{key}", collection=EXP, vector=vectors[key], type="Fact", text=key, user_id="bob"
        )
        for key in ("cat", "pasta")
    ]
    store.upsert(near + far)
    hits = store.search(EXP, query, limit=5, flt=VectorFilter(user_id="bob"))
    assert {h.id for h in hits} == {"bob-cat", "bob-pasta"}
    assert all(h.user_id == "bob" for h in hits)
    assert len(store.search(EXP, query, limit=5)) == 5


def test_a_search_among_given_nodes_scores_only_those(
    store: VectorStore, vectors: dict[str, list[float]]
) -> None:
    store.upsert(_records(vectors))
    flt = VectorFilter(node_ids=[IDS["cat"], IDS["pasta"], "never-stored"])
    hits = store.search(EXP, vectors["redis"], limit=10, flt=flt)
    assert sorted(_keys(hits)) == ["cat", "pasta"]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    (exact,) = store.search(EXP, vectors["cat"], limit=1, flt=flt)
    assert (KEY[exact.id], exact.text) == ("cat", DOCS[2][1])
    assert exact.score == pytest.approx(1.0, abs=1e-3)
    only_active = VectorFilter(node_ids=[IDS["cat"]], active=True)
    store.set_active(EXP, [IDS["cat"]], False)
    assert store.search(EXP, vectors["cat"], limit=1, flt=only_active) == []


def test_existing_ids_delete_and_count(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    store.upsert(_records(vectors))
    assert store.count(EXP) == len(DOCS)
    asked = [IDS["redis"], IDS["cat"], "never-stored"]
    assert store.existing_ids(EXP, asked) == {IDS["redis"], IDS["cat"]}
    assert store.existing_ids(EXP, []) == set()

    store.delete(EXP, [IDS["redis"], "never-stored"])
    assert store.count(EXP) == len(DOCS) - 1
    assert store.existing_ids(EXP, asked) == {IDS["cat"]}
    assert "redis" not in _keys(store.search(EXP, vectors["redis"], limit=10))
    store.delete(EXP, [])  # nothing to delete is fine
    assert store.count(EXP) == len(DOCS) - 1


def test_collections_are_separate(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    store.upsert(_records(vectors))
    concept = VectorRecord(
        id=IDS["redis"], collection=Collection.CONCEPTS, vector=vectors["redis"], type="Concept", text="redis"
    )
    store.upsert([concept])
    assert store.count(Collection.CONCEPTS) == 1
    assert store.count(Collection.INSIGHTS) == 0
    assert store.count(EXP) == len(DOCS)
    (hit,) = store.search(Collection.CONCEPTS, vectors["redis"], limit=5)
    assert (hit.type, hit.text) == ("Concept", "redis")


def test_wrong_dimension_is_refused(store: VectorStore) -> None:
    bad = VectorRecord(id=IDS["cat"], collection=EXP, vector=[0.1, 0.2, 0.3], type="Fact", text="x")
    with pytest.raises(VectorStoreUnavailable):
        store.upsert([bad])
    assert store.count(EXP) == 0


def test_health_reports_ok_and_point_count(store: VectorStore, vectors: dict[str, list[float]]) -> None:
    store.upsert(_records(vectors))
    health = store.health()
    assert health.ok is True
    assert health.component == "vectors"
    assert health.backend == store.backend
    assert f"{len(DOCS)} points" in health.detail


# -- Qdrant Edge only: durability and the single-process lock ---------------------------------


def test_edge_store_keeps_data_across_reopen(tmp_path: Path, vectors: dict[str, list[float]]) -> None:
    path = tmp_path / "vectors"
    first = QdrantEdgeStore(path, dimension=DIM)
    first.upsert(_records(vectors))
    first.set_active(EXP, [IDS["cat"]], False)
    first.close()

    again = QdrantEdgeStore(path, dimension=DIM)
    try:
        assert again.count(EXP) == len(DOCS)
        hits = again.search(EXP, vectors["neo4j"], limit=1, flt=VectorFilter(active=True))
        assert _keys(hits) == ["neo4j"]
        assert "cat" not in _keys(again.search(EXP, vectors["cat"], limit=10, flt=VectorFilter(active=True)))
    finally:
        again.close()


def test_second_edge_store_on_same_path_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    owner = QdrantEdgeStore(path, dimension=DIM)
    try:
        with pytest.raises(VectorStoreLocked) as info:
            QdrantEdgeStore(path, dimension=DIM)
        message = str(info.value)
        assert str(path) in message
        assert "another thea process" in message
        assert "server profile" in message  # tells the user the way out
        assert owner.health().ok  # the owner is unaffected
    finally:
        owner.close()
    QdrantEdgeStore(path, dimension=DIM).close()  # released on close: a new process can open it


def test_closed_edge_store_says_so(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path / "vectors", dimension=DIM)
    store.close()
    with pytest.raises(VectorStoreUnavailable, match="closed"):
        store.count(EXP)
    assert store.health().ok is False


def test_optimize_keeps_every_answer_the_same(
    store: VectorStore, vectors: dict[str, list[float]], embedder: Any
) -> None:
    store.upsert(_records(vectors))
    query = embedder.embed_query("Which message broker runs our job queue?")
    before = [(h.id, round(h.score, 4)) for h in store.search(EXP, query, limit=5)]
    store.optimize()  # `thea memory optimize`
    after = [(h.id, round(h.score, 4)) for h in store.search(EXP, query, limit=5)]
    assert after == before
    assert store.count(EXP) == len(DOCS)
