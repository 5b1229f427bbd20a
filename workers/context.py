"""What jobs run with: memory, model and services of this worker process.

The composition root (``thea.runtime``) builds one :class:`WorkerContext` and gives it to each
worker it starts (``make_worker``, ``run_burst``, ``BackgroundWorker``). A worker holds it and
hands it to each job it runs: for the job's duration only, through a context variable (RQ calls
job functions by name, with the arguments stored in the queue). Nothing is installed for the
process: a job run by a worker given no context fails with a clear error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from services.knowledge.claims.statements import StatementReader
from services.reflection.crystallizer import Crystallizer
from services.reflection.distiller import Distiller
from services.reflection.merge import Reflector
from thea.memory.universal import UniversalMemory


@dataclass(frozen=True)
class WorkerContext:
    memory: UniversalMemory
    llm: BaseChatModel | None
    distiller: Distiller
    crystallizer: Crystallizer
    reflector: Reflector
    timeout_s: float = 120.0
    #: reads statements into claims (None: this worker does not)
    statements: StatementReader | None = None


#: the context of the job running in this thread (set by its worker while the job runs)
_running: ContextVar[WorkerContext | None] = ContextVar("thea_worker_context", default=None)


@contextmanager
def running(ctx: WorkerContext | None) -> Iterator[None]:
    """Jobs run inside this block (in this thread, or tasks and threads it starts with a copy of
    its context) see ``ctx`` as :func:`current`."""
    token = _running.set(ctx)
    try:
        yield
    finally:
        _running.reset(token)


def current() -> WorkerContext:
    """The running job's context."""
    ctx = _running.get()
    if ctx is None:
        raise RuntimeError("no worker context: run jobs through `thea worker` or the chat's worker")
    return ctx
