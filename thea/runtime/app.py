"""Composition root: settings in, wired objects out.

Interfaces (CLI, web) call :func:`build_runtime`; services and workers never
build their own dependencies from settings.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from langchain_core.language_models import BaseChatModel
from rq.job import Job, JobStatus

from services.cycle.context import ConversationCache
from services.cycle.context_local import ContextCache
from services.cycle.orchestrator import Orchestrator
from services.knowledge.claims.statements import StatementReader
from services.knowledge.facts import FactKeeper
from services.reflection.merge import ReflectionReport, Reflector
from thea.config import Settings
from thea.errors import JobError, QueueUnavailable
from thea.llm.factory import build_chat_model, build_claims_model
from thea.llm.scheduler import (
    ForegroundGate,
    LocalForegroundGate,
    RedisForegroundGate,
    ScheduledChatModel,
)
from thea.memory.factory import embedded_server, open_memory
from thea.memory.universal import UniversalMemory
from thea.models import HealthStatus
from thea.runtime.assembly import (
    build_crystallizer,
    build_distiller,
    build_fact_keeper,
    build_orchestrator,
    build_reflector,
    build_statement_reader,
)
from workers.admin import failure_reason
from workers.context import WorkerContext
from workers.conversations import RedisConversationCache
from workers.locks import reflection_lock
from workers.queues import RQJobSink
from workers.schedule import ReflectionSchedule
from workers.vector_catch_up import VectorCatchUp
from workers.worker import BackgroundWorker, run_burst, worker_connection

log = logging.getLogger(__name__)


def queue_connection(settings: Settings) -> redis.Redis:
    """Redis for RQ: the configured server, or the embedded FalkorDB's socket."""
    if settings.queue.redis_url:
        return redis.Redis.from_url(settings.queue.redis_url, socket_timeout=5, socket_connect_timeout=2)
    return embedded_server(settings).start().client(socket_timeout=5, socket_connect_timeout=2)


def queue_location(settings: Settings) -> str:
    if settings.queue.redis_url:
        return "redis server (queue.redis_url)"
    return f"embedded FalkorDB ({embedded_server(settings).socket_path})"


def model_loaded(llm: BaseChatModel) -> bool:
    """Whether a local model's weights are in memory (remote models are always 'loaded')."""
    loaded = getattr(llm, "loaded", None)
    return bool(loaded) if loaded is not None else True


@dataclass(frozen=True)
class ReflectionQueued:
    """A reflection no worker finished while its caller waited: it stays queued."""

    job_id: str
    #: RQ's status: queued, started, scheduled (for a retry)
    status: str
    #: the last attempt's failure, if any
    reason: str = ""

    def message(self, waited_s: float) -> str:
        """One line for the caller."""
        states = {
            "queued": "waiting for a worker",
            "started": "running",
            "scheduled": "waiting to be retried",
        }
        state = states.get(self.status, self.status or "queued")
        reason = f" (last attempt: {self.reason})" if self.reason else ""
        return (
            f"not finished: reflection job {self.job_id} is still {state} after {waited_s:.0f} s{reason}; "
            "it stays queued for the next worker: see `thea jobs`"
        )


def reflection_report(result: object) -> ReflectionReport:
    """The report a reflection job returned (workers/jobs.py: its fields as a dict)."""
    if not isinstance(result, dict):
        raise JobError(f"a reflection job returned {type(result).__name__}, not its report")
    fields = {k: v for k, v in result.items() if k in ReflectionReport.__dataclass_fields__}
    return ReflectionReport(**fields)


