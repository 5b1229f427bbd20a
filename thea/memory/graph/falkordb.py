"""FalkorDB adapter: the embedded default (child process) or a FalkorDB server."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from falkordb import FalkorDB
from falkordb import Node as FNode
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from thea.errors import GraphUnavailable, InputError
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.graph.cypher_store import CypherGraphStore
from thea.memory.redis_files import rewrite_files

log = logging.getLogger(__name__)

#: how long after a query a FalkorDB server that keeps its query log writes it there (measured
#: with FalkorDB 4.x: 1 to 1.5 s)
QUERY_LOG_FLUSH_S = 2.5
#: what the log says of a FalkorDB server that keeps its query log
QUERY_LOG_WARNING = (
    "the FalkorDB server keeps a log of its queries with their parameters (the users' words), "
    "which forgetting cannot erase for good: start it with the module argument CMD_INFO no "
    "(FALKORDB_ARGS, see docker-compose.falkordb.yml)"
)

_T = TypeVar("_T")

_ALREADY = ("already indexed", "already exists", "already created")


def _plain(value: Any) -> Any:
    """Turn driver objects into plain Python values (nodes become property dicts)."""
    if isinstance(value, FNode):
        return dict(value.properties)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _pairs(flat: Any) -> list[tuple[Any, Any]]:
    """A RESP2 reply's flat [key, value, ...] list as pairs."""
    items = list(flat)
    return list(zip(items[::2], items[1::2], strict=False))


