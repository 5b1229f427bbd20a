"""The service process: one per data directory, from start to a clean stop.

* **One per directory.** The process holds an exclusive ``flock`` on ``service/service.lock``
  for its whole life; a second one gives up at once. The kernel drops the lock when the
  process dies (even by ``kill -9``), so a crash never leaves a stale lock behind, and the pid
  record (``service/service.json``: pid, start time, command-line marker) is only ever used
  after :func:`thea.proc.alive` confirms it still names this service.
* **Owns the engines.** It builds the runtime (graph server child, vector store, chronicle,
  embedder, model, slow-loop workers) and serves the API on a unix socket in the data
  directory (mode 0600 in a 0700 folder) and, when asked, on TCP.
* **Stops cleanly, for a reason it logs.** On SIGTERM/SIGINT/SIGHUP (sender pid in the log),
  ``POST /service/stop``, after ``idle_stop_s`` without requests or queued jobs (never while
  it serves TCP) or after a maintenance-mode repair (:class:`~thea.service.stopping.StopCause`),
  it answers new requests with 503 ``stopping``, stops accepting, lets running requests
  finish, stops the workers and closes the engines (the graph server shuts down with its AOF
  flushed). While it does, ``service/stopping.json`` names it, so a command that meets it
  waits for it to exit and starts a new one (:mod:`thea.client.local`).
* **Looks after its children and its directory** (:meth:`ServiceProcess._watch`, every second):
  a dead embedded FalkorDB child is started again (graph calls do so too, before they ask it);
  a data directory deleted or replaced under it stops the service, naming why.
* **Hears signals in its main thread only** (:func:`~thea.service.stopping.serve_with_signals`):
  the service runs in a thread, and no forked helper can deliver a signal to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import logging.handlers
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import uvicorn

from thea import language
from thea.config import Settings
from thea.errors import (
    BackendUnavailable,
    ChronicleDamaged,
    ConfigError,
    InputError,
    TheaError,
    VectorStoreDamaged,
)
from thea.locations import ServicePaths
from thea.memory.consistency import repair
from thea.memory.factory import open_for_maintenance
from thea.models import now_ms
from thea.private_files import DIR_MODE, PRIVATE_UMASK, open_private, private_dir, write_private
from thea.proc import ProcessRecord
from thea.runtime import Runtime, build_runtime
from thea.service.app import create_app, serve_app
from thea.service.auth import Authenticator
from thea.service.connections import KEEP_ALIVE_S, MAX_HEAD_BYTES, guarded_protocol
from thea.service.context import Maintenance, ServiceContext
from thea.service.hosts import LOOPBACK, host_name
from thea.service.stopping import StopCause, StopReason, serve_with_signals
from thea.service.web_listeners import DELIBERATE_STOPS, WebListener, recorded, remember
from thea.service.web_listeners import forget as forget_web_listeners
from workers.admin import queue_counts

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_ALREADY_RUNNING = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_BACKEND = 3
IDLE_CHECK_S = 5.0
#: how often the service looks after its graph server child and its data directory
WATCH_S = 1.0


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a directory, or None when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: the service handles signals for all listeners."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[IO[str] | None]:
    """Hold an exclusive flock on ``path`` (None if another process holds it)."""
    private_dir(path.parent)
    handle = os.fdopen(open_private(path, os.O_RDWR), "r+")  # held open for the life of the lock
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        yield handle
    finally:
        handle.close()


def unix_listener(path: Path) -> socket.socket:
    """A listening unix socket only this OS user can open (0700 folder, 0600 socket)."""
    private_dir(path.parent)
    os.chmod(path.parent, DIR_MODE)  # a folder under /tmp (long data dir paths) may predate us
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a dead service's socket: we hold the lock, nobody else owns it
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    sock.listen(128)
    sock.setblocking(False)
    return sock


def tcp_listener(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _log_to_file(paths: ServicePaths, level: str) -> None:
    handler = logging.handlers.RotatingFileHandler(paths.log_file, maxBytes=2_000_000, backupCount=2)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))


def repair_after_unclean_stop(runtime: Runtime, started_ms: int) -> None:
    """What the service before this one left half-written when it was killed (a graph node
    without its vector or log event, a cycle without its answer) is repaired from the graph,
    in the background, and logged; writes of this service (after ``started_ms``) are left alone."""
    log.warning("the previous service of this data directory did not stop cleanly: checking its last writes")
    try:
        report = repair(runtime.memory, written_before_ms=started_ms)
    except (TheaError, OSError) as exc:  # `thea memory repair` can still be run by hand
        log.error("repair after an unclean stop failed: %s; run `thea memory repair`", exc)
        return
    fixed = {issue.value: n for issue, n in report.repaired.items() if n}
    if fixed:
        log.warning(
            "repaired after an unclean stop: %s", ", ".join(f"{k} {v}" for k, v in sorted(fixed.items()))
        )
    else:
        log.info("after an unclean stop: nothing needed repair (%d nodes checked)", report.checked_nodes)


class ServiceProcess:
    def __init__(self, settings: Settings, *, host: str | None = None, port: int | None = None) -> None:
        self.settings = settings
        self.paths = ServicePaths.of(settings.data_dir)
        self.host = host if host is not None else settings.service.host
        self.port = port if port is not None else settings.service.port
        self.ctx: ServiceContext | None = None
        self._servers: list[tuple[_Server, asyncio.Task[None]]] = []
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: why the service stops (the first reason given wins)
        self.stop_reason: StopReason | None = None
        self._stop_lock = threading.Lock()
        self._pid = os.getpid()
        #: the previous service of this data directory did not stop cleanly
        self._unclean = False

    # -- lifecycle ---------------------------------------------------------------------

    def run(self) -> int:
        private_dir(self.paths.run_dir)
        with exclusive(self.paths.lock) as held:
            if held is None:
                record = ProcessRecord.read(self.paths.pid_file)
                who = f" (pid {record.pid})" if record else ""
                print(f"a thea service already runs for {self.paths.data_dir}{who}", file=sys.stderr)
                return EXIT_ALREADY_RUNNING
            # a record left behind: the service before this one did not stop cleanly (kill -9,
            # power loss); what it was writing is repaired once this one answers
            left = ProcessRecord.read(self.paths.pid_file)
            self._unclean = left is not None and left.pid != os.getpid()
            ProcessRecord.of(os.getpid(), ServicePaths.MARKER).write(self.paths.pid_file)
            with contextlib.suppress(FileNotFoundError):
                self.paths.stopping_file.unlink()  # left by a predecessor killed while it stopped
            try:
                return serve_with_signals(self._run_owned, self.request_stop)
            finally:
                for done in (self.paths.pid_file, self.paths.stopping_file, self.paths.starting_file):
                    with contextlib.suppress(FileNotFoundError):
                        done.unlink()

    def _run_owned(self) -> int:
        started = time.monotonic()
        started_ms = now_ms()  # what was written before this is the predecessor's
        try:
            runtime = build_runtime(self.settings, on_loading=self._loading)
        except (ChronicleDamaged, VectorStoreDamaged) as exc:
            return self._run_maintenance(exc)
        except ConfigError as exc:
            return self._fail(EXIT_CONFIG, exc)
        except BackendUnavailable as exc:
            return self._fail(EXIT_BACKEND, exc)
        except TheaError as exc:
            return self._fail(EXIT_FAILED, exc)
        finally:
            self._started()
        try:
            if self.stop_reason is not None:  # asked to stop while it was starting
                return EXIT_OK
            if self.settings.service.workers:
                runtime.start_background_worker(self.settings.service.workers)
            threading.Thread(target=self._warm_up, args=(runtime,), name="thea-warm-up", daemon=True).start()
            if self._unclean:
                threading.Thread(
                    target=repair_after_unclean_stop,
                    args=(runtime, started_ms),
                    name="thea-repair",
                    daemon=True,
                ).start()
            threading.Thread(target=self._watch, args=(runtime,), name="thea-watch", daemon=True).start()
            self.ctx = ServiceContext(
                runtime=runtime,
                auth=Authenticator(self.settings),
                settings=self.settings,
                stopping=self.stop_reason,
            )
            log.info("service for %s ready in %.1f s", self.paths.data_dir, time.monotonic() - started)
            return asyncio.run(self._serve())
        except TheaError as exc:
            self.request_stop(StopReason(StopCause.FAILED, str(exc)))
            return self._fail(EXIT_FAILED, exc)
        except BaseException as exc:
            self.request_stop(StopReason(StopCause.FAILED, f"{type(exc).__name__}: {exc}"))
            raise
        finally:
            reason = self.stop_reason.cause.value if self.stop_reason else "unknown cause"
            log.info("service stopping (%s): closing the engines", reason)
            runtime.close()
            with contextlib.suppress(FileNotFoundError):
                self.paths.socket.unlink()
            log.info("service stopped")

    def _loading(self, state: object) -> None:
        """The embedded graph server is loading its data: say what and how far to the commands
        waiting for this start (``service/starting.json``; they show it and wait on)."""
        record = {"pid": os.getpid(), "message": f"the graph store is {state}", "at": time.time()}
        try:
            write_private(self.paths.starting_file, json.dumps(record).encode())
        except OSError as exc:
            log.warning("cannot write %s: %s", self.paths.starting_file, exc)

    def _started(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.paths.starting_file.unlink()

    def _run_maintenance(self, damaged: TheaError) -> int:
        """A derived store cannot be opened: serve check and repair only (everything else gets
        a 503 naming the store) until `thea memory repair` rebuilds it and stops the service."""
        self._started()
        log.warning("a store is damaged (%s): serving check and repair only", damaged)
        try:
            memory, damage = open_for_maintenance(self.settings, fix=False)
        except TheaError as exc:
            return self._fail(EXIT_BACKEND, exc)
        maintenance = Maintenance(memory=memory, damage=damage, reason=str(damaged))
        try:
            self.ctx = ServiceContext(
                runtime=None,
                auth=Authenticator(self.settings),
                settings=self.settings,
                maintenance=maintenance,
                stopping=self.stop_reason,
            )
            return asyncio.run(self._serve())
        finally:
            reason = self.stop_reason.cause.value if self.stop_reason else "unknown cause"
            log.info("maintenance service stopping (%s): closing the stores", reason)
            maintenance.memory.close()
            with contextlib.suppress(FileNotFoundError):
                self.paths.socket.unlink()

    def _fail(self, code: int, exc: TheaError) -> int:
        log.error("service could not start: %s", exc)
        print(f"thea service could not start: {exc}", file=sys.stderr)
        return code

    @staticmethod
    def _warm_up(runtime: Runtime) -> None:
        try:  # the sentence parser first: a statement needs it, and it loads in about a second
            language.warm_up()
        except TheaError as exc:  # the first statement will report it
            log.warning("English pipeline warm-up failed: %s", exc)
        # the answering model first, then the claims model (it read the first statement of a
        # fresh service 38 s after it was said, 5-14 s once loaded)
        for model in (runtime.llm, runtime.claims_model):
            warm = getattr(model, "warm_up", None)
            if warm is None:
                continue
            try:
                warm()
            except TheaError as exc:  # the first request will report it
                log.warning("model warm-up failed: %s", exc)

    def _watch(self, runtime: Runtime) -> None:
        """Every :data:`WATCH_S`: start the graph server child again if it died (``kill -9``,
        OOM; the graph calls do so too, this brings the queue back without one), and stop the
        service, naming why, when its data directory is deleted or replaced under it (it would
        otherwise run on, unreachable: its socket and lock went with the directory)."""
        home = _identity(self.paths.data_dir)
        while self.stop_reason is None:
            time.sleep(WATCH_S)
            if self.stop_reason is not None:
                return
            now = _identity(self.paths.data_dir)
            if now != home:
                what = "deleted" if now is None else "replaced by another directory"
                detail = f"its data directory {self.paths.data_dir} was {what} while it ran"
                print(f"thea service: stopping: {detail}", file=sys.stderr, flush=True)
                self.request_stop(StopReason(StopCause.FAILED, detail))
                return
            try:
                runtime.memory.recover_engines()
            except TheaError as exc:
                log.error("the graph server died and could not be started again: %s", exc)

    # -- serving -----------------------------------------------------------------------

    async def _serve(self) -> int:
        assert self.ctx is not None
        # signals come through serve_with_signals (never loop.add_signal_handler: its wake-up
        # descriptor was inherited by forked helpers, whose signals then stopped the service)
        self._stop = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        if self.stop_reason is not None:  # asked before the loop ran
            self.ctx.stopping = self.stop_reason
            self._stop.set()
        self.ctx.request_stop = self.request_stop
        self.ctx.listen = self.listen
        app = create_app(self.ctx)
        self._app = app
        self._start_server(unix_listener(self.paths.socket), "unix", f"unix:{self.paths.socket}")
        if self.host:
            await self._open_tcp(self.host, self.port)
        for web in recorded(self.paths):  # `thea serve` asked for them before a restart
            try:
                await self._open_tcp(web.host, web.port)
            except TheaError as exc:
                log.warning("cannot serve the web page again on %s:%s: %s", web.host, web.port, exc)
        idle = asyncio.create_task(self._idle_watch())
        await self._stop.wait()
        idle.cancel()
        for server, _ in self._servers:
            server.should_exit = True
        await asyncio.gather(*(task for _, task in self._servers), return_exceptions=True)
        await app.state.mcp.aclose()  # the listeners run without lifespan events
        return EXIT_OK

    def _start_server(self, sock: socket.socket, transport: str, label: str, host: str | None = None) -> None:
        assert self.ctx is not None
        limits = self.settings.service
        config = uvicorn.Config(
            serve_app(self._app, self.ctx, "unix" if transport == "unix" else "tcp", bind_host=host),
            log_level="warning",
            # keep the service's log handlers: uvicorn's own logging config closes them, and a
            # closed file handler reopens by path (which fails once the data dir was deleted)
            log_config=None,
            lifespan="off",
            timeout_graceful_shutdown=30,
            access_log=False,
            # what a connection may cost before it is authenticated (thea.service.connections)
            http=guarded_protocol(limits.header_timeout_s, limits.max_pending_connections),
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
            timeout_keep_alive=KEEP_ALIVE_S,
            limit_concurrency=limits.max_connections,
        )
        server = _Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]), name=f"listener {label}")
        self._servers.append((server, task))
        self.ctx.listening.append(label)

    async def listen(self, host: str, port: int) -> str:
        """Also serve on TCP ``host:port`` (idempotent; ``thea serve``), now and whenever the
        service starts again until it is stopped on purpose (thea.service.web_listeners)."""
        url = await self._open_tcp(host, port)
        if self.stop_reason is None:
            remember(self.paths, WebListener(host=host, port=port))
        return url

    async def _open_tcp(self, host: str, port: int) -> str:
        """Serve on TCP ``host:port`` (idempotent); off loopback only with tokens."""
        assert self.ctx is not None
        url = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
        if url in self.ctx.listening:
            return url
        if host_name(host) not in LOOPBACK and not self.ctx.auth.configured_tokens:
            raise InputError(
                f"refusing to listen on {host} without a token: set THEA_WEB_TOKEN or "
                "THEA_SERVICE__TOKENS__<user>, or listen on 127.0.0.1"
            )
        self._start_server(tcp_listener(host, port), "tcp", url, host)
        log.info("listening on %s", url)
        return url

    def request_stop(self, reason: StopReason) -> None:
        """Stop gracefully for ``reason`` (from any thread); the first reason given is the one."""
        if os.getpid() != self._pid:
            return  # a forked copy of the service: it must not announce the service's stop
        with self._stop_lock:
            first = self.stop_reason is None
            if first:
                self.stop_reason = reason
        if not first:
            log.info("stop requested again (%s) while stopping (%s)", reason, self.stop_reason)
            return
        log.info("stop requested (%s): %s", reason.cause.value, reason.detail)
        if reason.cause in DELIBERATE_STOPS:  # stopped on purpose: no web page when it starts again
            forget_web_listeners(self.paths)
        if self.ctx is not None:
            self.ctx.stopping = reason  # new requests get 503 "stopping" from now on
        try:  # commands that meet the service now wait for it to exit, then start a new one
            ProcessRecord.of(os.getpid(), ServicePaths.MARKER).write(self.paths.stopping_file)
        except OSError as exc:
            log.warning("could not record that the service is stopping: %s", exc)
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already ended
                loop.call_soon_threadsafe(stop.set)

    async def _idle_watch(self) -> None:
        assert self.ctx is not None
        limit = self.settings.service.idle_stop_s
        if not limit:
            return
        while True:
            await asyncio.sleep(min(IDLE_CHECK_S, limit))
            if any(label.startswith("http") for label in self.ctx.listening):
                continue  # serving the web page: stop only when told
            if self.ctx.activity.idle_for() < limit:
                continue
            if await asyncio.to_thread(self._jobs_pending):
                continue
            self.request_stop(StopReason(StopCause.IDLE, f"no request and no queued job for {limit:.0f} s"))
            return

    def _jobs_pending(self) -> bool:
        assert self.ctx is not None
        try:
            if self.ctx.runtime is None:
                return False
            counts = queue_counts(self.ctx.runtime.jobs.connection)
        except Exception:  # the queue is down: nothing the workers could do either
            return False
        return any(c.queued or c.started for c in counts)


def _close_to_others(data_dir: Path) -> None:
    """A data directory an older thea made 0755 is closed to other users at once (nothing in it
    can be reached then); `thea doctor --fix` repairs the modes of what lies inside."""
    try:
        mode = stat.S_IMODE(data_dir.stat().st_mode)
        if mode & 0o077:
            os.chmod(data_dir, DIR_MODE)
            log.warning(
                "the data directory %s was open to other users (%04o): now 0700; "
                "run `thea doctor --fix` to repair the files inside",
                data_dir,
                mode,
            )
    except OSError as exc:
        log.warning("could not make the data directory %s private: %s", data_dir, exc)


def run_service(settings: Settings, *, host: str | None = None, port: int | None = None) -> int:
    """Run the service in this process until it stops; returns the exit code."""
    os.umask(PRIVATE_UMASK)  # everything it and its children create is the user's only
    paths = ServicePaths.of(settings.data_dir)
    private_dir(paths.run_dir)
    _log_to_file(paths, settings.log_level if settings.log_level.upper() != "WARNING" else "INFO")
    _close_to_others(paths.data_dir)
    return ServiceProcess(settings, host=host, port=port).run()
