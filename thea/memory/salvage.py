"""Open the memory for ``thea memory check`` / ``repair`` even when a derived layer's files
are damaged.

The graph is the source of truth; the embedded chronicle (one SQLite file) and the embedded
vector store (one Qdrant Edge directory per collection) only hold what can be re-derived from
it. When one of them cannot be read (garbage in the SQLite header, a corrupt page, a segment
Qdrant cannot load):

* ``check`` opens everything else, skips the unreadable part and reports it as *damaged*
  with the path and the reason;
* ``repair`` moves the damaged file or directory aside under a timestamped name (kept for
  inspection, never deleted), opens a fresh, empty one in its place, and the normal repair
  scan then re-appends every event / re-embeds every memory from the graph.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from thea.config import Settings
from thea.errors import ChronicleDamaged, ChronicleUnavailable
from thea.memory.chronicle.base import Chronicle
from thea.memory.consistency import Damage
from thea.memory.universal import UniversalMemory
from thea.models import ChronicleEvent, Collection, HealthStatus

log = logging.getLogger(__name__)

#: SQLite keeps two side files next to a WAL-mode database; they move with it.
_SQLITE_SIDE_FILES = ("-wal", "-shm")


def aside_name(path: Path, now: float | None = None) -> Path:
    """``chronicle.sqlite3`` -> ``chronicle.sqlite3.damaged-20250102T030405Z`` (a free name)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now if now is not None else time.time()))
    candidate = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    return candidate


def move_aside(path: Path, side_suffixes: Sequence[str] = ()) -> Path:
    """Rename a damaged file or directory (and its side files) out of the way; return the new name."""
    target = aside_name(path)
    shutil.move(str(path), str(target))
    for suffix in side_suffixes:
        side = path.with_name(path.name + suffix)
        if side.exists():
            shutil.move(str(side), str(target.with_name(target.name + suffix)))
    log.info("moved damaged %s aside to %s", path, target)
    return target


class UnreadableChronicle(Chronicle):
    """Stands in for a chronicle that cannot be opened (``check`` only): every call raises."""

    backend = "sqlite"

    def __init__(self, error: ChronicleUnavailable) -> None:
        self.error = error

    def append(self, events: Sequence[ChronicleEvent]) -> int:
        raise self.error

    def range(
        self,
        start_ms: int,
        end_ms: int,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ChronicleEvent]:
        raise self.error

    def latest(
        self, n: int = 20, *, user_id: str | None = None, types: Sequence[str] | None = None
    ) -> list[ChronicleEvent]:
        raise self.error

    def by_correlation(self, correlation_id: str) -> list[ChronicleEvent]:
        raise self.error

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        raise self.error

    def scan_ids(self, cursor: str | None = None, limit: int = 500) -> tuple[list[str], str | None]:
        raise self.error

    def delete(self, ids: Sequence[str]) -> int:
        raise self.error

    def count(self) -> int:
        raise self.error

    def health(self) -> HealthStatus:
        return HealthStatus(component="chronicle", backend=self.backend, ok=False, detail=str(self.error))

    def close(self) -> None:
        return None


def open_sqlite_chronicle(path: Path, *, fix: bool, damage: list[Damage]) -> Chronicle:
    """The SQLite chronicle at ``path``: checked page by page; if damaged, moved aside and
    recreated (``fix``) or replaced by :class:`UnreadableChronicle` (check only)."""
    from thea.memory.chronicle.sqlite import SQLiteChronicle

    try:
        chronicle = SQLiteChronicle(path)
        try:
            chronicle.verify()
        except BaseException:
            chronicle.close()
            raise
        return chronicle
    except ChronicleDamaged as exc:
        found = Damage(layer="chronicle", path=str(path), reason=exc.reason)
        damage.append(found)
        if not fix:
            return UnreadableChronicle(exc)
        found.moved_to = str(move_aside(path, _SQLITE_SIDE_FILES))
        return SQLiteChronicle(path)


def open_edge_vectors(path: Path, settings: Settings, *, fix: bool, damage: list[Damage]) -> Any:
    """The embedded vector store with damaged collections skipped (check) or moved aside and
    recreated empty (``fix``)."""
    from thea.memory.vector.qdrant_edge import QdrantEdgeStore

    dim, ef = settings.embedding.dimension, settings.vector.hnsw_ef
    store = QdrantEdgeStore(path, dimension=dim, hnsw_ef=ef, skip_damaged=True)
    found = [
        Damage(layer="vectors", path=exc.path, reason=exc.reason, collection=collection.value)
        for collection, exc in store.damaged.items()
    ]
    damage.extend(found)
    if not fix or not found:
        return store
    store.close()  # let go of the healthy collections before touching the directory
    for item in found:
        item.moved_to = str(move_aside(Path(item.path)))
    return QdrantEdgeStore(path, dimension=dim, hnsw_ef=ef)


def recheck_open_chronicle(memory: UniversalMemory, *, fix: bool) -> list[Damage]:
    """For a memory that is already open (the running service): read every page of its SQLite
    chronicle. A damaged one is reported; with ``fix`` it is closed, moved aside and replaced
    in place by an empty one (``memory.chronicle``), which the repair scan then refills."""
    from thea.memory.chronicle.sqlite import SQLiteChronicle

    chronicle = memory.chronicle
    if not isinstance(chronicle, SQLiteChronicle):
        return []
    try:
        chronicle.verify()
        return []
    except ChronicleDamaged as exc:
        found = Damage(layer="chronicle", path=str(chronicle.path), reason=exc.reason)
    if not fix:  # check only: the scan skips a damaged chronicle (reported, not read)
        return [found]
    chronicle.close()
    found.moved_to = str(move_aside(Path(found.path), _SQLITE_SIDE_FILES))
    memory.chronicle = SQLiteChronicle(Path(found.path))
    return [found]


def recheck_open_vectors(memory: UniversalMemory) -> list[Damage]:
    """For a memory that is already open (the running service): whether the embedded vector
    store's collection directories are still there. Qdrant Edge keeps working on the files it
    has mapped after they were deleted, so searches and counts look fine; only the directory
    shows the loss (issue 22: `vectors/` deleted under a running service, `check` said
    "consistent"). A lost collection is reported and skipped; it cannot be refilled in place."""
    from thea.memory.vector.qdrant_edge import QdrantEdgeStore

    vectors = memory.vectors
    if not isinstance(vectors, QdrantEdgeStore):
        return []
    return [
        Damage(
            layer="vectors",
            path=str(folder),
            reason="its files were deleted while the service had the store open",
            collection=collection.value,
            advice="stop the service (`thea service stop`); the next start opens an empty store and "
            "`thea memory repair` re-embeds its memories from the graph",
        )
        for collection in Collection
        if not ((folder := vectors.path / collection.value) / "edge_config.json").exists()
    ]


def damaged_collections(damage: Sequence[Damage]) -> set[Collection]:
    """Collections a check must skip (damaged and not moved aside)."""
    return {Collection(d.collection) for d in damage if d.collection and d.moved_to is None}


__all__ = [
    "UnreadableChronicle",
    "aside_name",
    "damaged_collections",
    "move_aside",
    "open_edge_vectors",
    "open_sqlite_chronicle",
    "recheck_open_chronicle",
    "recheck_open_vectors",
]
