"""Vector adapter on the graph store's own vector index (``vector.backend = "graph"``).

One adapter for both Cypher dialects: the points live in the same FalkorDB or Neo4j database
as the graph, as nodes labelled per collection (``VectorExperience``, ``VectorConcepts``,
``VectorInsights``; never ``Memory``, so the graph's own queries do not see them), with a
native vector index on ``embedding`` (FalkorDB ``CREATE VECTOR INDEX … OPTIONS {dimension,
similarityFunction}``, Neo4j 5 ``OPTIONS {indexConfig: …}``). The query text is in
``cypher/`` (``vector_*``), picked in the graph store's dialect; this module runs it through
the graph store's connection (:class:`CypherAccess`) and owns no connection itself.

Point ids are those of the Qdrant adapters (:func:`point_id`), so re-upserting a node's chunk
overwrites it. Writes are one query per batch (``UNWIND``). The index is searched first and
filtered after, so a filtered search that finds too few asks the index for more candidates once,
then scores every point the filter selects exactly (a selective filter selects few points; the
user id is indexed); a search restricted to node ids scores those points exactly at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from thea.errors import GraphUnavailable, VectorStoreUnavailable
from thea.memory.graph.cypher_store import CypherAccess, batched
from thea.memory.graph.queries import vector_label
from thea.memory.vector.base import VectorStore
from thea.memory.vector.points import hit_from_payload, point_id, widen
from thea.models import Collection, HealthStatus, VectorFilter, VectorHit, VectorRecord

log = logging.getLogger(__name__)

#: index searches before a filtered search that found too few scores the filtered points exactly,
#: and how much the index's candidate count grows between them
_ANN_ROUNDS = 2
_WIDEN_FACTOR = 4
#: how long opening the store waits for indexes the server is still building (then it goes on:
#: searches fail as unavailable until they are built)
_INDEX_WAIT_S = 30.0


class GraphIndexStore(VectorStore):
    backend = "graph"

    def __init__(self, access: CypherAccess, dimension: int) -> None:
        self.access = access
        self.dimension = dimension
        self.ensure_collections(dimension)

    # -- running the vector_* queries ---------------------------------------------------

    def _run(self, name: str, collection: Collection, params: dict[str, Any]) -> list[dict[str, Any]]:
        text = self.access.queries.render(name, label=vector_label(collection))
        try:
            return self.access.execute(text, params)
        except GraphUnavailable as exc:
            raise VectorStoreUnavailable(f"the graph's vector index ({collection.value}): {exc}") from exc

    def ensure_collections(self, dimension: int) -> None:
        for collection in Collection:
            statements = self.access.queries.schema_statements(
                "vector_schema", label=vector_label(collection), dimension=dimension
            )
            for statement in statements:
                try:
                    self.access.apply_schema_statement(statement)
                except GraphUnavailable as exc:
                    raise VectorStoreUnavailable(f"cannot create the graph's vector index: {exc}") from exc
        self._await_indexes()

    def _await_indexes(self) -> None:
        """Wait for the server to build new indexes: its vector procedure refuses an index under
        construction (at once for an empty collection, longer over existing points)."""
        deadline = time.monotonic() + _INDEX_WAIT_S
        for collection in Collection:
            while not all(r["ready"] for r in self._run("vector_index_ready", collection, {})):
                if time.monotonic() > deadline:
                    log.warning("the graph's %s vector index is still being built", collection.value)
                    return
                time.sleep(0.05)

    # -- writes ------------------------------------------------------------------------

    def upsert(self, records: Sequence[VectorRecord]) -> int:
        for rec in records:  # refused before anything is written
            if len(rec.vector) != self.dimension:
                raise VectorStoreUnavailable(
                    f"vector of size {len(rec.vector)} for a {self.dimension}-d store"
                )
        by_collection: dict[Collection, dict[str, dict[str, Any]]] = {}
        for rec in records:
            props = rec.payload()
            props["node_id"] = props.pop("id")
            pid = point_id(rec.id, rec.chunk)
            # the last write of a point within one call wins: a batch never MERGEs a point twice
            by_collection.setdefault(rec.collection, {})[pid] = {
                "point_id": pid,
                "vector": [float(x) for x in rec.vector],
                "props": props,
            }
        for collection, rows in by_collection.items():
            for chunk in batched(list(rows.values()), self.access.batch_size):
                self._run("vector_upsert", collection, {"rows": list(chunk)})
        return len(records)

    def set_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        for chunk in batched(list(dict.fromkeys(ids)), self.access.batch_size):
            self._run("vector_set_active", collection, {"node_ids": list(chunk), "active": active})

    def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        for chunk in batched(list(dict.fromkeys(ids)), self.access.batch_size):
            self._run("vector_delete", collection, {"node_ids": list(chunk)})

    # -- reads -------------------------------------------------------------------------

    def search(
        self,
        collection: Collection,
        vector: Sequence[float],
        limit: int = 10,
        flt: VectorFilter | None = None,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        if limit <= 0:
            return []
        flt = flt or VectorFilter()
        params: dict[str, Any] = {
            "vector": [float(x) for x in vector],
            "types": list(flt.types) if flt.types else None,
            "user_id": flt.user_id,
            "active": flt.active,
            "created_from": flt.created_from,
            "created_to": flt.created_to,
        }
        if flt.node_ids is not None:
            return self._score_nodes(collection, params, flt.node_ids, limit, score_threshold)
        k = widen(limit)
        for _ in range(_ANN_ROUNDS):
            rows = self._run("vector_search", collection, {**params, "k": k})
            hits, below = _best_hits(rows, score_threshold)
            if len(hits) >= limit or below:  # enough, or the rest score below the threshold
                return hits[:limit]
            k *= _WIDEN_FACTOR
        # The index's nearest points hold too few that pass the filter (a selective filter, a
        # small collection, or an approximate index that cannot reach every point): score
        # every point the filter selects exactly.
        rows = self._run("vector_score_filtered", collection, {**params, "k": widen(limit)})
        return _best_hits(rows, score_threshold)[0][:limit]

    def _score_nodes(
        self,
        collection: Collection,
        params: dict[str, Any],
        node_ids: Sequence[str],
        limit: int,
        score_threshold: float | None,
    ) -> list[VectorHit]:
        """A search restricted to given nodes: their points scored exactly, not through the index."""
        hits: list[VectorHit] = []
        for chunk in batched(list(dict.fromkeys(node_ids)), self.access.batch_size):
            query = {**params, "node_ids": list(chunk), "k": widen(limit)}
            hits.extend(_best_hits(self._run("vector_score_nodes", collection, query), score_threshold)[0])
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:limit]

    def existing_ids(self, collection: Collection, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for chunk in batched(list(dict.fromkeys(ids)), self.access.batch_size):
            rows = self._run("vector_existing_ids", collection, {"node_ids": list(chunk)})
            found.update(str(r["node_id"]) for r in rows)
        return found

    def scan_node_ids(
        self, collection: Collection, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[str], str | None]:
        rows = self._run("vector_points_page", collection, {"after": cursor, "limit": limit})
        ids = [str(r["node_id"]) for r in rows]
        return ids, (str(rows[-1]["point_id"]) if len(rows) == limit else None)

    def count(self, collection: Collection) -> int:
        rows = self._run("vector_count", collection, {})
        return int(rows[0]["count"]) if rows else 0

    def health(self) -> HealthStatus:
        def count() -> str:
            points = sum(self.count(c) for c in Collection)
            return f"{points} points in the {self.access.queries.dialect} graph's vector index"

        return HealthStatus.probe("vectors", self.backend, count)

    def compact(self) -> bool:
        """The vectors are properties of graph nodes: the graph's rewrite of its files (run
        first by :meth:`UniversalMemory.compact`) took them along."""
        return True

    def close(self) -> None:
        """Nothing to release: the connection is the graph store's, which closes it."""


def _best_hits(rows: Sequence[dict[str, Any]], score_threshold: float | None) -> tuple[list[VectorHit], bool]:
    """Each node's best chunk, best first, from rows sorted best first; and whether a row
    fell below the threshold (every later one would too)."""
    best: dict[str, VectorHit] = {}
    for row in rows:
        score = float(row["score"])
        if score_threshold is not None and score < score_threshold:
            return list(best.values()), True
        hit = hit_from_payload(row, score)
        best.setdefault(hit.id, hit)
    return list(best.values()), False


__all__ = ["GraphIndexStore"]
