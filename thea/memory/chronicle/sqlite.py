"""SQLite chronicle: the embedded temporal log (one WAL-mode file).

Durability: WAL with ``synchronous=NORMAL``: a committed append survives a crash
of thea; a power cut may lose the last transactions since the last checkpoint
sync. Appends are one transaction per batch with ``INSERT OR IGNORE`` (idempotent).

A file that is not a database (garbage in its header) or has corrupt pages raises
:class:`ChronicleDamaged`; ``thea memory repair`` then moves it aside and rebuilds the
log from the graph.
"""

# SQL text is built only from the constant column list and "?" placeholders; every value is a parameter.
# ruff: noqa: S608

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from thea.errors import ChronicleDamaged, ChronicleUnavailable
from thea.memory.chronicle.base import Chronicle
from thea.models import ChronicleEvent, HealthStatus
from thea.private_files import open_private, private_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    time INTEGER NOT NULL,
    user_id TEXT,
    session_id TEXT,
    correlation_id TEXT,
    summary TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS events_time ON events (time, id);
CREATE INDEX IF NOT EXISTS events_user_time ON events (user_id, time, id);
CREATE INDEX IF NOT EXISTS events_correlation ON events (correlation_id, time);
"""
_COLUMNS = "id, type, time, user_id, session_id, correlation_id, summary"
_CHUNK = 500
#: SQLite result codes meaning "this file is damaged", not "try again later".
_DAMAGED = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}


def _event(row: tuple[Any, ...]) -> ChronicleEvent:
    return ChronicleEvent(
        id=row[0],
        type=row[1],
        time=row[2],
        user_id=row[3],
        session_id=row[4],
        correlation_id=row[5],
        summary=row[6],
    )


class SQLiteChronicle(Chronicle):
    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            private_dir(self.path.parent)
            # created 0600: SQLite gives its -wal and -shm files the database file's mode
            os.close(open_private(self.path, os.O_RDWR))
        except OSError as exc:
            raise ChronicleUnavailable(f"cannot open {self.path}: {exc.strerror or exc}") from exc
        try:
            db = sqlite3.connect(str(self.path), check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._error(exc, f"cannot open {self.path}: ") from exc
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            db.close()
            raise self._error(exc, f"cannot open {self.path}: ") from exc
        self._db = db

    def _error(self, exc: sqlite3.Error, prefix: str = "") -> ChronicleUnavailable:
        if getattr(exc, "sqlite_errorcode", None) in _DAMAGED:
            return ChronicleDamaged(str(self.path), str(exc))
        return ChronicleUnavailable(f"{prefix}{exc}")

    def verify(self) -> None:
        """Read every page (``PRAGMA quick_check``, for maintenance): raise
        :class:`ChronicleDamaged` if any is corrupt."""
        rows = self._query("PRAGMA quick_check", [])
        problems = [str(r[0]) for r in rows if r and r[0] != "ok"]
        if problems:
            raise ChronicleDamaged(str(self.path), "; ".join(problems[:3]))

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise ChronicleUnavailable(f"the chronicle at {self.path} is closed")
        return self._db

    def _query(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn().execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def append(self, events: Sequence[ChronicleEvent]) -> int:
        if not events:
            return 0
        rows = [(e.id, e.type, e.time, e.user_id, e.session_id, e.correlation_id, e.summary) for e in events]
        with self._lock:
            db = self._conn()
            try:
                with db:
                    before = db.total_changes
                    db.executemany(
                        f"INSERT OR IGNORE INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows
                    )
                    return db.total_changes - before
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def _filters(self, user_id: str | None, types: Sequence[str] | None) -> tuple[str, list[Any]]:
        sql, params = "", []
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        if types:
            sql += f" AND type IN ({','.join('?' * len(types))})"
            params.extend(types)
        return sql, params

    def range(
        self,
        start_ms: int,
        end_ms: int,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ChronicleEvent]:
        extra, params = self._filters(user_id, types)
        sql = f"SELECT {_COLUMNS} FROM events WHERE time >= ? AND time < ?{extra} ORDER BY time, id LIMIT ?"
        return [_event(r) for r in self._query(sql, [start_ms, end_ms, *params, limit])]

    def latest(
        self, n: int = 20, *, user_id: str | None = None, types: Sequence[str] | None = None
    ) -> list[ChronicleEvent]:
        extra, params = self._filters(user_id, types)
        sql = f"SELECT {_COLUMNS} FROM events WHERE 1=1{extra} ORDER BY time DESC, id DESC LIMIT ?"
        return [_event(r) for r in self._query(sql, [*params, n])]

    def by_correlation(self, correlation_id: str) -> list[ChronicleEvent]:
        sql = f"SELECT {_COLUMNS} FROM events WHERE correlation_id = ? ORDER BY time, id"
        return [_event(r) for r in self._query(sql, [correlation_id])]

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), _CHUNK):
            chunk = list(ids[start : start + _CHUNK])
            sql = f"SELECT id FROM events WHERE id IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self._query(sql, chunk))
        return found

    def scan_ids(self, cursor: str | None = None, limit: int = 500) -> tuple[list[str], str | None]:
        rows = self._query("SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ?", [cursor or "", limit])
        ids = [r[0] for r in rows]
        return ids, (ids[-1] if len(ids) == limit else None)

    def delete(self, ids: Sequence[str]) -> int:
        removed = 0
        with self._lock:
            db = self._conn()
            try:
                with db:
                    for start in range(0, len(ids), _CHUNK):
                        chunk = list(ids[start : start + _CHUNK])
                        cur = db.execute(
                            f"DELETE FROM events WHERE id IN ({','.join('?' * len(chunk))})", chunk
                        )
                        removed += cur.rowcount
            except sqlite3.Error as exc:
                raise self._error(exc) from exc
        return removed

    def compact(self) -> bool:
        """Rebuild the database file and empty its write-ahead log: deleted rows leave the disk."""
        with self._lock:
            db = self._conn()
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise self._error(exc, "compacting the log: ") from exc
        return True

    def count(self) -> int:
        return int(self._query("SELECT count(*) FROM events", [])[0][0])

    def health(self) -> HealthStatus:
        def count() -> str:
            n = self.count()
            return f"{n} events in {self.path}"

        return HealthStatus.probe("chronicle", self.backend, count)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
