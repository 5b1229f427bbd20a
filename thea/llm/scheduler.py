"""Foreground first: the user's cycle gets the model before slow-loop work.

thea has one model and two loops. The fast loop (a cycle answering the user) and the
slow loop (crystallize, distill, reflect, fact checks in jobs) both call it; without a
rule a question waits behind a long background generation. The rule here:

* A cycle holds the :class:`ForegroundGate` while it runs (``async with gate.foreground()``).
  Background work never *starts* a model call while the gate is held or within a short
  grace period after it (so the steps of one cycle, and a quick follow-up, run back to back).
* A background call already running is **preempted**: :class:`ScheduledChatModel` streams it
  and checks the gate on every chunk; when a cycle starts it stops the generation (the local
  model stops decoding within one token; an HTTP stream is closed), waits until the gate is
  quiet and runs the call again from the start.

So a question waits for at most the part of one background request that cannot be
interrupted: the local model's evaluation of that request's prompt (bounded by the slow loop's
prompt sizes), or nothing for a remote endpoint. Two gate implementations: an in-process one
(embedded service: both loops live in one process) and a Redis one (server profile: the app and
N worker processes share it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol

import redis
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

from thea.errors import LLMTimeout

log = logging.getLogger(__name__)

#: After a cycle ends, background work waits this long before it may take the model:
#: a chat's next step or follow-up question does not have to preempt anything.
DEFAULT_GRACE_S = 0.5


class ForegroundGate(Protocol):
    """Who may use the model now: foreground cycles hold the gate, background work yields."""

    def enter(self, key: str) -> None: ...

    def leave(self, key: str) -> None: ...

    def busy(self) -> bool:
        """True while any cycle holds the gate (or has just released it)."""
        ...

    def wait_quiet(self, timeout_s: float) -> bool:
        """Block until the gate is quiet; False if it still is not after ``timeout_s``."""
        ...

    def close(self) -> None:
        """The process is done with the gate."""
        ...


@contextlib.asynccontextmanager
async def foreground(gate: ForegroundGate | None, key: str | None = None) -> AsyncIterator[None]:
    """Hold the gate for the duration of a cycle (no-op without a gate)."""
    if gate is None:
        yield
        return
    name = key or uuid.uuid4().hex
    gate.enter(name)
    try:
        yield
    finally:
        gate.leave(name)


class LocalForegroundGate:
    """The gate of one process (the embedded service: fast and slow loop share a process)."""

    def __init__(self, grace_s: float = DEFAULT_GRACE_S) -> None:
        self.grace_s = grace_s
        self._holders: dict[str, int] = {}
        self._quiet_after = 0.0
        self._cond = threading.Condition()

    def enter(self, key: str) -> None:
        with self._cond:
            self._holders[key] = self._holders.get(key, 0) + 1

    def leave(self, key: str) -> None:
        with self._cond:
            count = self._holders.get(key, 0) - 1
            if count > 0:
                self._holders[key] = count
            else:
                self._holders.pop(key, None)
            if not self._holders:
                self._quiet_after = time.monotonic() + self.grace_s
            self._cond.notify_all()

    def busy(self) -> bool:
        return bool(self._holders) or time.monotonic() < self._quiet_after

    @property
    def holders(self) -> int:
        return len(self._holders)

    def close(self) -> None:
        return None

    def wait_quiet(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                now = time.monotonic()
                if not self._holders and now >= self._quiet_after:
                    return True
                if now >= deadline:
                    return False
                wait = deadline - now
                if not self._holders:
                    wait = min(wait, self._quiet_after - now)
                self._cond.wait(max(wait, 0.001))


class RedisForegroundGate:
    """The gate shared by the app and worker processes of the server profile.

    Each running cycle is a member of a sorted set scored by the end of its lease; leaving
    re-scores the member to now + grace. The lease is short (``hold_s``) and renewed every
    ``renew_s`` by a thread of the process holding it, so a cycle of any length keeps the gate
    while a replica that died mid-cycle (``kill -9``, OOM) stops holding it ``hold_s`` later,
    instead of keeping every worker idle for minutes. ``busy()`` is cached for ``cache_s`` so
    per-token checks cost no round trip.
    """

    def __init__(
        self,
        connection: redis.Redis,
        *,
        key: str = "thea:foreground",
        grace_s: float = DEFAULT_GRACE_S,
        hold_s: float = 15.0,
        renew_s: float | None = None,
        cache_s: float = 0.1,
    ) -> None:
        self.connection = connection
        self.key = key
        self.grace_s = grace_s
        self.hold_s = hold_s
        self.renew_s = renew_s if renew_s is not None else hold_s / 3
        self.cache_s = cache_s
        self._cached: tuple[float, bool] = (0.0, False)
        #: the members this process holds (a key entered twice counts twice)
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def _now_ms(self) -> int:
        return int(time.time() * 1000)

    def enter(self, key: str) -> None:
        with self._lock:
            self._held[key] = self._held.get(key, 0) + 1
            if self._renewer is None:
                self._renewer = threading.Thread(
                    target=self._renew, name="thea-foreground-lease", daemon=True
                )
                self._renewer.start()
            try:
                self.connection.zadd(self.key, {key: self._now_ms() + int(self.hold_s * 1000)})
                self._cached = (time.monotonic(), True)
            except (redis.RedisError, OSError) as exc:  # the gate is an optimisation: never fail a cycle
                log.warning("foreground gate unavailable: %s", exc)

    def leave(self, key: str) -> None:
        with self._lock:  # a renewal never lands after the leave
            count = self._held.get(key, 0) - 1
            if count > 0:
                self._held[key] = count
                return
            self._held.pop(key, None)
            try:
                self.connection.zadd(self.key, {key: self._now_ms() + int(self.grace_s * 1000)})
            except (redis.RedisError, OSError) as exc:
                log.warning("foreground gate unavailable: %s", exc)

    def _renew(self) -> None:
        """Extend the lease of every member this process holds, every ``renew_s``."""
        while not self._stop.wait(self.renew_s):
            with self._lock:
                if not self._held:
                    continue
                deadline = self._now_ms() + int(self.hold_s * 1000)
                try:
                    self.connection.zadd(self.key, dict.fromkeys(self._held, deadline), xx=True)
                except (redis.RedisError, OSError) as exc:
                    log.warning("foreground gate: could not renew the lease of running cycles: %s", exc)

    def close(self) -> None:
        """Stop renewing (what is held then ends with its lease)."""
        self._stop.set()

    def busy(self) -> bool:
        at, value = self._cached
        if time.monotonic() - at < self.cache_s:
            return value
        try:
            pipe = self.connection.pipeline()
            pipe.zremrangebyscore(self.key, "-inf", self._now_ms())
            pipe.zcard(self.key)
            value = bool(pipe.execute()[1])
        except (redis.RedisError, OSError):
            value = False
        self._cached = (time.monotonic(), value)
        return value

    def wait_quiet(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while self.busy():
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(0.2, max(deadline - time.monotonic(), 0.0)))
        return True


class Preempted(Exception):
    """Internal: a background generation gave the model up to a cycle."""


class Abandoned(LLMTimeout):
    """Internal: the caller of a background call gave up on it (it timed out or was cancelled)."""


class Deferred(Exception):
    """A model that supports a start check (``START_CHECK`` keyword) raises this when the check
    says no at the moment the model is free: a background call queued behind a cycle's step
    must not take the model between two steps of that cycle."""


#: keyword a model with ``supports_start_check`` takes: called once the model is free, right
#: before it evaluates the prompt; False defers the call (it raises :class:`Deferred`)
START_CHECK = "start_if"

#: how often a waiting background call checks whether its caller gave up on it
_ABANDON_POLL_S = 0.5


class ScheduledChatModel(BaseChatModel):
    """A chat model used by background work: it waits for a quiet gate, streams, and gives
    the model up (and later retries) as soon as a cycle starts.

    Foreground code uses the inner model directly inside ``foreground(gate)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    gate: Any  # ForegroundGate (a Protocol: pydantic cannot validate it)
    #: longest a background call waits for the gate before each attempt
    max_wait_s: float = 600.0
    #: attempts before the call gives up (each one preempted by a new cycle)
    max_attempts: int = 50

    @property
    def _llm_type(self) -> str:
        return f"scheduled-{self.inner._llm_type}"

    @property
    def supports_json_schema(self) -> bool:
        return bool(getattr(self.inner, "supports_json_schema", False))

    @property
    def model_name(self) -> str:
        return str(getattr(self.inner, "model_name", "") or type(self.inner).__name__)

    def _wait_turn(self, abandoned: threading.Event | None = None) -> None:
        deadline = time.monotonic() + self.max_wait_s
        while not self.gate.wait_quiet(min(_ABANDON_POLL_S, max(deadline - time.monotonic(), 0.0))):
            if abandoned is not None and abandoned.is_set():
                raise Abandoned
            if time.monotonic() >= deadline:
                raise LLMTimeout(f"background model call waited {self.max_wait_s:g} s for the foreground")
        if abandoned is not None and abandoned.is_set():
            raise Abandoned

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        abandoned: threading.Event | None = kwargs.pop("_abandoned", None)
        if not _streams(self.inner):  # cannot be interrupted: just wait for a quiet gate
            self._wait_turn(abandoned)
            return self.inner._generate(messages, stop=stop, **kwargs)
        if getattr(self.inner, "supports_start_check", False):

            def may_start() -> bool:
                return not self.gate.busy() and not (abandoned is not None and abandoned.is_set())

            kwargs[START_CHECK] = may_start
        for attempt in range(self.max_attempts):
            self._wait_turn(abandoned)
            merged: AIMessageChunk | None = None
            chunks = self.inner._stream(messages, stop=stop, **kwargs)
            try:
                for chunk in chunks:
                    if self.gate.busy() or (abandoned is not None and abandoned.is_set()):
                        raise Preempted
                    msg = chunk.message
                    if isinstance(msg, AIMessageChunk):
                        merged = msg if merged is None else merged + msg
            except (Preempted, Deferred):
                log.info("background generation gave the model up to a cycle (attempt %d)", attempt + 1)
                continue
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()  # stops the local model's decoding / closes the HTTP stream
            return _result(merged)
        raise LLMTimeout(f"background model call preempted {self.max_attempts} times")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # a thread of its own: the wait for the gate and the (sync) stream never block a loop.
        # A caller that gives up (a job's timeout) tells the thread, which then stops waiting or
        # generating instead of taking the model later for nobody.
        abandoned = threading.Event()
        try:
            if not _streams(self.inner):
                await asyncio.to_thread(self._wait_turn, abandoned)
                return await self.inner._agenerate(messages, stop=stop, **kwargs)
            return await asyncio.to_thread(
                self._generate, messages, stop, None, _abandoned=abandoned, **kwargs
            )
        finally:
            abandoned.set()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        result = self._generate(messages, stop=stop, **kwargs)
        message = result.generations[0].message
        yield ChatGenerationChunk(
            message=AIMessageChunk(content=message.content, usage_metadata=_usage(message))
        )


def _streams(model: BaseChatModel) -> bool:
    """Whether the model implements token streaming (so a generation can be stopped)."""
    return type(model)._stream is not BaseChatModel._stream


def _usage(message: BaseMessage) -> Any:
    return message.usage_metadata if isinstance(message, AIMessage) else None


def _result(merged: AIMessageChunk | None) -> ChatResult:
    if merged is None:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=""))])
    message = AIMessage(
        content=merged.content,
        usage_metadata=merged.usage_metadata,
        response_metadata=merged.response_metadata,
    )
    return ChatResult(generations=[ChatGeneration(message=message)])
