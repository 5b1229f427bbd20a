"""``thea.AsyncClient``: the service's API from asyncio code (agents, web apps, notebooks).

The same calls and typed results as :class:`thea.client.Client`; starting the local service
(when none runs) happens in a thread, so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel

from thea.api import models as m
from thea.client import specs
from thea.client.connection import Connection
from thea.client.errors import (
    ConnectionLost,
    ServiceUnavailable,
    is_stopping,
    raise_for_body,
    raise_for_response,
    retryable,
    transport_detail,
    transport_error,
)
from thea.client.events import ChatEvent, Done, SSEParser, Token, import_event, to_event
from thea.client.sync import ATTEMPTS, BACKOFF_S
from thea.config import Settings

T = TypeVar("T", bound=BaseModel)
ProgressFn = Callable[[str, int, int], None]


class AsyncClient:
    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        user: str | None = None,
        settings: Settings | None = None,
        timeout_s: float = 900.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``transport`` replaces the network (e.g. ``httpx.ASGITransport`` around the service's
        app: an interface inside the service calling its API in-process)."""
        self.connection = Connection.resolve(url, token, user=user, settings=settings)
        self.timeout_s = timeout_s
        self._transport = transport
        self._http: httpx.AsyncClient | None = None

    # -- plumbing ----------------------------------------------------------------------

    async def connect(self) -> AsyncClient:
        await asyncio.to_thread(self.connection.ensure, None)
        return self

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            uds = self.connection.uds
            self._http = httpx.AsyncClient(
                transport=self._transport or (httpx.AsyncHTTPTransport(uds=uds) if uds else None),
                base_url=self.connection.base_url,
                headers=self.connection.headers(),
                timeout=httpx.Timeout(self.timeout_s, connect=10.0),
            )
        return self._http

    async def _send(self, spec: specs.Spec[Any], *, stream: bool = False) -> httpx.Response:
        """Send ``spec``; after a transport failure send it again (same idempotency key), up to
        :data:`ATTEMPTS` times, starting the local service again if it is gone."""
        for attempt in range(1, ATTEMPTS + 1):
            last = attempt == ATTEMPTS
            client = self._client()
            try:
                request = client.build_request(
                    spec.method, spec.url, json=spec.json, params=spec.params, headers=spec.headers
                )
                response = await client.send(request, stream=stream)
            except httpx.TransportError as exc:
                if last or not retryable(exc):
                    raise transport_error(exc, self.connection.where, self.timeout_s) from exc
                await self._recover(attempt)
                continue
            if response.status_code >= 400:
                try:
                    await response.aread()
                except httpx.TransportError as exc:
                    raise transport_error(exc, self.connection.where, self.timeout_s) from exc
                finally:
                    await response.aclose()
                if not last and self.connection.local and is_stopping(response):
                    await self.connect()  # on its way out: wait for it to exit, start a new one
                    continue
                raise_for_response(response)
            return response
        raise AssertionError("unreachable")

    async def _recover(self, attempt: int) -> None:
        if self.connection.local:
            await self.connect()  # the service stopped (idle) or died: start it again
        else:
            await asyncio.sleep(BACKOFF_S * attempt)

    async def _call(self, spec: specs.Spec[T]) -> T:
        return spec.parse((await self._send(spec)).json())

    async def _events(self, spec: specs.Spec[Any]) -> AsyncGenerator[ChatEvent, None]:
        response = await self._send(spec, stream=True)
        parser = SSEParser()
        try:
            async for line in response.aiter_lines():
                message = parser.feed(line)
                if message is not None and (event := to_event(*message)) is not None:
                    yield event
        except httpx.TransportError as exc:
            raise transport_error(exc, self.connection.where, self.timeout_s) from exc
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"the answer stream broke off: {transport_detail(exc)}") from exc
        finally:
            await response.aclose()  # closing early cancels the cycle in the service

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the cycle ---------------------------------------------------------------------

    async def health(self) -> m.Health:
        return await self._call(specs.health())

    async def status(self) -> m.ServiceStatus:
        return await self._call(specs.status())

    async def whoami(self, session_id: str | None = None) -> m.WhoAmI:
        return await self._call(specs.whoami(session_id))

    async def ask(self, text: str, session_id: str | None = None) -> m.AskResult:
        """One cycle, the whole answer; a broken connection is retried with the same key."""
        spec = specs.ask(text, session_id, stream=True)
        for attempt in range(1, ATTEMPTS + 1):
            events = self._events(spec)
            try:
                async for event in events:
                    if isinstance(event, Done):
                        return event.result
            except ConnectionLost:
                if attempt == ATTEMPTS:
                    raise
                await self._recover(attempt)
                continue
            finally:
                await events.aclose()
            break
        raise ServiceUnavailable("the answer stream ended without a result")

    async def stream(self, text: str, session_id: str | None = None) -> AsyncIterator[Token | Done]:
        """Tokens, then Done; a connection that breaks before the first token is retried with
        the same key."""
        spec = specs.ask(text, session_id, stream=True)
        for attempt in range(1, ATTEMPTS + 1):
            events = self._events(spec)
            sent = False
            try:
                async for event in events:
                    if isinstance(event, Token | Done):
                        sent = True
                        yield event
                return
            except ConnectionLost:
                if sent or attempt == ATTEMPTS:
                    raise
                await self._recover(attempt)
            finally:
                await events.aclose()

    def chat(self, text: str, session_id: str | None = None) -> AsyncGenerator[ChatEvent, None]:
        return self._events(specs.chat(text, session_id))

    async def sessions(self, limit: int = 50) -> m.ChatSessionList:
        """The caller's conversations, the latest first (their first message as a title)."""
        return await self._call(specs.sessions(limit))

    async def session(self, session_id: str, limit: int = 200) -> m.ChatSessionView:
        """One conversation's last ``limit`` messages with thea's answers, oldest first."""
        return await self._call(specs.session(session_id, limit))

    # -- knowledge ---------------------------------------------------------------------

    async def trace(
        self, impulse: str = "last", session_id: str | None = None, prompts: bool = False
    ) -> m.TraceView:
        """One cycle's trace; ``prompts`` adds the exact messages of the prompt the model got."""
        return await self._call(specs.trace(impulse, session_id, prompts))

    async def insights(
        self,
        state: m.InsightState = "active",
        concept: str | None = None,
        min_strength: float = 0.0,
        limit: int = 100,
    ) -> list[m.InsightSummary]:
        found = await self._call(specs.insights(state, concept, min_strength, limit))
        return found.insights

    async def slow_loop(self) -> m.SlowLoopView:
        """What the slow loop still has to do: jobs queued, the caller's messages still to be
        read, roughly how long, and one line saying so ("" when nothing waits)."""
        return await self._call(specs.slow_loop())

    async def insight(self, insight_id: str) -> m.InsightDetailView:
        return await self._call(specs.insight(insight_id))

    async def graph(self, node: str | None = None, concept: str | None = None, depth: int = 2) -> m.GraphView:
        return await self._call(specs.graph(node, concept, depth))

    async def reflect(self, wait_s: float | None = None) -> m.ReflectionResult:
        return await self._call(specs.reflect(wait_s))

    async def fact(self, text: str, session_id: str | None = None) -> m.FactResult:
        return await self._call(specs.fact(text, session_id))

    async def import_history(
        self,
        text: str,
        fmt: str = "auto",
        source: str = "file",
        progress: Callable[[int, int], None] | None = None,
    ) -> m.ImportResult:
        """As :meth:`thea.Client.import_history` (``progress`` is a plain function)."""
        if progress is None:
            return await self._call(specs.import_history(text, fmt, source))
        response = await self._send(specs.import_history(text, fmt, source, stream=True), stream=True)
        parser = SSEParser()
        try:
            async for line in response.aiter_lines():
                message = parser.feed(line)
                if message is None or (event := import_event(*message)) is None:
                    continue
                if isinstance(event, m.ImportResult):
                    return event
                progress(*event)
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"the import's progress stream broke off: {exc}") from exc
        finally:
            await response.aclose()  # closing early (cancelled) stops the import at its next batch
        raise ServiceUnavailable("the import's progress stream ended without a result")

    async def recall(self, query: str, limit: int = 8) -> list[m.MemoryHit]:
        """The caller's memories that match ``query``, best first (no model call)."""
        return (await self._call(specs.recall(query, limit))).memories

    async def remember(
        self, text: str, kind: m.MemoryKind = "message", session_id: str | None = None
    ) -> m.Remembered:
        """Store a message (verbatim, no model call) or a fact (confidence checked) for the caller."""
        return await self._call(specs.remember(text, kind, session_id))

    async def forget(self, node_id: str) -> m.ForgetResult:
        return await self._call(specs.forget(node_id))

    async def memories(self, include_history: bool = True) -> m.FactsOfRecordView:
        """What thea knows about the caller: current facts by subject, with a summary."""
        return await self._call(specs.memories(include_history))

    async def memory(self, fact_id: str) -> m.FactOfRecordView:
        """One fact (id or prefix) with the message it came from and its earlier values."""
        return await self._call(specs.memory(fact_id))

    async def correct_memory(self, fact_id: str, text: str) -> m.FactEditResult:
        """Replace a fact by what is true instead (the fact stays in history)."""
        return await self._call(specs.correct_memory(fact_id, text))

    async def outdate_memory(self, fact_id: str) -> m.FactEditResult:
        """A fact no longer holds; nothing replaces it (kept in history)."""
        return await self._call(specs.outdate_memory(fact_id))

    async def forget_memory(self, fact_id: str) -> m.FactEditResult:
        """Delete a fact for good: graph, vectors, answers, recall, insights."""
        return await self._call(specs.forget_memory(fact_id))

    async def forget_about(self, about: str) -> m.ErasureResult:
        """Forget everything about a subject for good (every fact naming it, its words everywhere)."""
        return await self._call(specs.forget_about(about))

    async def forget_conversation(self, session_id: str) -> m.ErasureResult:
        """Forget a whole conversation for good: messages, answers, facts told in it, insights."""
        return await self._call(specs.forget_conversation(session_id))

    async def forget_everything(self) -> m.ErasureResult:
        """Delete everything thea has of the caller, for good."""
        return await self._call(specs.forget_everything())

    async def feedback(
        self, value: int, response_id: str | None = None, session_id: str | None = None
    ) -> m.FeedbackResult:
        return await self._call(specs.feedback(value, response_id, session_id))

    async def export(self, since_ms: int = 0, all_users: bool = False) -> AsyncIterator[str]:
        response = await self._send(specs.export(since_ms, all_users), stream=True)
        try:
            async for line in response.aiter_lines():
                if line:
                    yield line
        except httpx.TransportError as exc:
            raise ConnectionLost(f"the export broke off ({transport_detail(exc)})") from exc
        finally:
            await response.aclose()

    # -- operations --------------------------------------------------------------------

    async def jobs(self) -> m.JobsView:
        return await self._call(specs.jobs())

    async def retry_jobs(self, job_id: str | None = None, all_jobs: bool = False) -> m.RetryResult:
        return await self._call(specs.retry_jobs(job_id, all_jobs))

    async def memory_stats(self) -> m.MemoryStats:
        return await self._call(specs.memory_stats())

    async def scan(
        self,
        kind: Literal["check", "repair"],
        grace_minutes: float = 15.0,
        progress: ProgressFn | None = None,
    ) -> dict[str, Any]:
        response = await self._send(specs.scan(kind, grace_minutes), stream=True)
        try:
            async for line in response.aiter_lines():
                if not line:
                    continue
                item = m.ScanProgress.model_validate(json.loads(line))
                if item.event == "progress" and progress is not None:
                    progress(item.phase or "", item.done or 0, item.total or 0)
                elif item.event == "error" and item.error is not None:
                    raise_for_body(500, item.error.model_dump())
                elif item.event == "result" and item.result is not None:
                    return item.result
        except httpx.TransportError as exc:
            raise ConnectionLost(f"the {kind} broke off ({transport_detail(exc)})") from exc
        finally:
            await response.aclose()
        raise ServiceUnavailable(f"the {kind} ended without a result")

    async def optimize(self) -> m.OptimizeResult:
        return await self._call(specs.optimize())

    async def doctor(self) -> m.DoctorView:
        return await self._call(specs.doctor())

    async def listen(self, host: str = "127.0.0.1", port: int = 8765) -> str:
        return (await self._call(specs.listen(host, port))).url

    async def stop_service(self) -> None:
        await self._call(specs.stop())
