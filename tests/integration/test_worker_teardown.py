"""A worker's burst ends when its queues are empty, not a minute later (CI failures of
``test_due_jobs`` and ``test_background_worker``, and 60 s tests in the default run).

RQ subscribes each worker to a command channel read by a thread that waits 60 s for a message;
its teardown unsubscribes, then stops that thread and (redis-py 8) waits for it. When the
thread read the unsubscribe reply before it was told to stop, it waited out its 60 s on a
channel it no longer had. The race is forced here: the stop comes late, as on a loaded machine.
"""

from __future__ import annotations

import time

import pytest
import redis
from redis.client import PubSubWorkerThread

from workers.worker import make_worker

#: the burst of an empty queue ends well within this (before: 60 s and more)
PROMPT_S = 10.0


@pytest.fixture
def late_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command thread is told to stop only after it read the unsubscribe reply."""
    original = PubSubWorkerThread.stop

    def stop(self: PubSubWorkerThread, timeout: float | None = None) -> None:
        time.sleep(0.5)
        original(self, timeout)

    monkeypatch.setattr(PubSubWorkerThread, "stop", stop)


@pytest.mark.parametrize("threaded", [True, False], ids=["service-thread-worker", "thea-worker"])
@pytest.mark.usefixtures("late_stop")
def test_a_burst_over_empty_queues_ends_promptly(redis_connection: redis.Redis, threaded: bool) -> None:
    worker = make_worker(redis_connection, threaded=threaded)
    started = time.monotonic()
    worker.work(burst=True, logging_level="WARNING")
    assert time.monotonic() - started < PROMPT_S
