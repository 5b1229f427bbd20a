"""Queue names and the enqueue side of the slow loop (what the app process calls)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import asdict

import redis
from rq import Queue, Retry
from rq.exceptions import DeserializationError, DuplicateJobError
from rq.job import Job

from services.common.exchange import Exchange
from thea.errors import QueueUnavailable
from thea.memory.redaction import redact_value
from thea.tuning import RETRY_BACKOFF_S

log = logging.getLogger(__name__)

CLAIMS = "thea-claims"
CRYSTALLIZE = "thea-crystallize"
DISTILL = "thea-distill"
REFLECT = "thea-reflect"
#: in the order workers take them: a statement's claims first (the next question reads them)
ALL_QUEUES = (CLAIMS, REFLECT, CRYSTALLIZE, DISTILL)

#: Default waits between retries of a failed job (seconds).
RETRY_INTERVALS = list(RETRY_BACKOFF_S)


def retry_policy(max_retries: int, intervals: Sequence[int] = RETRY_INTERVALS) -> Retry | None:
    if max_retries <= 0:
        return None
    waits = list(intervals)[:max_retries] or [0]
    return Retry(max=max_retries, interval=waits)


class RQJobSink:
    """Enqueues slow-loop jobs on RQ. Job ids are deterministic and unique, so the
    same impulse is never queued twice while its job is pending."""

    def __init__(
        self,
        connection: redis.Redis,
        *,
        job_timeout_s: int = 300,
        max_retries: int = 3,
        retry_intervals: Sequence[int] = RETRY_INTERVALS,
    ) -> None:
        self.connection = connection
        self.job_timeout_s = job_timeout_s
        self.max_retries = max_retries
        self.retry_intervals = list(retry_intervals)

    def queue(self, name: str) -> Queue:
        return Queue(name, connection=self.connection)

    def _enqueue(self, queue: str, func: str, job_id: str, *args: object) -> str:
        try:
            job = self.queue(queue).enqueue_call(
                func,
                args=args,
                job_id=job_id,
                timeout=self.job_timeout_s,
                retry=retry_policy(self.max_retries, self.retry_intervals),
                failure_ttl=7 * 86_400,
                result_ttl=86_400,
                unique=True,
                # RQ's default description is the call with its arguments: a conversation's words
                description=f"{func.rsplit('.', 1)[-1]} {job_id}",
            )
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        except DuplicateJobError:  # a unique job with this id is still pending: nothing to add
            log.info("job %s is already queued", job_id)
            return job_id
        log.info("enqueued %s job %s", queue, job.id)
        return str(job.id)

    def enqueue_claims(self, impulse_id: str, user_id: str, session_id: str) -> None:
        self._enqueue(CLAIMS, "workers.jobs.read_claims", f"claims-{impulse_id}", impulse_id, user_id)

    def enqueue_crystallize(self, impulse_id: str, user_id: str, session_id: str) -> None:
        self._enqueue(
            CRYSTALLIZE, "workers.jobs.crystallize", f"crystallize-{impulse_id}", impulse_id, user_id
        )

    def enqueue_distill(self, exchanges: Sequence[Exchange], user_id: str, session_id: str) -> None:
        if not exchanges:
            return
        rows = [asdict(e) for e in exchanges]
        job_id = f"distill-{exchanges[0].impulse_id}-{len(exchanges)}"
        self._enqueue(DISTILL, "workers.jobs.distill", job_id, rows, user_id, session_id)

    def enqueue_reflect(self, user_id: str, request_id: str) -> str:
        return self._enqueue(REFLECT, "workers.jobs.reflect", f"reflect-{request_id}", user_id, request_id)

    def forget_jobs(
        self,
        user_id: str,
        *,
        words: re.Pattern[str] | None = None,
        sessions: Sequence[str] = (),
        everything: bool = False,
    ) -> int:
        """Forgotten words leave the user's jobs: every job of the user (``everything``), the
        conversations' distillations (``sessions``), or, for ``words``, the jobs whose text holds
        them: erased in a job that waits, the job deleted once it ran. A job running now is left
        to finish (what it writes is the user's to forget again). Returns the jobs changed."""
        changed = 0
        for name in ALL_QUEUES:
            queue = self.queue(name)
            waiting = {
                *queue.get_job_ids(),
                *queue.scheduled_job_registry.get_job_ids(),
                *queue.deferred_job_registry.get_job_ids(),
            }
            ran = {
                *queue.finished_job_registry.get_job_ids(),
                *queue.failed_job_registry.get_job_ids(),
                *queue.canceled_job_registry.get_job_ids(),
            }
            ids = sorted(waiting | ran)
            for job in Job.fetch_many(ids, connection=self.connection):
                if job is None or not _of_user(job, user_id):
                    continue
                if everything or _session_of(job) in sessions:
                    job.delete()
                elif words is None or not any(words.search(t) for t in _texts(job.args)):
                    continue
                elif job.id in ran:
                    job.delete()
                else:
                    job.args = redact_value(list(job.args), words)
                    job.description = f"{(job.func_name or 'job').rsplit('.', 1)[-1]} {job.id}"
                    job.save()
                changed += 1
        return changed


def _of_user(job: Job, user_id: str) -> bool:
    try:
        return user_id in job.args
    except DeserializationError:  # not a job of thea's: left alone
        return False


def _session_of(job: Job) -> str | None:
    """The conversation a distillation job holds the turns of (its third argument)."""
    args = job.args
    return str(args[2]) if job.func_name == "workers.jobs.distill" and len(args) > 2 else None


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    return []
