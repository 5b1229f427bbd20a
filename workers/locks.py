"""Locks that hold across processes (Redis), so two reflections never overlap, and that a
dead holder does not keep.

A :class:`LeaseLock` stores who holds it (:class:`~workers.liveness.ProcessIdentity`) and
lives on a short lease that a heartbeat thread renews while the holder runs. When the
holder dies without releasing it (``kill -9``, a crash, a power cut):

* on the same machine the next taker sees at once that the holder's process is gone and
  takes the lock over;
* on another machine the lease runs out ``lease_s`` after the holder's last heartbeat.

So a lock is never blocked for long by a holder that is gone, while a holder that is alive
keeps it however long its work takes.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator

import redis

from thea.errors import QueueUnavailable, ReflectionBusy
from workers.liveness import ProcessIdentity

log = logging.getLogger(__name__)

#: default lease of a lock: how long a holder that died on another machine keeps it
LEASE_S = 30.0

# compare-and-renew and compare-and-delete: only the holder's exact value counts
_IF_MINE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
_RENEW = _IF_MINE + "return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
_DELETE = _IF_MINE + "return redis.call('del', KEYS[1]) end return 0"


class LeaseLock:
    """One named lock: ``acquire()`` waits up to ``wait_s``; the holder's identity is stored
    with it and its lease renewed every third of ``lease_s`` until ``release()``."""

    def __init__(
        self,
        connection: redis.Redis,
        name: str,
        *,
        lease_s: float = LEASE_S,
        wait_s: float = 30.0,
        poll_s: float = 0.1,
        identity: ProcessIdentity | None = None,
    ) -> None:
        self.connection = connection
        self.name = name
        self.lease_ms = max(1000, int(lease_s * 1000))
        self.wait_s = wait_s
        self.poll_s = poll_s
        self.identity = identity or ProcessIdentity.current()
        self.value = f"{self.identity.token()}|{secrets.token_hex(8)}"
        self.lost = False
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None

    # -- who holds it ------------------------------------------------------------------

    def holder(self) -> tuple[str, ProcessIdentity | None] | None:
        """The current holder's raw value and identity, or None when the lock is free."""
        raw = self.connection.get(self.name)
        if raw is None:
            return None
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        return text, ProcessIdentity.parse(text.partition("|")[0])

    def _take_over_if_dead(self) -> bool:
        held = self.holder()
        if held is None:
            return False
        raw, who = held
        if who is None or who.alive() is not False:
            return False
        if self.connection.eval(_DELETE, 1, self.name, raw):
            log.warning("lock %s: its holder (%s) is gone; taking it over", self.name, who.describe())
            return True
        return False

    # -- acquire / release -------------------------------------------------------------

    def acquire(self) -> bool:
        deadline = time.monotonic() + self.wait_s
        try:
            while True:
                if self.connection.set(self.name, self.value, nx=True, px=self.lease_ms):
                    self._start_heartbeat()
                    return True
                if self._take_over_if_dead():
                    continue
                if time.monotonic() >= deadline:
                    return False
                time.sleep(self.poll_s)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc

    def _start_heartbeat(self) -> None:
        self.lost = False
        self._stop.clear()
        self._heartbeat = threading.Thread(target=self._renew, name=f"lease:{self.name}", daemon=True)
        self._heartbeat.start()

    def _renew(self) -> None:
        every = self.lease_ms / 3000
        while not self._stop.wait(every):
            try:
                if not self.connection.eval(_RENEW, 1, self.name, self.value, self.lease_ms):
                    self.lost = True
                    log.error("lock %s was lost (its lease ran out or it was taken over)", self.name)
                    return
            except (redis.RedisError, OSError) as exc:  # keep trying while the lease lasts
                log.warning("lock %s: could not renew its lease: %s", self.name, exc)

    def release(self) -> None:
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join(5)
            self._heartbeat = None
        try:
            released = self.connection.eval(_DELETE, 1, self.name, self.value)
        except (redis.RedisError, OSError) as exc:
            log.warning("lock %s: could not release it (its lease will run out): %s", self.name, exc)
            return
        if not released:
            log.warning("lock %s had already been lost before release", self.name)

    def busy_detail(self) -> str:
        """Who holds the lock, in words, for a 'busy' message."""
        try:
            held = self.holder()
        except (redis.RedisError, OSError):
            return ""
        who = held[1] if held else None
        return f" ({who.describe()})" if who else ""


def reflection_lock(
    connection: redis.Redis, *, lease_s: float = LEASE_S, wait_s: float = 30.0
) -> Callable[[str], contextlib.AbstractContextManager[object]]:
    """A factory of per-user locks: waits up to ``wait_s`` for a running reflection, then gives
    up with :class:`ReflectionBusy`; a holder that died loses the lock at once (same machine)
    or after ``lease_s`` (another machine)."""

    @contextlib.contextmanager
    def lock(user_id: str) -> Iterator[object]:
        handle = LeaseLock(connection, f"thea:lock:reflect:{user_id}", lease_s=lease_s, wait_s=wait_s)
        if not handle.acquire():
            raise ReflectionBusy(
                f"a reflection for {user_id} is already running{handle.busy_detail()}; "
                f"gave up after waiting {wait_s:.0f} s, try again when it finishes"
            )
        try:
            yield handle
        finally:
            handle.release()

    return lock
