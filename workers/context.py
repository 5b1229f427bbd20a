"""What jobs run with: memory, model and services of this worker process.

A standalone worker builds them from settings on first use; the embedded chat
installs its own (it already owns the embedded vector store, which one process
holds at a time).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from services.reflection.crystallizer import Crystallizer
from services.reflection.distiller import Distiller
from services.reflection.merge import Reflector
from thea.memory.universal import UniversalMemory


@dataclass
class WorkerContext:
    memory: UniversalMemory
    llm: BaseChatModel | None
    distiller: Distiller
    crystallizer: Crystallizer
    reflector: Reflector
    timeout_s: float = 120.0


_lock = threading.Lock()
_current: WorkerContext | None = None


def install(ctx: WorkerContext) -> None:
    global _current
    with _lock:
        _current = ctx


def current() -> WorkerContext:
    with _lock:
        if _current is None:
            raise RuntimeError("no worker context: run jobs through `thea worker` or the chat's worker")
        return _current


def clear() -> None:
    global _current
    with _lock:
        _current = None
