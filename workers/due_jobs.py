"""RQ's scheduler duty, run in a thread of the worker's own process: nothing is ever forked.

Jobs that are due later wait in their queue's ``ScheduledJobRegistry``: a failed job's retry
with backoff (``Retry(interval=...)``, :func:`workers.queues.retry_policy`) goes there. RQ's
*scheduler* moves each one back onto its queue when its time has come. RQ's worker runs that
scheduler in a **forked copy of its process** (``work(with_scheduler=True)``: at once when not
in burst mode, and from the worker's maintenance once a burst outlasts the maintenance
interval) and ends it with SIGTERM. Inside the thea service that copy shared the service's
asyncio signal wake-up descriptor, so the SIGTERM meant for the copy stopped the service
(issue 22). thea's workers therefore never let RQ start its scheduler: :class:`DueJobs` does
the same duty (RQ's own per-queue scheduler lock, so one process moves a queue's jobs at a
time, and RQ's own ``enqueue_scheduled_jobs``) in the caller's thread or in a daemon thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence

import redis
from rq.scheduler import RQScheduler

log = logging.getLogger(__name__)

#: how often the scheduler thread moves due jobs (RQ's scheduler: every second)
DUE_JOBS_EVERY_S = 1.0


class DueJobs:
    """Moves the queues' due scheduled jobs (retries with backoff) back onto their queues."""

    def __init__(
        self, connection: redis.Redis, queues: Sequence[str], *, every_s: float = DUE_JOBS_EVERY_S
    ) -> None:
        self.every_s = every_s
        self.queue_names = list(queues)
        # RQ's scheduler object for its lock and its move of due jobs; its start(), which forks,
        # is never called. The lock lives interval + 60 s when its holder dies without releasing.
        self._scheduler = RQScheduler(
            self.queue_names, connection=connection, interval=1, logging_level="WARNING"
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: how many passes held at least one queue's lock (tests and diagnostics)
        self.passes = 0

    def move_once(self) -> bool:
        """One pass: take the scheduler lock of every queue no other scheduler holds, move the
        jobs whose time has come, release the locks. False when another scheduler held all."""
        with self._lock:
            scheduler = self._scheduler
            scheduler.acquire_locks()  # type: ignore[no-untyped-call]
            if not scheduler.acquired_locks:
                return False
            try:
                scheduler.enqueue_scheduled_jobs()  # type: ignore[no-untyped-call]
                self.passes += 1
            finally:
                scheduler.release_locks()  # type: ignore[no-untyped-call]
            return True

    def _tick(self) -> None:
        try:
            self.move_once()
        except (redis.RedisError, OSError) as exc:  # the queue is down: try again next time
            log.warning("could not move due scheduled jobs: %s", exc)

    def _loop(self) -> None:
        self._tick()
        while not self._stop.wait(self.every_s):
            self._tick()

    def start(self, name: str = "thea-due-jobs") -> DueJobs:
        """Move due jobs every ``every_s`` in a daemon thread of this process until :meth:`stop`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
            self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout_s)
        with contextlib.suppress(redis.RedisError, OSError):
            self._scheduler.release_locks()  # type: ignore[no-untyped-call]
