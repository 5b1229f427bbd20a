"""``thea jobs`` (and every wait for the slow loop) counts a job a worker has just taken off its
queue as running: RQ moves it to the queue's intermediate list before it registers it as
started, and in that moment the queue looked idle (a client saw "nothing to do" while the last
crystallization was about to run; CI failed on it)."""

from __future__ import annotations

from rq import Queue

from thea.runtime import Runtime
from workers.admin import backlog, queue_counts

QUEUE = "thea-test-counts"


def test_a_job_taken_off_its_queue_but_not_yet_started_counts_as_running(runtime: Runtime) -> None:
    connection = runtime.jobs.connection
    queue = Queue(QUEUE, connection=connection)
    for n in range(2):
        queue.enqueue_call("workers.jobs.crystallize", args=(f"i{n}", "ana"), job_id=f"counts-{n}")
    connection.lmove(queue.key, queue.intermediate_queue.key)  # what a worker's dequeue does first

    (counts,) = queue_counts(connection, [QUEUE])
    assert (counts.queued, counts.started) == (1, 1)
    assert backlog(connection, workers=1, queues=[QUEUE]).jobs == 2

    connection.lmove(queue.key, queue.intermediate_queue.key)
    (counts,) = queue_counts(connection, [QUEUE])
    assert (counts.queued, counts.started, counts.scheduled) == (0, 2, 0), "the queue looked idle"
