"""The slow loop's queue on the real embedded redis-server: a job is queued once however often a
cycle hands it over (a retried hand-off must not crystallize an impulse twice)."""

from __future__ import annotations

from rq import Queue

from thea.runtime import Runtime
from workers.queues import CRYSTALLIZE


def test_handing_the_same_crystallize_job_over_twice_queues_it_once(runtime: Runtime) -> None:
    runtime.jobs.enqueue_crystallize("imp-1", "ana", "s1")
    runtime.jobs.enqueue_crystallize("imp-1", "ana", "s1")  # e.g. a retried hand-off
    runtime.jobs.enqueue_crystallize("imp-2", "ana", "s1")
    queue = Queue(CRYSTALLIZE, connection=runtime.jobs.connection)
    assert sorted(queue.job_ids) == ["crystallize-imp-1", "crystallize-imp-2"]
