"""The service's in-process slow-loop worker stops between jobs: a shutdown never waits out a
backlog, and what is still queued stays queued for the next worker."""

from __future__ import annotations

import time
from pathlib import Path

from rq import Queue

from thea.memory.embedded_server import EmbeddedFalkorDB
from workers.queues import CRYSTALLIZE
from workers.worker import BackgroundWorker

#: when each :func:`_busy_job` finished
JOB_RUNS: list[float] = []


def _busy_job(seconds: float) -> None:
    time.sleep(seconds)
    JOB_RUNS.append(time.monotonic())


def test_a_stopped_worker_leaves_its_backlog_queued_after_the_running_job(tmp_path: Path) -> None:
    """Before: a backlog was one burst, so stop() waited out its 30 s while the worker went on
    through every queued job, then kept retrying a store that had been closed under it."""
    server = EmbeddedFalkorDB(tmp_path / "graph").start()
    connection = server.client()
    queue = Queue(CRYSTALLIZE, connection=connection)
    JOB_RUNS.clear()
    for _ in range(20):
        queue.enqueue(_busy_job, 0.4)
    worker = BackgroundWorker(connection, poll_s=0.05).start()
    try:
        deadline = time.monotonic() + 20
        while not JOB_RUNS and time.monotonic() < deadline:
            time.sleep(0.02)
        assert JOB_RUNS, "the worker never ran a job"
        asked = time.monotonic()
        worker.stop()
        assert time.monotonic() - asked < 2.0  # the running job, not the backlog
        done = len(JOB_RUNS)
        assert done < 5
        assert queue.count == 20 - done  # the rest is still queued for the next worker
        time.sleep(1.0)
        assert len(JOB_RUNS) == done  # nothing ran after the stop
    finally:
        server.stop()
