"""Running RQ workers: a foreground worker (``thea worker``) and a background one
inside the embedded chat, so crystallization needs no second terminal.

Workers are RQ ``SimpleWorker``s (no fork per job): the job context (memory,
model) is built once per process, and the embedded vector store can only be
open in one process. Scale out by running more worker processes (server profile).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

import redis
from rq import Queue, SimpleWorker
from rq.timeouts import TimerDeathPenalty

from workers.queues import ALL_QUEUES

log = logging.getLogger(__name__)


class ThreadWorker(SimpleWorker):
    """A SimpleWorker that can run outside the main thread: no signal handlers, and
    job timeouts enforced by a timer thread instead of SIGALRM."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        return None


def make_worker(
    connection: redis.Redis, queues: Sequence[str] = ALL_QUEUES, *, threaded: bool = False
) -> SimpleWorker:
    cls = ThreadWorker if threaded else SimpleWorker
    return cls([Queue(q, connection=connection) for q in queues], connection=connection)


def run_burst(connection: redis.Redis, queues: Sequence[str] = ALL_QUEUES, *, threaded: bool = True) -> bool:
    """Process everything queued now (and due retries), then return."""
    worker = make_worker(connection, queues, threaded=threaded)
    return bool(worker.work(burst=True, with_scheduler=True, logging_level="WARNING"))


class BackgroundWorker:
    """Polls the queues in a daemon thread until stopped."""

    def __init__(
        self,
        connection: redis.Redis,
        queues: Sequence[str] = ALL_QUEUES,
        poll_s: float = 0.5,
        *,
        when_idle: Callable[[], object] | None = None,
        idle_every_s: float = 60.0,
    ) -> None:
        self.connection = connection
        self.queues = list(queues)
        self.poll_s = poll_s
        self.when_idle = when_idle
        self.idle_every_s = idle_every_s
        self._last_idle_task = time.monotonic()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="thea-worker", daemon=True)

    def start(self) -> BackgroundWorker:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._idle.clear()
            worked = True
            try:
                worked = run_burst(self.connection, self.queues)
            except Exception as exc:  # keep the chat alive whatever a job does
                log.warning("background worker: %s", exc)
            if not worked:
                self._idle_task()
            self._idle.set()
            self._stop.wait(self.poll_s)

    def _idle_task(self) -> None:
        """Maintenance (e.g. building the vector index) when no job was waiting, now and then."""
        if self.when_idle is None or time.monotonic() - self._last_idle_task < self.idle_every_s:
            return
        self._last_idle_task = time.monotonic()
        try:
            self.when_idle()
        except Exception as exc:
            log.warning("background maintenance failed: %s", exc)

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Wait until a pass over the queues finished after this call."""
        self._idle.clear()
        return self._idle.wait(timeout_s)

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