@dataclass
class Runtime:
    """Every wired object of one process: memory, the model, the cycle, the slow loop.

    ``llm`` is the model as the foreground (the cycle) uses it; ``background_llm`` is the
    same model as slow-loop work uses it: it yields to any running cycle (``gate``)."""

    settings: Settings
    memory: UniversalMemory
    llm: BaseChatModel
    background_llm: BaseChatModel
    gate: ForegroundGate
    orchestrator: Orchestrator
    jobs: RQJobSink
    reflector: Reflector
    facts: FactKeeper
    #: the slow loop's reader of claims (None: ``knowledge.read_claims`` is off)
    statements: StatementReader | None = None
    #: the model that reads claims and picks answers, when it is not ``llm`` (loaded at warm-up)
    claims_model: BaseChatModel | None = None
    workers: list[BackgroundWorker] = field(default_factory=list)
    schedule: ReflectionSchedule | None = None
    #: computes the vectors large imports left for later (started with the slow loop)
    catch_up: VectorCatchUp | None = None
    _worker_context: WorkerContext | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def worker(self) -> BackgroundWorker | None:
        return self.workers[0] if self.workers else None

    @property
    def worker_context(self) -> WorkerContext:
        """What this process's slow-loop jobs run with: its memory and (background) model; built
        once, given to every worker this process starts."""
        if self._worker_context is None:
            self._worker_context = WorkerContext(
                memory=self.memory,
                llm=self.background_llm,
                distiller=build_distiller(self.settings, self.memory, self.background_llm),
                crystallizer=build_crystallizer(self.settings, self.memory, self.background_llm),
                reflector=self.reflector,
                timeout_s=self.settings.llm.timeout_s,
                statements=self.statements,
            )
        return self._worker_context

    def run_jobs(self) -> bool:
        """Run every job queued now in this thread, then return (whether any ran)."""
        connection = worker_connection(self.jobs.connection)  # RQ raises its timeout: not the shared one's
        try:
            return run_burst(connection, context=self.worker_context)
        finally:
            connection.close()

    def start_background_worker(self, count: int = 1) -> BackgroundWorker:
        """Run ``count`` slow-loop workers in this process (threads); they take no job while a
        cycle holds the model."""
        context = self.worker_context
        keeper = self.memory.index_keeper(self.settings.vector.optimize_after_points)
        for index in range(max(count, 1) - len(self.workers)):
            worker = BackgroundWorker(
                self.jobs.connection,
                when_idle=keeper.maybe_optimize if index == 0 else None,
                gate=self.gate,
                context=context,
                name=f"thea-worker-{len(self.workers) + 1}",
            )
            self.workers.append(worker.start())
        self.start_schedule()
        self.start_vector_catch_up()
        return self.workers[0]

    def start_vector_catch_up(self) -> VectorCatchUp:
        """The background thread that computes the vectors large imports left for later."""
        if self.catch_up is None:
            self.catch_up = VectorCatchUp(self.memory, self.gate).start()
        return self.catch_up

    def start_schedule(self) -> None:
        """Periodic reflection, when ``queue.reflect_every_s`` is set."""
        every = self.settings.queue.reflect_every_s
        if every and self.schedule is None:
            self.schedule = ReflectionSchedule(self.memory, self.jobs, every).start()

    async def reflect(
        self, user_id: str, *, wait_s: float | None = None
    ) -> ReflectionReport | ReflectionQueued:
        """Queue a reflection and wait for its report (a worker runs it).

        Returns the report, or :class:`ReflectionQueued` when no worker finished it in time.
        Raises :class:`JobError` with the job's reason when it failed for good.
        """
        request_id = uuid.uuid4().hex[:12]
        job_id = await asyncio.to_thread(self.jobs.enqueue_reflect, user_id, request_id)
        wait = self.settings.queue.reflect_wait_s if wait_s is None else wait_s
        return await asyncio.to_thread(self._wait_for, job_id, wait)

    def _wait_for(self, job_id: str, wait_s: float) -> ReflectionReport | ReflectionQueued:
        deadline = time.monotonic() + wait_s
        try:
            job = Job.fetch(job_id, connection=self.jobs.connection)
            while time.monotonic() < deadline:
                status = job.get_status(refresh=True)
                if status == JobStatus.FINISHED:
                    return reflection_report(job.return_value())
                if status == JobStatus.FAILED:
                    raise JobError(f"reflection job {job_id} failed: {failure_reason(job)}")
                time.sleep(0.1)
            status = job.get_status(refresh=True)
            reason = failure_reason(job) if job.latest_result() is not None else ""
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return ReflectionQueued(job_id, str(status.value if status else "unknown"), reason)

    def health(self) -> list[HealthStatus]:
        """Every layer, the queue and the model; never raises."""

        def ping() -> str:
            self.jobs.connection.ping()
            return queue_location(self.settings)

        statuses = [*self.memory.health(), HealthStatus.probe("queue", "redis", ping)]
        cfg = self.settings.llm
        where = cfg.base_url or ("in the service" if cfg.provider == "local" else "default endpoint")
        detail = f"{cfg.model} ({where}; {'loaded' if model_loaded(self.llm) else 'not loaded yet'})"
        statuses.append(HealthStatus(component="llm", backend=cfg.provider, ok=True, detail=detail))
        return statuses

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.schedule is not None:
            self.schedule.stop()
        if self.catch_up is not None:
            self.catch_up.stop()
        for worker in self.workers:
            worker.stop()
        self.gate.close()
        self.memory.close()


