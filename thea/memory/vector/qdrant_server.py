"""Qdrant server adapter (server profile) on ``qdrant-client``.

Collections are named ``<prefix>_<collection>``; payload indexes on node_id, type,
user_id, active, created_at. Connection failures become VectorStoreUnavailable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from thea.errors import VectorStoreUnavailable
from thea.memory.vector.base import VectorStore
from thea.memory.vector.points import hit_from_payload, point_id, widen
from thea.models import Collection, HealthStatus, VectorFilter, VectorHit, VectorRecord

R = TypeVar("R")

_INDEXES = {
    "node_id": qm.PayloadSchemaType.KEYWORD,
    "type": qm.PayloadSchemaType.KEYWORD,
    "user_id": qm.PayloadSchemaType.KEYWORD,
    "active": qm.PayloadSchemaType.BOOL,
    "created_at": qm.PayloadSchemaType.INTEGER,
}
_UPSERT_CHUNK = 500


def server_filter(flt: VectorFilter | None) -> qm.Filter | None:
    if flt is None:
        return None
    must: list[Any] = []
    if flt.node_ids is not None:
        must.append(qm.FieldCondition(key="node_id", match=qm.MatchAny(any=list(flt.node_ids))))
    if flt.types:
        must.append(qm.FieldCondition(key="type", match=qm.MatchAny(any=list(flt.types))))
    if flt.user_id is not None:
        must.append(qm.FieldCondition(key="user_id", match=qm.MatchValue(value=flt.user_id)))
    if flt.active is not None:
        must.append(qm.FieldCondition(key="active", match=qm.MatchValue(value=flt.active)))
    if flt.created_from is not None or flt.created_to is not None:
        rng = qm.Range(
            gte=float(flt.created_from) if flt.created_from is not None else None,
            lt=float(flt.created_to) if flt.created_to is not None else None,
        )
        must.append(qm.FieldCondition(key="created_at", range=rng))
    return qm.Filter(must=must) if must else None


def ids_filter(ids: Sequence[str]) -> qm.Filter:
    return qm.Filter(must=[qm.FieldCondition(key="node_id", match=qm.MatchAny(any=list(ids)))])


class QdrantServerStore(VectorStore):
    backend = "qdrant"

    def __init__(
        self,
        *,
        url: str | None = None,
        api_key: str | None = None,
        prefix: str = "thea",
        dimension: int = 384,
        client: QdrantClient | None = None,
    ) -> None:
        self.prefix = prefix
        self.dimension = dimension
        self.url = url or "(in-process client)"
        self.client = client or QdrantClient(url=url, api_key=api_key, timeout=10)
        self.ensure_collections(dimension)

    def name(self, collection: Collection) -> str:
        return f"{self.prefix}_{collection.value}"

    def _call(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # qdrant-client raises transport-specific errors
            raise VectorStoreUnavailable(f"Qdrant at {self.url}: {exc}") from exc

    def ensure_collections(self, dimension: int) -> None:
        for collection in Collection:
            name = self.name(collection)
            if self._call(self.client.collection_exists, name):
                continue
            params = qm.VectorParams(size=dimension, distance=qm.Distance.COSINE)
            self._call(self.client.create_collection, name, vectors_config=params)
            for field, schema in _INDEXES.items():
                self._call(self.client.create_payload_index, name, field, schema)

    def upsert(self, records: Sequence[VectorRecord]) -> int:
        by_collection: dict[Collection, list[qm.PointStruct]] = {}
        for rec in records:
            payload = rec.payload()
            payload["node_id"] = payload.pop("id")
            by_collection.setdefault(rec.collection, []).append(
                qm.PointStruct(id=point_id(rec.id, rec.chunk), vector=rec.vector, payload=payload)
            )
        for collection, points in by_collection.items():
            for start in range(0, len(points), _UPSERT_CHUNK):
                chunk = points[start : start + _UPSERT_CHUNK]
                self._call(self.client.upsert, self.name(collection), chunk)
        return len(records)

    def search(
        self,
        collection: Collection,
        vector: Sequence[float],
        limit: int = 10,
        flt: VectorFilter | None = None,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        response = self._call(
            self.client.query_points,
            self.name(collection),
            query=list(vector),
            query_filter=server_filter(flt),
            limit=widen(limit),
            with_payload=True,
            score_threshold=score_threshold,
        )
        best: dict[str, VectorHit] = {}
        for point in response.points:
            hit = hit_from_payload(dict(point.payload or {}), float(point.score))
            best.setdefault(hit.id, hit)
        return list(best.values())[:limit]

    def set_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        if ids:
            self._call(
                lambda: self.client.set_payload(self.name(collection), {"active": active}, ids_filter(ids))
            )

    def existing_ids(self, collection: Collection, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            offset: Any = None
            while True:  # follow the scroll: long texts have many chunks per id
                points, offset = self._call(
                    self.client.scroll,
                    self.name(collection),
                    scroll_filter=ids_filter(chunk),
                    limit=10_000,
                    offset=offset,
                    with_payload=True,
                )
                found.update(str((p.payload or {}).get("node_id")) for p in points)
                if offset is None:
                    break
        return found

    def scan_node_ids(
        self, collection: Collection, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[str], str | None]:
        points, next_offset = self._call(
            self.client.scroll, self.name(collection), limit=limit, offset=cursor, with_payload=True
        )
        ids = [str((p.payload or {}).get("node_id")) for p in points]
        return ids, (str(next_offset) if next_offset is not None else None)

    def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        if ids:
            selector = qm.FilterSelector(filter=ids_filter(ids))
            self._call(self.client.delete, self.name(collection), points_selector=selector)

    def count(self, collection: Collection) -> int:
        return int(self._call(self.client.count, self.name(collection), exact=True).count)

    def health(self) -> HealthStatus:
        def count() -> str:
            points = sum(self.count(c) for c in Collection)
            return f"{points} points at {self.url}"

        return HealthStatus.probe("vectors", self.backend, count)

    def close(self) -> None:
        self.client.close()
