"""Finding, starting and stopping the local thea service of a data directory.

``ensure_service`` is what every local command calls first. It is race-free: starters
serialise on ``service/start.lock`` (flock), and the service itself holds
``service/service.lock`` for its whole life, so N commands started together end with exactly
one service. The service is started detached, in a session of its own: a terminal's Ctrl-C
never reaches it or its children. Before a signal is ever sent to a recorded pid, the record
is verified (same start time, the service marker in its command line).

A service on its way out (stopped, idle, after a maintenance-mode repair) still holds its lock
until it has closed the engines; it says so in ``service/stopping.json``. A command that meets
it waits for it to exit (at most :data:`STOPPING_WAIT_S`) and starts a new one: the lock is
looked at again on every poll, never only once (before, such a command started nothing and
waited out the whole start timeout, 120 s, for a service that was not coming).

A service whose start waits for an engine (the embedded graph server loading a large AOF) says
what it waits for in ``service/starting.json`` every few seconds; a command waiting for it
shows that ("the graph store is loading 13.2 MB (40% done)") and waits as long as it moves on,
not only the start timeout.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path

import httpx

from thea.api import PREFIX
from thea.api.paths import HEALTH, SERVICE_STOP
from thea.client.errors import ServiceUnavailable
from thea.config import Settings, settings_json
from thea.locations import ServicePaths
from thea.private_files import PRIVATE_UMASK, open_private, private_dir
from thea.proc import ProcessRecord, alive, signal_if_alive
from thea.storage import prepare_data_dir, require_writable

LOCAL_BASE_URL = "http://thea.local"
_POLL_S = 0.05
#: how long a command waits for a service on its way out to exit before it gives up (a stop
#: lets running answers finish and the running slow-loop job end; ``thea service stop``
#: SIGKILLs a service still there after 60 s)
STOPPING_WAIT_S = 60.0
#: a starting service's report older than this is stale (the graph server reports its load every
#: 5 s and gives up after 60 s without progress)
STARTING_FRESH_S = 75.0

#: how many times a command starts a service that a signal killed while it started (a kill -9, the
#: OOM killer) before it gives up; a service that fails by itself is not started again
START_ATTEMPTS = 3

#: told what a starting service is waiting for (a line for the user), each time it changes
StatusFn = Callable[[str], None]


def probe(paths: ServicePaths, timeout_s: float = 2.0) -> bool:
    """True when a service answers on this data directory's socket."""
    if not paths.socket.exists():
        return False
    transport = httpx.HTTPTransport(uds=str(paths.socket))
    try:
        with httpx.Client(transport=transport, base_url=LOCAL_BASE_URL, timeout=timeout_s) as client:
            return client.get(PREFIX + HEALTH).status_code == 200
    except httpx.HTTPError:
        return False


def running_record(paths: ServicePaths) -> ProcessRecord | None:
    """The running service's verified pid record, or None."""
    record = ProcessRecord.read(paths.pid_file)
    return record if record is not None and alive(record) else None


def stopping_record(paths: ServicePaths) -> ProcessRecord | None:
    """The verified record of this directory's service when it is on its way out, or None."""
    record = ProcessRecord.read(paths.stopping_file)
    return record if record is not None and alive(record) else None