def foreground_gate(settings: Settings, connection: redis.Redis) -> ForegroundGate:
    """In-process when one process runs both loops (embedded); shared through Redis when app
    and workers are separate processes (server profile)."""
    if settings.embedded_queue:
        return LocalForegroundGate()
    return RedisForegroundGate(connection)


def conversation_cache(settings: Settings, connection: redis.Redis) -> ConversationCache:
    """The sessions' short-term conversations: in this process when one process answers every
    request (embedded); in the queue's Redis when several replicas do (server profile), so a
    conversation whose turns go to different replicas is one conversation."""
    window, share = settings.llm.context_window, settings.context.fifo_share
    if settings.embedded_queue:
        return ContextCache(window, share)
    return RedisConversationCache(connection, window, share)


def build_runtime(
    settings: Settings,
    *,
    llm: BaseChatModel | None = None,
    on_loading: Callable[[Any], None] | None = None,
) -> Runtime:
    """Every part of a service (``on_loading``: told what the embedded graph server loads while
    the start waits for it)."""
    memory = open_memory(settings, on_loading=on_loading)
    try:
        model = llm or build_chat_model(settings)
        connection = queue_connection(settings)
        gate = foreground_gate(settings, connection)
        background = ScheduledChatModel(inner=model, gate=gate, max_wait_s=settings.llm.timeout_s * 5)
        jobs = RQJobSink(
            connection,
            job_timeout_s=settings.queue.job_timeout_s,
            max_retries=settings.queue.max_retries,
            retry_intervals=settings.queue.retry_backoff_s,
        )
        context = conversation_cache(settings, connection)
        claims_model = build_claims_model(settings) if llm is None else None
        orchestrator = build_orchestrator(
            settings, memory, model, jobs=jobs, gate=gate, context=context, picker=claims_model
        )
        lock = reflection_lock(connection, lease_s=settings.queue.reflect_lock_s)
        reflector = build_reflector(settings, memory, background, lock)
        claims_llm = (
            background
            if claims_model is None
            else ScheduledChatModel(inner=claims_model, gate=gate, max_wait_s=settings.llm.timeout_s * 5)
        )
        statements = build_statement_reader(settings, memory, claims_llm)
        facts = build_fact_keeper(settings, memory, model, claims_model or model)
    except BaseException:
        memory.close()
        raise
    return Runtime(
        settings=settings,
        memory=memory,
        llm=model,
        background_llm=background,
        gate=gate,
        orchestrator=orchestrator,
        jobs=jobs,
        reflector=reflector,
        facts=facts,
        statements=statements,
        claims_model=claims_model,
    )
