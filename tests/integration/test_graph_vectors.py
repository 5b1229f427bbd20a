"""``vector.backend = "graph"``: the vectors in the graph store's own vector index, on a real
embedded FalkorDB (the port contract itself runs in test_vector_stores.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from thea.config import Settings, load_settings
from thea.memory.consistency import Issue, check, repair
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.factory import data_dir, open_memory
from thea.memory.graph.cypher_store import CypherAccess
from thea.memory.graph.falkordb import FalkorDBGraphStore
from thea.memory.graph.queries import QueryLibrary, vector_label
from thea.memory.universal import UniversalMemory
from thea.memory.vector.graph_index import GraphIndexStore
from thea.models import Collection, Fact, UserImpulse, VectorFilter, VectorRecord

DIM = 8
EXP = Collection.EXPERIENCE


@pytest.fixture
def graph_settings(tmp_path: Path) -> Settings:
    return load_settings(
        "embedded", data_dir=tmp_path / "data", llm={"provider": "fake"}, vector={"backend": "graph"}
    )


@pytest.fixture
def memory(graph_settings: Settings) -> Iterator[UniversalMemory]:
    mem = open_memory(graph_settings)
    try:
        yield mem
    finally:
        mem.close()


def test_memory_on_graph_vectors_recalls_by_meaning_and_keeps_no_vector_files(
    memory: UniversalMemory, graph_settings: Settings
) -> None:
    assert isinstance(memory.vectors, GraphIndexStore)
    fact = Fact(content="Ana's cat is called Miso.", user_id="ana")
    other = Fact(content="Bob's cat is called Pixel.", user_id="bob")
    memory.record([fact, other, UserImpulse(content="I moved to Lisbon last spring.", user_id="ana")])
    hits = memory.search("What is my cat called?", flt=VectorFilter(user_id="ana"), limit=3)
    assert hits[0].id == fact.id
    assert other.id not in [h.id for h in hits]
    assert not (data_dir(graph_settings) / "vectors").exists()  # nothing beside the graph
    counts = memory.graph.count_by_type()  # the points are not memories of the graph
    assert not any(name.startswith("Vector") for name in counts)
    assert counts["Fact"] == 2
    assert memory.vectors.health().ok


def test_a_lost_vector_is_found_and_re_indexed_from_the_graph(memory: UniversalMemory) -> None:
    fact = Fact(content="Ana's cat is called Miso.", user_id="ana")
    memory.record([fact])
    assert check(memory).ok
    memory.vectors.delete(EXP, [fact.id])
    report = check(memory)
    assert report.found[Issue.MISSING_VECTORS] == 1
    repair(memory)
    assert check(memory).ok
    hits = memory.search("What is my cat called?", flt=VectorFilter(user_id="ana"), limit=1)
    assert [h.id for h in hits] == [fact.id]


def test_points_outlive_a_restart_of_the_graph_server(tmp_path: Path) -> None:
    records = [
        VectorRecord(id=f"n{i}", collection=EXP, vector=_unit(i), type="Fact", text=f"t{i}", user_id="ana")
        for i in range(DIM)
    ]
    first = FalkorDBGraphStore(server=EmbeddedFalkorDB(tmp_path / "data"))
    try:
        store = GraphIndexStore(first.cypher_access(), dimension=DIM)
        store.upsert(records)
        store.set_active(EXP, ["n3"], False)
    finally:
        first.close()
    again = FalkorDBGraphStore(server=EmbeddedFalkorDB(tmp_path / "data"))
    try:
        store = GraphIndexStore(again.cypher_access(), dimension=DIM)  # indexes exist: no error
        store.ensure_collections(DIM)
        assert store.count(EXP) == DIM
        assert [h.id for h in store.search(EXP, _unit(5), limit=1)] == ["n5"]
        assert store.search(EXP, _unit(3), limit=1, flt=VectorFilter(active=True))[0].id != "n3"
    finally:
        again.close()


def test_writes_are_one_query_per_batch(graph: FalkorDBGraphStore) -> None:
    access = graph.cypher_access()
    sent: list[str] = []

    def counting(text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        sent.append(text)
        return access.execute(text, params)

    store = GraphIndexStore(
        CypherAccess(access.queries, counting, access.apply_schema_statement, batch_size=10), dimension=DIM
    )
    records = [
        VectorRecord(id=f"n{i}", collection=EXP, vector=_unit(i % DIM), type="Fact", text="")
        for i in range(25)
    ]
    sent.clear()
    store.upsert(records)
    assert len(sent) == 3  # 25 points in batches of 10, not 25 round trips
    assert all("UNWIND $rows" in text for text in sent)
    assert store.count(EXP) == 25
    sent.clear()
    store.set_active(EXP, [r.id for r in records], False)
    store.delete(EXP, [r.id for r in records])
    assert len(sent) == 6
    assert store.count(EXP) == 0


def _unit(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(DIM)]


def test_the_index_dimension_is_only_ever_a_validated_integer() -> None:
    library = QueryLibrary("falkordb")
    label = vector_label(EXP)
    (create, *_) = library.schema_statements("vector_schema", label=label, dimension=384)
    assert "OPTIONS {dimension: 384, similarityFunction: 'cosine'}" in create
    for bad in (0, 70_000, True):
        with pytest.raises(ValueError, match="dimension"):
            library.schema_statements("vector_schema", label=label, dimension=bad)
