"""The slow loop's workers move due scheduled jobs (retries with backoff) themselves, in
threads of their own process, and never fork (issue 22, item 1).

RQ's worker runs its scheduler in a forked copy of the process, started from its maintenance
once a burst outlasts the maintenance interval, and ends it with SIGTERM; in the thea service
that copy shared the service's signal wake-up descriptor, and the SIGTERM stopped the service.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from rq import Queue, Retry

import workers.worker
from thea.memory.embedded_server import EmbeddedFalkorDB
from workers.due_jobs import DueJobs
from workers.queues import CRYSTALLIZE, DISTILL
from workers.worker import BackgroundWorker, make_worker, run_burst

#: what the jobs below did, in order
RUNS: list[str] = []
#: how often :func:`_flaky_job` was called, per key
ATTEMPTS: dict[str, list[float]] = {}


def _busy_job(name: str, seconds: float) -> None:
    time.sleep(seconds)
    RUNS.append(name)


def _flaky_job(key: str) -> str:
    """Fails on its first call, succeeds on the next."""
    ATTEMPTS.setdefault(key, []).append(time.monotonic())
    if len(ATTEMPTS[key]) == 1:
        raise RuntimeError("the first attempt fails")
    RUNS.append(key)
    return "done"


@pytest.fixture
def connection(tmp_path: Path) -> Iterator[redis.Redis]:
    server = EmbeddedFalkorDB(tmp_path / "graph").start()
    RUNS.clear()
    ATTEMPTS.clear()
    try:
        yield server.client()
    finally:
        server.stop()


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every fork of this process from now on (refused: the test process must not be copied)."""
    seen: list[int] = []

    def refused() -> int:
        seen.append(threading.get_ident())
        raise OSError("a worker forked the process")

    monkeypatch.setattr(os, "fork", refused)
    return seen


def test_a_burst_longer_than_the_maintenance_interval_forks_nothing_and_still_moves_due_jobs(
    connection: redis.Redis, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: RQ's maintenance during the burst forked its scheduler (and the burst died on the
    refused fork here). Now the maintenance moves due jobs in-process: a job scheduled for
    0.5 s into a 1.2 s burst runs in the same burst."""
    monkeypatch.setattr(workers.worker, "MAINTENANCE_S", 0.2)
    queue = Queue(CRYSTALLIZE, connection=connection)
    for i in range(4):
        queue.enqueue(_busy_job, f"busy-{i}", 0.3)
    Queue(DISTILL, connection=connection).enqueue_in(timedelta(seconds=0.5), _busy_job, "due-later", 0.0)

    assert run_burst(connection)

    assert forks == []
    assert sorted(RUNS) == ["busy-0", "busy-1", "busy-2", "busy-3", "due-later"]


def test_a_long_running_worker_moves_due_jobs_in_a_thread_not_a_forked_process(
    connection: redis.Redis, forks: list[int]
) -> None:
    """``thea worker`` (server profile): RQ started its scheduler process at once."""
    worker = make_worker(connection, threaded=True)
    Queue(DISTILL, connection=connection).enqueue_in(timedelta(seconds=0.3), _busy_job, "due-later", 0.0)
    kwargs = {"with_scheduler": True, "max_idle_time": 3}  # returns after 3 s without a job
    runner = threading.Thread(target=worker.work, kwargs=kwargs, daemon=True)
    runner.start()
    deadline = time.monotonic() + 10
    while "due-later" not in RUNS and time.monotonic() < deadline:
        time.sleep(0.05)
    assert RUNS == ["due-later"]
    assert worker.scheduler is None
    assert worker.due_jobs is not None
    assert worker.due_jobs.running
    runner.join(15)
    assert not runner.is_alive()
    assert forks == []
    assert worker.due_jobs is not None
    assert not worker.due_jobs.running


def test_the_service_worker_retries_a_failed_job_after_its_backoff(
    connection: redis.Redis, forks: list[int]
) -> None:
    Queue(CRYSTALLIZE, connection=connection).enqueue(_flaky_job, "flaky", retry=Retry(max=2, interval=1))
    worker = BackgroundWorker(connection, poll_s=0.05).start()
    try:
        deadline = time.monotonic() + 15
        while "flaky" not in RUNS and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        worker.stop()
    assert RUNS == ["flaky"]
    first, second = ATTEMPTS["flaky"]
    assert 0.9 < second - first < 5.0  # the backoff, then moved within about a second
    assert forks == []
    assert worker.due_jobs.passes > 0
    assert not worker.due_jobs.running


def test_one_queue_is_moved_by_one_process_at_a_time(connection: redis.Redis) -> None:
    """Two schedulers (two worker processes of the server profile) share RQ's per-queue lock."""
    first = DueJobs(connection, [CRYSTALLIZE])
    second = DueJobs(connection, [CRYSTALLIZE])
    first._scheduler.acquire_locks()  # held, as during a pass of the other process
    try:
        assert second.move_once() is False
    finally:
        first._scheduler.release_locks()
    assert second.move_once() is True


def test_a_thread_worker_never_waits_minutes_for_one_reply_from_redis(connection: redis.Redis) -> None:
    """The service's slow loop runs thread workers: RQ raised their socket timeout to 415 s, and
    one lost reply stalled every background job for that long, per retry."""
    from workers.worker import worker_connection

    own = worker_connection(connection)
    make_worker(own, threaded=True)
    assert own.connection_pool.connection_kwargs["socket_timeout"] <= 30
    long_running = worker_connection(connection)
    make_worker(long_running, threaded=False)  # `thea worker` blocks on the queues for minutes
    assert long_running.connection_pool.connection_kwargs["socket_timeout"] > 400
