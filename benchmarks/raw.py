"""Raw baselines: the same engines thea uses, driven directly with no thea code in between.

- :class:`RawGraph`: a second graph on the same embedded FalkorDB server, with thea's own
  schema (same indexes, so index upkeep costs the same), written with one
  ``UNWIND $rows MERGE`` statement per batch.
- :class:`RawVectors`: a bare Qdrant Edge shard (same payload indexes) in its own folder.
- :class:`RawChronicle`: a bare SQLite table in WAL mode.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from falkordb import FalkorDB

from thea.memory.graph.queries import QueryLibrary
from thea.memory.universal import UniversalMemory
from thea.models import Node

MERGE = "UNWIND $rows AS row MERGE (n:Memory {id: row.id}) SET n += row.props SET n:__LABEL__"
FULLTEXT = (
    "CALL db.idx.fulltext.queryNodes('Memory', $query) YIELD node, score "
    "WHERE node.user_id = $user_id RETURN node.id AS id, score ORDER BY score DESC LIMIT $limit"
)
BATCH = 500


class RawGraph:
    def __init__(self, memory: UniversalMemory, name: str = "raw_baseline") -> None:
        server = getattr(memory.graph, "server", None)
        if server is None:
            raise RuntimeError("the raw graph baseline needs the embedded FalkorDB")
        self._db = FalkorDB(unix_socket_path=str(server.socket_path))
        self.graph = self._db.select_graph(name)
        for statement in QueryLibrary("falkordb").schema_statements():
            try:
                self.graph.query(statement)
            except Exception as exc:  # "already indexed" on reuse
                if "already" not in str(exc).lower():
                    raise
        # the unique constraint on ids that thea's schema also creates
        self._db.connection.execute_command(
            "GRAPH.CONSTRAINT", "CREATE", name, "UNIQUE", "NODE", "Memory", "PROPERTIES", "1", "id"
        )

    def write(self, nodes: Sequence[Node]) -> None:
        """UNWIND MERGE the nodes' property rows, one statement per label and batch."""
        by_label: dict[str, list[dict[str, Any]]] = {}
        for node in nodes:
            by_label.setdefault(node.type.value, []).append({"id": node.id, "props": node.to_props()})
        for label, rows in by_label.items():
            text = MERGE.replace("__LABEL__", label)
            for start in range(0, len(rows), BATCH):
                self.graph.query(text, {"rows": rows[start : start + BATCH]})

    def fulltext(self, query: str, user_id: str, limit: int = 40) -> list[Any]:
        return list(
            self.graph.query(FULLTEXT, {"query": query, "user_id": user_id, "limit": limit}).result_set
        )

    def close(self) -> None:
        try:
            self.graph.delete()
        finally:
            self._db.connection.close()


class RawVectors:
    def __init__(self, path: Path, dimension: int = 384) -> None:
        path.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(dimension, qe.Distance.Cosine))
        self.shard = qe.EdgeShard.create(str(path), config)
        for field, schema in (
            ("node_id", qe.PayloadSchemaType.Keyword),
            ("type", qe.PayloadSchemaType.Keyword),
            ("user_id", qe.PayloadSchemaType.Keyword),
            ("live", qe.PayloadSchemaType.Integer),
            ("created_at", qe.PayloadSchemaType.Integer),
        ):
            self.shard.update(qe.UpdateOperation.create_field_index(field, schema))
        self._next = 0

    def write(self, nodes: Sequence[Node], vectors: Sequence[Sequence[float]]) -> None:
        points = []
        for node, vector in zip(nodes, vectors, strict=True):
            payload = {
                "node_id": node.id,
                "type": node.type.value,
                "user_id": node.user_id,
                "live": 1,
                "created_at": node.created_at,
                "text": node.content,
            }
            points.append(qe.Point(self._next, list(vector), payload))
            self._next += 1
        for start in range(0, len(points), 1000):
            self.shard.update(qe.UpdateOperation.upsert_points(points[start : start + 1000]))

    def search(self, vector: Sequence[float], user_id: str, limit: int = 20) -> list[Any]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(vector)),
            filter=qe.Filter(must=[qe.FieldCondition("user_id", match=qe.MatchValue(user_id))]),
            with_payload=True,
            params=qe.SearchParams(hnsw_ef=64),
        )
        return list(self.shard.query(request))

    def close(self) -> None:
        self.shard.flush()
        self.shard.close()


class RawChronicle:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(str(path), check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")  # as thea's SQLite chronicle
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, type TEXT, time INTEGER, "
            "user_id TEXT, session_id TEXT, correlation_id TEXT, summary TEXT)"
        )
        # the same indexes as thea's SQLite chronicle, so reads compare like for like
        self.conn.execute("CREATE INDEX IF NOT EXISTS events_user_time ON events (user_id, time, id)")

    def write(self, nodes: Sequence[Node]) -> None:
        rows = [
            (n.id, n.type.value, n.created_at, n.user_id, n.session_id, n.correlation_id, n.content[:200])
            for n in nodes
        ]
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def close(self) -> None:
        self.conn.close()
