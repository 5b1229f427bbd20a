"""Locks that hold across processes (Redis), so two reflections never overlap."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

import redis
from redis.exceptions import LockError

from thea.errors import QueueUnavailable, ReflectionBusy

log = logging.getLogger(__name__)


def reflection_lock(
    connection: redis.Redis, *, hold_s: float = 900.0, wait_s: float = 30.0
) -> Callable[[str], contextlib.AbstractContextManager[object]]:
    """A factory of per-user locks: waits up to ``wait_s`` for a running reflection,
    then gives up with :class:`ReflectionBusy`. ``hold_s`` bounds a crashed holder."""

    @contextlib.contextmanager
    def lock(user_id: str) -> Iterator[object]:
        handle = connection.lock(f"thea:lock:reflect:{user_id}", timeout=hold_s, blocking_timeout=wait_s)
        try:
            acquired = handle.acquire()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        if not acquired:
            raise ReflectionBusy(f"a reflection for {user_id} is already running; try again later")
        try:
            yield handle
        finally:
            try:
                handle.release()
            except LockError:
                log.warning("reflection lock for %s expired before release", user_id)

    return lock
