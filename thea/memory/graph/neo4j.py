"""Neo4j adapter (server profile) on the official ``neo4j`` driver.

Writes run in managed write transactions (``execute_write``) and reads in read
transactions: the driver retries transient errors (leader changes, deadlocks) by
itself; their timeout comes from ``unit_of_work``. Batches stay at ``batch_size`` rows
per ``UNWIND``. Query text comes from ``cypher/`` with the ``neo4j/`` dialect overrides;
``dialect="falkordb"`` selects FalkorDB's overrides instead, for a FalkorDB server
reached over its Bolt port (how this adapter is smoke-tested, see docs/server-mode.md).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from neo4j import Driver, GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j import exceptions as neo4j_errors
from neo4j.graph import Node as NeoNode
from neo4j.graph import Relationship

from thea.errors import GraphUnavailable
from thea.memory.graph.cypher_store import CypherGraphStore
from thea.models import HealthStatus

log = logging.getLogger(__name__)

_WRITE = re.compile(r"\b(MERGE|CREATE|SET|DELETE|REMOVE|DROP)\b", re.IGNORECASE)
_ALREADY = ("already exists", "equivalent", "already indexed", "already created")
_UNAVAILABLE = (
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
    neo4j_errors.AuthError,
    OSError,
)


def _plain(value: Any) -> Any:
    if isinstance(value, NeoNode | Relationship):
        return dict(value.items())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class Neo4jGraphStore(CypherGraphStore):
    backend = "neo4j"

    def __init__(
        self,
        *,
        uri: str,
        user: str,
        password: str,
        database: str | None = None,
        batch_size: int = 500,
        timeout_ms: int = 10_000,
        dialect: str = "neo4j",
        driver: Driver | None = None,
    ) -> None:
        super().__init__(dialect, batch_size)
        self.uri = uri
        self.database = database
        self.timeout_s = timeout_ms / 1000
        try:
            self._driver = driver or GraphDatabase.driver(
                uri, auth=(user, password), connection_timeout=5.0, max_transaction_retry_time=15.0
            )
        except (neo4j_errors.ConfigurationError, ValueError) as exc:
            raise GraphUnavailable(f"bad Neo4j settings for {uri}: {exc}") from exc

    def _execute(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        # managed transactions take their timeout from unit_of_work (tx.run refuses Query objects)
        @unit_of_work(timeout=self.timeout_s)
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            result = tx.run(text, params or {})
            return [{k: _plain(v) for k, v in dict(record).items()} for record in result]

        try:
            with self._driver.session(database=self.database) as session:
                if _WRITE.search(text):
                    return session.execute_write(work)
                return session.execute_read(work)
        except _UNAVAILABLE as exc:
            raise GraphUnavailable(f"Neo4j at {self.uri}: {type(exc).__name__}: {exc}") from exc
        except neo4j_errors.Neo4jError as exc:
            raise GraphUnavailable(f"Neo4j refused a query: {exc.code}: {exc.message}") from exc

    def _apply_schema_statement(self, statement: str) -> None:
        try:
            with self._driver.session(database=self.database) as session:
                session.run(statement).consume()
        except _UNAVAILABLE as exc:
            raise GraphUnavailable(f"Neo4j at {self.uri}: {exc}") from exc
        except neo4j_errors.Neo4jError as exc:
            text = str(exc).lower()
            if not any(marker in text for marker in _ALREADY):
                first_line = statement.splitlines()[0]
                raise GraphUnavailable(
                    f"schema statement refused by {self.uri} ({self.queries.dialect} dialect): "
                    f"{first_line!r}: {exc.code}: {exc.message}"
                ) from exc

    def health(self) -> HealthStatus:
        """One auto-commit ping: no managed-transaction retries, so a dead server is reported
        at once instead of after ``max_transaction_retry_time``."""

        def ping() -> str:
            with self._driver.session(database=self.database) as session:
                session.run(Query(self.queries.render("ping"), timeout=self.timeout_s)).consume()
            return ""

        def describe(exc: Exception) -> str:
            return f"Neo4j at {self.uri}: {type(exc).__name__}: {exc}"

        return HealthStatus.probe("graph", self.backend, ping, describe=describe)

    def close(self) -> None:
        self._driver.close()
