"""Composition root: settings in, wired objects out.

Interfaces (CLI, web) call :func:`build_runtime`; services and workers never
build their own dependencies from settings.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import redis
from langchain_core.language_models import BaseChatModel
from rq.job import Job, JobStatus

from services.assembly import (
    build_crystallizer,
    build_distiller,
    build_fact_keeper,
    build_orchestrator,
    build_reflector,
)
from services.facts import FactKeeper
from services.orchestrator import Orchestrator
from services.reflection import Reflector
from thea.config import Settings
from thea.errors import JobError, QueueUnavailable
from thea.llm.factory import build_chat_model
from thea.memory.factory import embedded_server, open_memory
from thea.memory.universal import UniversalMemory
from thea.memory.vector.indexing import IndexKeeper
from workers import context as worker_context
from workers.admin import failure_reason
from workers.locks import reflection_lock
from workers.queues import RQJobSink
from workers.schedule import ReflectionSchedule
from workers.worker import BackgroundWorker

log = logging.getLogger(__name__)


def queue_connection(settings: Settings) -> redis.Redis:
    """Redis for RQ: the configured server, or the embedded FalkorDB's socket."""
    if settings.queue.redis_url:
        return redis.Redis.from_url(settings.queue.redis_url, socket_timeout=5, socket_connect_timeout=2)
    return embedded_server(settings).start().client(socket_timeout=5, socket_connect_timeout=2)


@dataclass
class Runtime:
    settings: Settings
    memory: UniversalMemory
    llm: BaseChatModel
    orchestrator: Orchestrator
    jobs: RQJobSink
    reflector: Reflector
    facts: FactKeeper
    worker: BackgroundWorker | None = None
    schedule: ReflectionSchedule | None = None
    _closed: bool = field(default=False, repr=False)

    def install_worker_context(self) -> None:
        """Let jobs run in this process with this process's memory and model."""
        worker_context.install(
            worker_context.WorkerContext(
                memory=self.memory,
                llm=self.llm,
                distiller=build_distiller(self.settings, self.memory, self.llm),
                crystallizer=build_crystallizer(self.settings, self.memory, self.llm),
                reflector=self.reflector,
                timeout_s=self.settings.llm.timeout_s,
            )
        )

    def start_background_worker(self) -> BackgroundWorker:
        self.install_worker_context()
        keeper = IndexKeeper(self.memory.vectors, self.settings.vector.optimize_after_points)
        self.worker = BackgroundWorker(self.jobs.connection, when_idle=keeper.maybe_optimize).start()
        self.start_schedule()
        return self.worker

    def start_schedule(self) -> None:
        """Periodic reflection, when ``queue.reflect_every_s`` is set."""
        every = self.settings.queue.reflect_every_s
        if every and self.schedule is None:
            self.schedule = ReflectionSchedule(self.memory, self.jobs, every).start()

    async def reflect(self, user_id: str, *, wait_s: float | None = None) -> dict[str, Any]:
        """Queue a reflection and wait for its report (a worker runs it).

        Returns the report, or ``{"queued": job_id, "status": ..., "reason": ...}`` when no
        worker finished it in time (``status`` is RQ's: queued, started, scheduled for a retry;
        ``reason`` the last failure, if any). Raises :class:`JobError` with the job's reason
        when it failed for good.
        """
        request_id = uuid.uuid4().hex[:12]
        job_id = await asyncio.to_thread(self.jobs.enqueue_reflect, user_id, request_id)
        wait = self.settings.queue.reflect_wait_s if wait_s is None else wait_s
        return await asyncio.to_thread(self._wait_for, job_id, wait)

    def _wait_for(self, job_id: str, wait_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait_s
        try:
            job = Job.fetch(job_id, connection=self.jobs.connection)
            while time.monotonic() < deadline:
                status = job.get_status(refresh=True)
                if status == JobStatus.FINISHED:
                    result = job.return_value()
                    return dict(result) if isinstance(result, dict) else {"result": result}
                if status == JobStatus.FAILED:
                    raise JobError(f"reflection job {job_id} failed: {failure_reason(job)}")
                time.sleep(0.1)
            status = job.get_status(refresh=True)
            reason = failure_reason(job) if job.latest_result() is not None else ""
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return {"queued": job_id, "status": str(status.value if status else "unknown"), "reason": reason}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.schedule is not None:
            self.schedule.stop()
        if self.worker is not None:
            self.worker.stop()
        worker_context.clear()
        self.memory.close()


def build_runtime(settings: Settings, *, llm: BaseChatModel | None = None) -> Runtime:
    memory = open_memory(settings)
    try:
        model = llm or build_chat_model(settings)
        connection = queue_connection(settings)
        jobs = RQJobSink(
            connection,
            job_timeout_s=settings.queue.job_timeout_s,
            max_retries=settings.queue.max_retries,
            retry_intervals=settings.queue.retry_backoff_s,
        )
        orchestrator = build_orchestrator(settings, memory, model, jobs=jobs)
        lock = reflection_lock(connection, lease_s=settings.queue.reflect_lock_s)
        reflector = build_reflector(settings, memory, model, lock)
        facts = build_fact_keeper(settings, memory, model)
    except BaseException:
        memory.close()
        raise
    return Runtime(
        settings=settings,
        memory=memory,
        llm=model,
        orchestrator=orchestrator,
        jobs=jobs,
        reflector=reflector,
        facts=facts,
    )
