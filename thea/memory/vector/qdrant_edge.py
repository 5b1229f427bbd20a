"""Qdrant Edge adapter: the real Qdrant engine in-process (embedded default).

qdrant-edge-py 0.9.0 does not match boolean payload values (``MatchValue(True)``
finds nothing), so the ``active`` flag is mirrored as the integer field ``live``
(1/0), which is indexed and filtered on; ``active`` stays in the payload as is.

One EdgeShard per collection under ``path/<collection>``. Qdrant Edge keeps a
write-ahead log and takes an exclusive lock on it: only one process can hold a
store open, so a second thea process gets :class:`VectorStoreLocked`. A collection
directory that exists but cannot be loaded (damaged files) raises
:class:`VectorStoreDamaged`; with ``skip_damaged`` the store opens the other collections
and lists the damaged ones in ``damaged`` (for ``thea memory check`` / ``repair``).
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from thea.errors import VectorStoreDamaged, VectorStoreLocked, VectorStoreUnavailable
from thea.memory.vector.base import VectorStore
from thea.memory.vector.points import hit_from_payload, point_id, widen
from thea.models import Collection, HealthStatus, VectorFilter, VectorHit, VectorRecord
from thea.private_files import private_dir
from thea.storage import allocated_bytes, require_space

log = logging.getLogger(__name__)

_INDEXES = {
    "node_id": qe.PayloadSchemaType.Keyword,
    "type": qe.PayloadSchemaType.Keyword,
    "user_id": qe.PayloadSchemaType.Keyword,
    "live": qe.PayloadSchemaType.Integer,
    "created_at": qe.PayloadSchemaType.Integer,
}
_UPSERT_CHUNK = 1000
#: Load errors that say nothing about the files themselves (another process, permissions, space).
_NOT_DAMAGE = ("WouldBlock", "Permission denied", "No space left", "Read-only file system")


def ids_filter(node_ids: Sequence[str]) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition("node_id", match=qe.MatchAny(list(node_ids)))])


def edge_filter(flt: VectorFilter | None, node_ids: Sequence[str] | None = None) -> qe.Filter | None:
    must: list[Any] = []
    if node_ids is None and flt is not None:
        node_ids = flt.node_ids
    if node_ids is not None:
        must.append(qe.FieldCondition("node_id", match=qe.MatchAny(list(node_ids))))
    if flt is not None:
        if flt.types:
            must.append(qe.FieldCondition("type", match=qe.MatchAny(list(flt.types))))
        if flt.user_id is not None:
            must.append(qe.FieldCondition("user_id", match=qe.MatchValue(flt.user_id)))
        if flt.active is not None:
            must.append(qe.FieldCondition("live", match=qe.MatchValue(1 if flt.active else 0)))
        if flt.created_from is not None or flt.created_to is not None:
            rng = qe.RangeFloat(
                gte=float(flt.created_from) if flt.created_from is not None else None,
                lt=float(flt.created_to) if flt.created_to is not None else None,
            )
            must.append(qe.FieldCondition("created_at", range=rng))
    return qe.Filter(must=must) if must else None


def _compacting(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.compacting"


def _replaced(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.replaced"


def finish_compaction(path: Path) -> None:
    """End a compaction a crash interrupted: a collection whose fresh copy was complete but not
    yet in place gets it; the leftovers of an unfinished copy are removed."""
    if not path.is_dir():
        return
    for collection in Collection:
        folder = path / collection.value
        fresh, old = _compacting(folder), _replaced(folder)
        if old.exists() and not folder.exists():
            if fresh.exists():  # the old one was moved aside, the fresh one complete
                fresh.rename(folder)
            else:
                old.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(fresh, ignore_errors=True)


class QdrantEdgeStore(VectorStore):
    backend = "qdrant_edge"

    def __init__(self, path: Path, dimension: int, hnsw_ef: int = 64, *, skip_damaged: bool = False) -> None:
        self.path = Path(path)
        self.dimension = dimension
        self.hnsw_ef = hnsw_ef
        self._lock = threading.RLock()
        self._shards: dict[Collection, Any] = {}
        self._closed = False
        #: collections whose directory could not be loaded (only filled with ``skip_damaged``)
        self.damaged: dict[Collection, VectorStoreDamaged] = {}
        finish_compaction(self.path)
        try:
            if skip_damaged:
                for collection in Collection:
                    try:
                        self._open(collection)
                    except VectorStoreDamaged as exc:
                        self.damaged[collection] = exc
            else:
                self.ensure_collections(dimension)
        except BaseException:
            self.close()
            raise

    def _open(self, collection: Collection) -> Any:
        shard = self._shards.get(collection)
        if shard is not None:
            return shard
        if collection in self.damaged:
            raise self.damaged[collection]
        if self._closed:
            raise VectorStoreUnavailable(f"the vector store at {self.path} is closed")
        folder = self.path / collection.value
        existed = folder.exists() and any(folder.iterdir())
        try:
            if (folder / "edge_config.json").exists():
                shard = qe.EdgeShard.load(str(folder))
            else:
                shard = self._create(folder)
        except Exception as exc:
            if "WouldBlock" in str(exc):
                raise VectorStoreLocked(
                    f"the embedded vector store at {self.path} is open in another thea process; in the "
                    "embedded profile run one thea process at a time (the chat runs its own worker) "
                    "or use the server profile"
                ) from exc
            if existed and not any(marker in str(exc) for marker in _NOT_DAMAGE):
                raise VectorStoreDamaged(str(folder), " ".join(str(exc).split())[:300]) from exc
            raise VectorStoreUnavailable(f"cannot open {folder}: {exc}") from exc
        self._shards[collection] = shard
        return shard

    def _create(self, folder: Path) -> Any:
        private_dir(private_dir(folder.parent) / folder.name)
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(self.dimension, qe.Distance.Cosine))
        shard = qe.EdgeShard.create(str(folder), config)
        for field, schema in _INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(field, schema))
        return shard

    def ensure_collections(self, dimension: int) -> None:
        with self._lock:
            for collection in Collection:
                self._open(collection)

    def _call(self, collection: Collection, fn: str, *args: Any) -> Any:
        with self._lock:
            shard = self._open(collection)
            try:
                return getattr(shard, fn)(*args)
            except Exception as exc:
                raise VectorStoreUnavailable(f"{collection.value}.{fn} failed: {exc}") from exc

    def upsert(self, records: Sequence[VectorRecord]) -> int:
        by_collection: dict[Collection, list[Any]] = {}
        for rec in records:
            if len(rec.vector) != self.dimension:
                raise VectorStoreUnavailable(
                    f"vector of size {len(rec.vector)} for a {self.dimension}-d store"
                )
            payload = rec.payload()
            payload["node_id"] = payload.pop("id")
            payload["live"] = 1 if rec.active else 0
            point = qe.Point(point_id(rec.id, rec.chunk), rec.vector, payload)
            by_collection.setdefault(rec.collection, []).append(point)
        for collection, points in by_collection.items():
            for start in range(0, len(points), _UPSERT_CHUNK):
                chunk = points[start : start + _UPSERT_CHUNK]
                self._call(collection, "update", qe.UpdateOperation.upsert_points(chunk))
        return len(records)

    def search(
        self,
        collection: Collection,
        vector: Sequence[float],
        limit: int = 10,
        flt: VectorFilter | None = None,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        request = qe.QueryRequest(
            limit=widen(limit),
            query=qe.Query.Nearest(list(vector)),
            filter=edge_filter(flt),
            with_payload=True,
            params=qe.SearchParams(hnsw_ef=max(self.hnsw_ef, widen(limit))),
            score_threshold=score_threshold,
        )
        best: dict[str, VectorHit] = {}
        for point in self._call(collection, "query", request):
            hit = hit_from_payload(point.payload or {}, float(point.score))
            if hit.id not in best:  # results come best first: keep each node's best chunk
                best[hit.id] = hit
        return list(best.values())[:limit]

    def set_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        if not ids:
            return
        flt = ids_filter(ids)
        self._call(
            collection,
            "update",
            qe.UpdateOperation.set_payload_by_filter(flt, {"active": active, "live": 1 if active else 0}),
        )

    def existing_ids(self, collection: Collection, ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        for start in range(0, len(ids), 500):
            flt = edge_filter(None, list(ids[start : start + 500]))
            offset: Any = None
            while True:  # follow the scroll: long texts have many chunks per id
                request = qe.ScrollRequest(offset=offset, limit=10_000, filter=flt, with_payload=True)
                records, offset = self._call(collection, "scroll", request)
                out.update(str((r.payload or {}).get("node_id")) for r in records)
                if offset is None:
                    break
        return out

    def scan_node_ids(
        self, collection: Collection, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[str], str | None]:
        request = qe.ScrollRequest(offset=cursor, limit=limit, with_payload=True)
        records, next_offset = self._call(collection, "scroll", request)
        ids = [str((r.payload or {}).get("node_id")) for r in records]
        return ids, (str(next_offset) if next_offset is not None else None)

    def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        if ids:
            self._call(collection, "update", qe.UpdateOperation.delete_points_by_filter(ids_filter(ids)))

    def count(self, collection: Collection) -> int:
        return int(self._call(collection, "count", qe.CountRequest(exact=True)))

    def health(self) -> HealthStatus:
        def count() -> str:
            points = sum(self.count(c) for c in Collection)
            return f"{points} points in {self.path}"

        return HealthStatus.probe("vectors", self.backend, count)

    def unindexed_points(self) -> int:
        total = 0
        for collection in Collection:
            info = self._call(collection, "info")
            total += max(0, int(info.points_count) - int(info.indexed_vectors_count or 0))
        return total

    def optimize(self) -> None:
        """Qdrant Edge has no background optimiser: build the HNSW index of new segments now.

        It rewrites segments, so it needs about as much free space as the store takes (measured on
        tmpfs: 39 MB for a 148 MB store of 8,000 points); refused with :class:`DiskFullError` otherwise.
        """
        require_space(self.path, allocated_bytes(self.path), "building the vector index")
        for collection in Collection:
            self._call(collection, "optimize")

    def compact(self) -> bool:
        """Rebuild every collection from its points: Qdrant Edge keeps deleted and overwritten
        payloads in its segments and write-ahead log until they are rewritten, so forgetting
        copies the live points into a fresh shard and removes the old files. Needs about as
        much free space as the store takes (refused with :class:`DiskFullError` otherwise)."""
        require_space(self.path, allocated_bytes(self.path), "compacting the vector store")
        with self._lock:
            for collection in Collection:
                self._rebuild(collection)
        return True

    def _rebuild(self, collection: Collection) -> None:
        shard = self._open(collection)
        points: list[Any] = []
        offset: Any = None
        while True:
            request = qe.ScrollRequest(offset=offset, limit=1000, with_payload=True, with_vector=True)
            records, offset = self._call(collection, "scroll", request)
            points += [qe.Point(r.id, r.vector, r.payload) for r in records]
            if offset is None:
                break
        folder = self.path / collection.value
        fresh, old = _compacting(folder), _replaced(folder)
        shutil.rmtree(fresh, ignore_errors=True)
        try:
            rebuilt = self._create(fresh)
            for start in range(0, len(points), _UPSERT_CHUNK):
                rebuilt.update(qe.UpdateOperation.upsert_points(points[start : start + _UPSERT_CHUNK]))
            rebuilt.flush()
            rebuilt.close()
            shard.flush()
            shard.close()
        except Exception as exc:
            shutil.rmtree(fresh, ignore_errors=True)
            raise VectorStoreUnavailable(f"compacting {collection.value} failed: {exc}") from exc
        del self._shards[collection]
        folder.rename(old)  # from here a crash leaves old and fresh: finish_compaction ends it
        fresh.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
        self._open(collection)
        log.info("vector collection %s compacted: %d points", collection.value, len(points))

    def close(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                try:
                    shard.flush()
                    shard.close()
                except Exception as exc:  # close the others anyway
                    log.warning("closing vector shard failed: %s", exc)
            self._shards.clear()
            self._closed = True


__all__ = ["QdrantEdgeStore", "edge_filter"]
