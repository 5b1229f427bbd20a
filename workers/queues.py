"""Queue names and the enqueue side of the slow loop (what the app process calls)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

from services.common.exchange import Exchange
from thea.errors import QueueUnavailable
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
