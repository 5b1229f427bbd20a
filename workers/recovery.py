"""Jobs whose worker died mid-run: found and handed back to RQ within a bounded time.

RQ keeps a running job in its queue's *started* registry, scored with the time its
execution expires; whoever cleans the registry (``StartedJobRegistry.cleanup``) retries a
job whose time has passed (or fails it, "AbandonedJobError", when no retry is left). Out
of the box that time is the job timeout plus 60 s for thea's in-process workers, and the
clean-up runs every 10 minutes, so a job killed with its worker showed "running" for up to
16 minutes. thea's workers (``workers.worker``) shorten both:

* the entry's lease is :data:`JOB_LEASE_S` and a heartbeat thread renews it every
  :data:`JOB_HEARTBEAT_S` while the job runs (a live job keeps it however long it takes);
* the worker's name records its process, so an entry whose worker process is gone on
  this machine is expired at once by :func:`recover_abandoned_jobs`;
* that function runs in every worker's maintenance round (each poll of the background
  worker, every :data:`MAINTENANCE_S` for ``thea worker``) and in ``thea jobs``.

Bound: a job whose worker died is requeued by the next maintenance round or ``thea jobs``
after the death (worker on this machine), or :data:`JOB_LEASE_S` after its last heartbeat
(worker on another machine).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import redis
from rq import Queue
from rq.job import JobStatus
from rq.registry import StartedJobRegistry

from thea.errors import QueueUnavailable
from workers.liveness import identity_of_worker
from workers.queues import ALL_QUEUES

log = logging.getLogger(__name__)

#: lease of a running job's entry in the started registry (seconds)
JOB_LEASE_S = 60
#: how often a running job's worker renews that lease (seconds)
JOB_HEARTBEAT_S = 10
#: how often a long-running ``thea worker`` cleans the registries (seconds; RQ's default is 600)
MAINTENANCE_S = 30


def _texts(values: Sequence[object]) -> list[str]:
    """Sorted-set members as text (a client may give them as bytes)."""
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def _dead_entries(connection: redis.Redis, registry: StartedJobRegistry) -> list[str]:
    entries = _texts(connection.zrange(registry.key, 0, -1))
    if not entries:
        return []
    with connection.pipeline(transaction=False) as pipe:
        for entry in entries:
            pipe.hget(f"rq:execution:{entry}", "worker_name")
        workers = pipe.execute()
    dead = []
    for entry, name in zip(entries, workers, strict=True):
        who = identity_of_worker(name)
        if who is not None and who.alive() is False:
            dead.append(entry)
    return dead


def _requeue_never_started(
    connection: redis.Redis, registry: StartedJobRegistry, queue: Queue, expired: Sequence[str]
) -> None:
    """Expired entries whose job never reached "started" are put back in the queue here.

    An RQ worker enters a job in the started registry and marks the job started in two
    steps; one killed between them leaves an entry whose job is still "queued" (and sits in
    the queue's intermediate list). RQ's clean-up skips such a job and drops its entry, so
    the job would be neither queued nor failed: it goes back to the front of its queue.
    """
    for entry in expired:
        job_id = registry.parse_job_id(entry)
        job = queue.fetch_job(job_id)
        if job is None or job.get_status(refresh=False) != JobStatus.QUEUED:
            continue
        with connection.pipeline() as pipe:
            pipe.zrem(registry.key, entry)
            pipe.lrem(queue.intermediate_queue_key, 0, job_id)
            pipe.lrem(queue.key, 0, job_id)  # never twice in the queue
            queue.push_job_id(job_id, pipeline=pipe, at_front=True)
            pipe.execute()
        log.warning("%s: job %s (its worker died before starting it) queued again", queue.name, job_id)


def recover_abandoned_jobs(connection: redis.Redis, queues: Sequence[str] = ALL_QUEUES) -> list[str]:
    """Hand jobs whose worker is gone back to RQ (retried, or failed when no retry is left).

    Returns the ids of the jobs found abandoned now (by a dead local worker or an expired lease).
    """
    recovered: list[str] = []
    try:
        for name in queues:
            registry = StartedJobRegistry(name, connection=connection)
            dead = _dead_entries(connection, registry)
            if dead:  # expire them now; RQ's clean-up does the rest
                connection.zadd(registry.key, dict.fromkeys(dead, 0), xx=True)
            expired = _texts(connection.zrangebyscore(registry.key, 0, time.time()))
            if expired:
                jobs = [registry.parse_job_id(entry) for entry in expired]
                _requeue_never_started(connection, registry, Queue(name, connection=connection), expired)
                registry.cleanup()
                log.warning(
                    "%s: %d job(s) abandoned by their worker, retried or failed: %s", name, len(jobs), jobs
                )
                recovered += jobs
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise QueueUnavailable(str(exc)) from exc
    return recovered