def _lock_free(path: Path) -> bool:
    """Whether nobody holds the service lock (no service process is alive for the directory)."""
    if not path.exists():
        return True
    with os.fdopen(open_private(path, os.O_RDWR), "r+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


@contextlib.contextmanager
def _start_lock(path: Path, timeout_s: float) -> Iterator[None]:
    with os.fdopen(open_private(path, os.O_RDWR), "r+") as handle:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ServiceUnavailable(
                        f"another command has been starting the service for {timeout_s:.0f} s"
                    ) from None
                time.sleep(_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _prepare(paths: ServicePaths) -> None:
    """The data dir must exist and be writable (a file, a read-only or a foreign directory
    gets thea.storage's one-line StorageError before anything else is tried)."""
    prepare_data_dir(paths.data_dir)
    try:
        private_dir(paths.run_dir)
        require_writable(paths.run_dir)
    except OSError as exc:
        raise ServiceUnavailable(
            f"cannot use the data directory {paths.data_dir}: {exc.strerror or exc}"
        ) from exc


def service_holds(paths: ServicePaths) -> bool:
    """Whether a service process holds the data directory (running, starting or stopping)."""
    return not _lock_free(paths.lock)


def spawn_web_keeper(settings: Settings) -> None:
    """Start the web keeper of the data directory (thea.service.keeper; at most one runs), which
    starts the service again when it went away while it served the web page."""
    paths = ServicePaths.of(settings.data_dir)
    _prepare(paths)
    _KEEPERS.append(_spawn(settings, paths, "keep"))  # held: it outlives this command, detached


#: the keepers this process started (referenced, so no "still running" warning at exit)
_KEEPERS: list[subprocess.Popen[bytes]] = []


def _spawn(settings: Settings, paths: ServicePaths, command_name: str = "run") -> subprocess.Popen[bytes]:
    """Start the service (or its web keeper) with exactly this command's settings (handed over
    in a 0600 file the child reads and deletes), detached from the terminal."""
    handover = paths.run_dir / f"settings-{command_name}-{os.getpid()}.json"
    with os.fdopen(open_private(handover, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as out:
        out.write(settings_json(settings.model_copy(update={"data_dir": paths.data_dir})))
    command = [sys.executable, "-m", "thea.service", command_name, "--settings-file", str(handover)]
    stderr = os.fdopen(open_private(paths.run_dir / "stderr.log", os.O_WRONLY | os.O_APPEND), "ab")
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
            start_new_session=True,  # its own session: the terminal's Ctrl-C never reaches it
            close_fds=True,
            umask=PRIVATE_UMASK,  # the data dir is private: its files 0600 (thea.private_files)
        )
    finally:
        stderr.close()


def _why_it_stopped(paths: ServicePaths) -> str:
    for name in ("stderr.log",):
        try:
            lines = (paths.run_dir / name).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(lines):
            if "could not start" in line or line.startswith("thea service:"):
                return line.split(":", 1)[1].strip() if ":" in line else line
    return f"see {paths.log_file}"


def starting_status(paths: ServicePaths) -> str | None:
    """What a starting service of the data directory waits for (fresh reports only), or None."""
    try:
        record = json.loads(paths.starting_file.read_text(encoding="utf-8"))
        if time.time() - float(record["at"]) > STARTING_FRESH_S:
            return None
        return str(record["message"]) or None
    except (OSError, ValueError, TypeError, KeyError):
        return None


def ensure_service(
    settings: Settings,
    *,
    on_wait: Callable[[], None] | None = None,
    on_status: StatusFn | None = None,
) -> ServicePaths:
    """Make sure the data directory's service answers (start it if needed); return its paths.
    ``on_wait`` is called once a start is waited for, ``on_status`` with what it waits for."""
    paths = ServicePaths.of(settings.data_dir)
    if probe(paths):
        return paths
    _prepare(paths)
    timeout = settings.service.start_timeout_s
    with _start_lock(paths.start_lock, timeout + STOPPING_WAIT_S):
        if probe(paths):
            return paths
        if on_wait is not None:
            on_wait()
        return _start_and_wait(settings, paths, timeout, on_status)


def _start_and_wait(
    settings: Settings, paths: ServicePaths, timeout: float, on_status: StatusFn | None = None
) -> ServicePaths:
    """Start a service whenever none holds the directory, and wait until one answers: one that
    is starting for up to ``timeout`` (longer while it reports progress of a load), one on its
    way out for up to :data:`STOPPING_WAIT_S` (then a new one is started once it has exited)."""
    wait = _StartWait(settings, paths, timeout, on_status)
    while True:
        if probe(paths, timeout_s=1.0):
            return paths
        now = time.monotonic()
        wait.follow_load(now)
        if now > wait.give_up:
            raise ServiceUnavailable(
                f"no service answered within {wait.give_up - wait.deadline + timeout:.0f} s"
            )
        if wait.tend_child(now):
            continue
        wait.wait_for_leaving(now)
        time.sleep(_POLL_S)


class _StartWait:
    """The state of one wait for a service: the service this command started (if any), how
    often, until when it waits, and what a starting service last reported."""

    def __init__(
        self, settings: Settings, paths: ServicePaths, timeout: float, on_status: StatusFn | None
    ) -> None:
        self.settings, self.paths, self.timeout, self.on_status = settings, paths, timeout, on_status
        self.child: subprocess.Popen[bytes] | None = None
        self.deadline = time.monotonic() + timeout
        self.give_up = self.deadline + STOPPING_WAIT_S  # whatever happens, a bounded wait
        self.leaving_since: float | None = None
        self.told: str | None = None
        self.spawned = 0

    def follow_load(self, now: float) -> None:
        """A load that moves on is waited for as long as it does (and told once per report)."""
        status = starting_status(self.paths)
        if status is None:
            return
        self.deadline = max(self.deadline, now + self.timeout)
        self.give_up = max(self.give_up, self.deadline + STOPPING_WAIT_S)
        if status != self.told and self.on_status is not None:
            self.on_status(status)
        self.told = status

    def tend_child(self, now: float) -> bool:
        """Start a service when nobody holds the directory (any more); True when the service
        this command started has just ended and the wait looks again at once."""
        if self.child is None and _lock_free(self.paths.lock):
            self.child = _spawn(self.settings, self.paths)
            self.spawned += 1
            self.deadline, self.leaving_since = now + self.timeout, None
            return False
        if self.child is None or self.child.poll() is None:
            return False
        code = self.child.returncode
        self.child = None
        if code < 0 and self.spawned < START_ATTEMPTS:
            return True  # killed by a signal while it started (not a failure of its own): again
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            raise ServiceUnavailable(
                f"it was killed by {name} while starting, {self.spawned} times (log: {self.paths.log_file})"
            )
        if code != 0:
            raise ServiceUnavailable(f"it could not start: {_why_it_stopped(self.paths)}")
        return True  # "already running": another process holds the directory; wait for it

    def wait_for_leaving(self, now: float) -> None:
        """A service on its way out is waited for (then a new one starts); otherwise the wait
        ends at its deadline."""
        leaving = stopping_record(self.paths) if self.child is None else None
        if leaving is None:
            if now > self.deadline:
                raise ServiceUnavailable(
                    f"it did not answer within {self.timeout:.0f} s (log: {self.paths.log_file})"
                )
            return
        self.leaving_since = now if self.leaving_since is None else self.leaving_since
        if now - self.leaving_since > STOPPING_WAIT_S:
            raise ServiceUnavailable(
                f"the service (pid {leaving.pid}) has been stopping for more than "
                f"{STOPPING_WAIT_S:.0f} s; `thea service stop` ends it (log: {self.paths.log_file})"
            )
        self.deadline = max(self.deadline, now + self.timeout)


class StopOutcome(StrEnum):
    """What ``thea service stop`` found and did."""

    STOPPED = "stopped"  # it ended by itself (engines closed) within the wait
    NOT_RUNNING = "not running"
    KILLED = "killed"  # it did not end within the wait and was SIGKILLed; it is gone now
    STILL_RUNNING = "still running"  # not even SIGKILL ended it (or it is not ours to signal)


def stop_service(settings: Settings, *, timeout_s: float = 60.0) -> StopOutcome:
    """Stop the data directory's service and say how it ended (a stop lets running requests
    end at their next safe point: an import at its next batch)."""
    paths = ServicePaths.of(settings.data_dir)
    record = running_record(paths)
    if record is None and not probe(paths):
        return StopOutcome.NOT_RUNNING
    asked = False
    if probe(paths):
        transport = httpx.HTTPTransport(uds=str(paths.socket))
        with (
            contextlib.suppress(httpx.HTTPError),
            httpx.Client(transport=transport, base_url=LOCAL_BASE_URL, timeout=5) as client,
        ):
            asked = client.post(PREFIX + SERVICE_STOP).status_code == 200
    if not asked and record is not None:
        signal_if_alive(record, signal.SIGTERM)

    def gone() -> bool:
        return _lock_free(paths.lock) and (record is None or not alive(record))

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if gone():
            return StopOutcome.STOPPED
        time.sleep(_POLL_S)
    if record is not None and signal_if_alive(record, signal.SIGKILL):
        killed_by = time.monotonic() + 5.0
        while time.monotonic() < killed_by:
            if gone():
                return StopOutcome.KILLED
            time.sleep(_POLL_S)
    return StopOutcome.STILL_RUNNING


def service_pid(settings: Settings) -> int | None:
    record = running_record(ServicePaths.of(settings.data_dir))
    return record.pid if record else None
