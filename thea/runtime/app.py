"""Composition root: settings in, wired objects out.

Interfaces (CLI, web) call :func:`build_runtime`; services and workers never
build their own dependencies from settings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import redis
from langchain_core.language_models import BaseChatModel

from services.assembly import build_distiller, build_orchestrator
from services.orchestrator import Orchestrator
from thea.config import Settings
from thea.llm.factory import build_chat_model
from thea.memory.factory import embedded_server, open_memory
from thea.memory.universal import UniversalMemory
from workers import context as worker_context
from workers.queues import RQJobSink
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
    worker: BackgroundWorker | None = None
    _closed: bool = field(default=False, repr=False)

    def install_worker_context(self) -> None:
        """Let jobs run in this process with this process's memory and model."""
        worker_context.install(
            worker_context.WorkerContext(
                memory=self.memory,
                llm=self.llm,
                distiller=build_distiller(self.settings, self.memory, self.llm),
                timeout_s=self.settings.llm.timeout_s,
            )
        )

    def start_background_worker(self) -> BackgroundWorker:
        self.install_worker_context()
        self.worker = BackgroundWorker(self.jobs.connection).start()
        return self.worker

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.worker is not None:
            self.worker.stop()
        worker_context.clear()
        self.memory.close()


def build_runtime(settings: Settings, *, llm: BaseChatModel | None = None) -> Runtime:
    memory = open_memory(settings)
    try:
        model = llm or build_chat_model(settings)
        jobs = RQJobSink(
            queue_connection(settings),
            job_timeout_s=settings.queue.job_timeout_s,
            max_retries=settings.queue.max_retries,
        )
        orchestrator = build_orchestrator(settings, memory, model, jobs=jobs)
    except BaseException:
        memory.close()
        raise
    return Runtime(settings=settings, memory=memory, llm=model, orchestrator=orchestrator, jobs=jobs)
