"""What every route of the service reaches: the runtime, callers, sessions, activity."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from threading import Lock

from fastapi import Request

from thea.config import Settings
from thea.errors import BackendUnavailable
from thea.memory.consistency import Damage
from thea.memory.universal import UniversalMemory
from thea.runtime import Runtime
from thea.runtime.commands import ChatSession
from thea.service.auth import Authenticator, Caller
from thea.service.middleware import Activity
from thea.service.stopping import StopReason

ListenFn = Callable[[str, int], Awaitable[str]]


class SessionRegistry:
    """The chat sessions this process served (its status counts them), LRU-bounded. What a
    session said last is in the graph (:class:`ChatSession`), so replicas need not share this."""

    def __init__(self, max_sessions: int = 10_000) -> None:
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[tuple[str, str], ChatSession] = OrderedDict()
        self._lock = Lock()

    def get(self, user_id: str, session_id: str) -> ChatSession:
        key = (user_id, session_id)
        with self._lock:
            chat = self._sessions.get(key)
            if chat is None:
                chat = self._sessions[key] = ChatSession(user_id=user_id, session_id=session_id)
                while len(self._sessions) > self.max_sessions:
                    self._sessions.popitem(last=False)
            self._sessions.move_to_end(key)
            return chat

    def users(self) -> list[str]:
        with self._lock:
            return sorted({user for user, _ in self._sessions})

    def __len__(self) -> int:
        return len(self._sessions)


class StoreDamaged(BackendUnavailable):
    """The service runs in maintenance mode: a store could not be opened (HTTP 503)."""

    def __init__(self, reason: str) -> None:
        super().__init__("memory", f"{reason}; run `thea memory repair`, then try again")


@dataclass
class Maintenance:
    """What the service serves when a derived store (chronicle, vector collection) is damaged:
    the memory opened for check and repair only, and why."""

    memory: UniversalMemory
    damage: list[Damage]
    reason: str


@dataclass
class ServiceContext:
    runtime: Runtime | None
    auth: Authenticator
    #: the service's settings (the runtime's, or those maintenance mode started with)
    settings: Settings
    #: set instead of a runtime when the service started in maintenance mode
    maintenance: Maintenance | None = None
    sessions: SessionRegistry = field(default_factory=SessionRegistry)
    activity: Activity = field(default_factory=Activity)
    started_at: float = field(default_factory=time.time)
    listening: list[str] = field(default_factory=list)
    #: set by the service process: stop gracefully (for a reason it logs) / open a TCP listener
    request_stop: Callable[[StopReason], None] | None = None
    listen: ListenFn | None = None
    #: why the service is stopping, once it is: new requests get 503 "stopping"
    stopping: StopReason | None = None

    @property
    def rt(self) -> Runtime:
        """The runtime; in maintenance mode a clear 503 naming the damaged store."""
        if self.runtime is None:
            raise StoreDamaged(self.maintenance.reason if self.maintenance else "the service is not ready")
        return self.runtime

    @property
    def memory(self) -> UniversalMemory:
        if self.runtime is not None:
            return self.runtime.memory
        if self.maintenance is not None:
            return self.maintenance.memory
        raise StoreDamaged("the service is not ready")


def context_of(request: Request) -> ServiceContext:
    ctx: ServiceContext = request.app.state.ctx
    return ctx


def caller_of(request: Request) -> Caller:
    return context_of(request).auth.caller(request)
