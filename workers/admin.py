"""Looking after the queues: counts, failed jobs with their reasons, retries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import redis
from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

from thea.errors import NotFoundError
from workers.queues import ALL_QUEUES


@dataclass(frozen=True)
class QueueCounts:
    name: str
    queued: int
    started: int
    scheduled: int
    failed: int
    finished: int


@dataclass(frozen=True)
class FailedJob:
    queue: str
    job_id: str
    func: str
    reason: str
    ended_at: str


def queue_counts(connection: redis.Redis, queues: Sequence[str] = ALL_QUEUES) -> list[QueueCounts]:
    out = []
    for name in queues:
        q = Queue(name, connection=connection)
        out.append(
            QueueCounts(
                name=name,
                queued=q.count,
                started=running(q),
                scheduled=ScheduledJobRegistry(queue=q).count,  # type: ignore[no-untyped-call]
                failed=FailedJobRegistry(queue=q).count,
                finished=FinishedJobRegistry(queue=q).count,
            )
        )
    return out


@dataclass(frozen=True)
class Backlog:
    """What the slow loop has before it: jobs queued or running, and roughly how long they take."""

    jobs: int
    #: seconds until they are done at the pace of the last finished jobs (None: no pace known)
    eta_s: float | None
    #: jobs of queues none finished in yet, not counted in ``eta_s`` (it is then a lower bound)
    unpaced: int = 0

    @property
    def eta_at_least(self) -> bool:
        """``eta_s`` is a lower bound: some jobs have no pace known and are not in it."""
        return self.unpaced > 0 and self.eta_s is not None


def running(q: Queue) -> int:
    """The jobs a worker has taken from ``q``: those it runs, and those it has just taken off the
    queue and not yet registered as started (RQ moves a job to the queue's intermediate list
    first; counted as neither, the queue looked idle while a job was about to run)."""
    started = set(StartedJobRegistry(queue=q).get_job_ids())
    return len(started | set(q.intermediate_queue.get_job_ids()))


#: finished jobs per queue whose durations give the slow loop's pace
PACE_SAMPLE = 20


def backlog(connection: redis.Redis, workers: int, queues: Sequence[str] = ALL_QUEUES) -> Backlog:
    """The jobs queued or running in ``queues`` and how long ``workers`` take for them: per queue,
    its jobs times the median time of its last finished ones. A queue none finished in yet is
    not guessed at (``unpaced``): counted at the pace of another queue, a freshly started
    service said "about 1.1 h" for 12 jobs, the 13-second crystallizations counted at the pace
    of the 80-second claims readings that ran before them."""
    total, known, unknown = 0, 0.0, 0
    for name in queues:
        q = Queue(name, connection=connection)
        waiting = q.count + running(q)
        if not waiting:
            continue
        total += waiting
        pace = _median_duration(q)
        if pace is None:
            unknown += waiting
        else:
            known += waiting * pace
    if not total:
        return Backlog(0, 0.0)
    if unknown == total:  # no queue with jobs has a pace yet
        return Backlog(total, None, unknown)
    return Backlog(total, known / max(workers, 1), unknown)


def _median_duration(q: Queue) -> float | None:
    ids = FinishedJobRegistry(queue=q).get_job_ids(-PACE_SAMPLE, -1)
    durations = sorted(
        (job.ended_at - job.started_at).total_seconds()
        for job in Job.fetch_many(ids, connection=q.connection)
        if job is not None and job.started_at is not None and job.ended_at is not None
    )
    return durations[len(durations) // 2] if durations else None


def failure_reason(job: Job) -> str:
    """The last line of a failed job's error (the exception and its message)."""
    result = job.latest_result()
    text = (result.exc_string if result is not None else None) or job.exc_info or ""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "unknown error"


def failed_jobs(connection: redis.Redis, queues: Sequence[str] = ALL_QUEUES) -> list[FailedJob]:
    out: list[FailedJob] = []
    for name in queues:
        q = Queue(name, connection=connection)
        ids = FailedJobRegistry(queue=q).get_job_ids()
        for job in Job.fetch_many(ids, connection=connection):
            if job is None:
                continue
            ended = job.ended_at.isoformat(timespec="seconds") if job.ended_at else ""
            out.append(FailedJob(name, job.id, job.func_name or "", failure_reason(job), ended))
    return out


def retry_failed(
    connection: redis.Redis, job_id: str | None = None, queues: Sequence[str] = ALL_QUEUES
) -> list[str]:
    """Requeue one failed job (id or unique prefix) or, with no id, all of them."""
    retried: list[str] = []
    for name in queues:
        registry = FailedJobRegistry(queue=Queue(name, connection=connection))
        for jid in registry.get_job_ids():
            if job_id is None or jid.startswith(job_id):
                registry.requeue(jid)
                retried.append(jid)
    if job_id is not None and not retried:
        raise NotFoundError(f"no failed job with id starting {job_id!r}")
    return retried