def _holds_nul(value: Any) -> bool:
    """Whether a query parameter holds a NUL character anywhere (checked only after a refusal)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_nul(v) for v in value)
    return False


def _quick_retry() -> Retry:
    """Ride out a reconnect, but report a dead server within a fraction of a second. A query
    left unanswered is not asked again here: the store decides what a hung server needs."""
    return Retry(ExponentialBackoff(cap=0.2, base=0.02), retries=2, supported_errors=(redis.ConnectionError,))


class FalkorDBGraphStore(CypherGraphStore):
    """Graph port on FalkorDB.

    ``server`` is an :class:`EmbeddedFalkorDB` this store connects to (and stops on
    close when it started it); otherwise ``url`` names a FalkorDB server
    (``redis://host:port`` or ``unix:///path.sock``).
    """

    backend = "falkordb"

    def __init__(
        self,
        *,
        url: str | None = None,
        server: EmbeddedFalkorDB | None = None,
        graph_name: str = "thea",
        batch_size: int = 500,
        timeout_ms: int = 10_000,
        answer_timeout_s: float = 60.0,
    ) -> None:
        super().__init__("falkordb", batch_size)
        if (url is None) == (server is None):
            raise InputError("FalkorDBGraphStore needs exactly one of url or server")
        self.server = server
        self.graph_name = graph_name
        self.timeout_ms = timeout_ms
        #: a query unanswered this long means a hung server (never before the query's own timeout)
        self.answer_timeout_s = max(answer_timeout_s, 2 * timeout_ms / 1000)
        self._lock = threading.Lock()
        if server is not None:
            server.start()
            self._db = FalkorDB(
                unix_socket_path=str(server.socket_path),
                retry=_quick_retry(),
                socket_timeout=self.answer_timeout_s,
            )
        else:
            assert url is not None
            self._db = FalkorDB.from_url(url, retry=_quick_retry(), socket_timeout=self.answer_timeout_s)
        self._graph = self._db.select_graph(graph_name)

    @property
    def connection(self) -> redis.Redis:
        """The underlying Redis connection (the embedded server also serves RQ)."""
        conn: redis.Redis = self._db.connection
        return conn

    @property
    def _query_log(self) -> str:
        return f"telemetry{{{self.graph_name}}}"

    def compact(self) -> bool:
        """Ask the server to rewrite its append-only file and snapshot (forgetting). A server
        that keeps its query log (``telemetry{graph}``: each query with its parameters, the
        users' words; started without ``CMD_INFO no``) writes each query into it about a second
        after it ran: the log is deleted, then once more after that while, before the rewrite."""
        logs = self._logs_queries()
        self._drop_query_log()
        if logs:
            log.warning(QUERY_LOG_WARNING)
            time.sleep(QUERY_LOG_FLUSH_S)  # the last queries (the erasure's own) are logged
            self._drop_query_log()
        return rewrite_files(self.connection)

    def _drop_query_log(self) -> None:
        try:
            self.connection.delete(self._query_log)
        except redis.RedisError as exc:
            log.warning("could not delete the graph's query log: %s", exc)

    def _logs_queries(self) -> bool:
        """Whether the server keeps its query log (it holds the users' words): the FalkorDB
        module's load arguments say so (``CMD_INFO no``), or, when they cannot be read, the
        log's stream being there."""
        try:
            modules = self.connection.execute_command("MODULE", "LIST")  # type: ignore[no-untyped-call]
            for module in modules:
                info = {
                    _text(k): v for k, v in (module.items() if isinstance(module, dict) else _pairs(module))
                }
                if _text(info.get("name", b"")) == "graph":
                    args = [_text(a).lower() for a in info.get("args", [])]
                    at = args.index("cmd_info") if "cmd_info" in args else -1
                    return not (0 <= at < len(args) - 1 and args[at + 1] in ("no", "false", "0"))
        except redis.RedisError:
            pass
        try:
            return bool(self.connection.exists(self._query_log))
        except redis.RedisError:
            return False

    def recover(self) -> bool:
        """Start the embedded server again if the one this store started has died (True when it
        did): the next query finds it back, with every acknowledged write (AOF)."""
        return self.server.revive() if self.server is not None else False

    def _asked(self, ask: Callable[[], _T]) -> _T:
        """What ``ask`` gets from the server; asked once more when a server of ours died while
        it ran (``kill -9``, OOM) or stopped answering (a hung engine), once it is started again."""
        try:
            return ask()
        except redis.TimeoutError:
            if self.server is None or not self.server.restart_unanswering(self.answer_timeout_s):
                raise
        except (redis.ConnectionError, OSError):
            if not self.recover():
                raise
        return ask()

    def _unavailable(self, exc: Exception) -> GraphUnavailable:
        if isinstance(exc, redis.TimeoutError):
            waited = self.answer_timeout_s
            return GraphUnavailable(f"FalkorDB at {self._where()} did not answer within {waited:g} s")
        return GraphUnavailable(f"FalkorDB at {self._where()}: {exc}")

    def _execute(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self.recover()  # a dead child of ours (kill -9, OOM) is started again before we ask it
        try:
            result = self._asked(lambda: self._graph.query(text, params, timeout=self.timeout_ms))
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise self._unavailable(exc) from exc
        except redis.ResponseError as exc:
            if _holds_nul(params):  # FalkorDB reads the parameter header as a C string
                raise InputError("a value holds a NUL character, which the graph store cannot take") from exc
            raise GraphUnavailable(f"FalkorDB refused a query: {exc}") from exc
        header = [h[1] if isinstance(h, (list, tuple)) else h for h in (result.header or [])]
        names = [h.decode() if isinstance(h, bytes) else str(h) for h in header]
        return [dict(zip(names, (_plain(v) for v in row), strict=False)) for row in result.result_set]

    def _apply_schema_statement(self, statement: str) -> None:
        try:
            self._asked(lambda: self._graph.query(statement))
        except redis.ResponseError as exc:
            if not any(marker in str(exc).lower() for marker in _ALREADY):
                raise GraphUnavailable(f"FalkorDB schema statement failed: {exc}") from exc
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise self._unavailable(exc) from exc

    def ensure_schema(self) -> None:
        super().ensure_schema()
        self._no_query_log()
        # Unique ids, enforced by the server (built asynchronously from the exact-match index).
        constraint = ["GRAPH.CONSTRAINT", "CREATE", self.graph_name, "UNIQUE", "NODE", "Memory"]
        constraint += ["PROPERTIES", "1", "id"]
        try:
            self._asked(lambda: self.connection.execute_command(*constraint))  # type: ignore[no-untyped-call]
        except redis.ResponseError as exc:
            if "already" not in str(exc).lower():
                log.warning("could not create unique constraint on Memory.id: %s", exc)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise self._unavailable(exc) from exc

    def _no_query_log(self) -> None:
        """Ask a FalkorDB server to stop its query log (``CMD_INFO``: its last queries with
        their parameters, the users' words, in the ``telemetry{graph}`` stream and so in its
        files). FalkorDB 4.x answers OK and goes on logging: only a server started with the
        module argument ``CMD_INFO no`` keeps none (the embedded server and
        docker-compose.falkordb.yml do); a server that logs is named in the log."""
        try:
            self.connection.execute_command("GRAPH.CONFIG", "SET", "CMD_INFO", "no")  # type: ignore[no-untyped-call]
        except redis.ResponseError as exc:
            log.warning("could not turn off the FalkorDB query log (CMD_INFO): %s", exc)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise self._unavailable(exc) from exc
        if self._logs_queries():
            log.warning(QUERY_LOG_WARNING)

    def _where(self) -> str:
        return str(self.server.socket_path) if self.server else "configured url"

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError, OSError, AttributeError):
            self._db.connection.close()
        if self.server is not None:
            self.server.stop()
