"""``thea.Client``: the service's API from Python, blocking (a notebook, a script, the CLI).

With no URL it talks to the local service of the data directory over its unix socket and
starts that service when none runs (what the README's first command installed is all it
needs); with ``url``/``THEA_URL`` (+ ``token``/``THEA_TOKEN``) it talks to a service elsewhere.
Every method returns a typed result (:mod:`thea.api.models`) or raises a :class:`TheaError`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
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
from thea.client.events import ChatEvent, Done, Token, import_events, parse_lines
from thea.config import Settings

T = TypeVar("T", bound=BaseModel)
ProgressFn = Callable[[str, int, int], None]
#: sends of one request at most (the first and two retries with the same idempotency key)
ATTEMPTS = 3
#: pause before sending to a remote service again, times the attempt
BACKOFF_S = 0.5


def _lines(response: httpx.Response, what: str) -> Iterator[str]:
    try:
        yield from response.iter_lines()
    except httpx.TransportError as exc:
        raise ConnectionLost(f"{what} broke off ({transport_detail(exc)})") from exc


class ExportStream:
    """The lines of an export as they arrive; ``total_hint`` bounds how many will come."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.total_hint = int(response.headers.get("X-Thea-Total-Hint", "0") or 0)

    def __iter__(self) -> Iterator[str]:
        try:
            yield from (line for line in self.response.iter_lines() if line)
        except httpx.TransportError as exc:
            raise ConnectionLost(f"the export broke off ({transport_detail(exc)})") from exc
        finally:
            self.close()

    def close(self) -> None:
        self.response.close()


class Client:
    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        user: str | None = None,
        settings: Settings | None = None,
        timeout_s: float = 900.0,
    ) -> None:
        self.connection = Connection.resolve(url, token, user=user, settings=settings)
        self._http: httpx.Client | None = None
        self.timeout_s = timeout_s

    # -- plumbing ----------------------------------------------------------------------

    def connect(
        self,
        on_wait: Callable[[], None] | None = None,
        on_status: Callable[[str], None] | None = None,
    ) -> Client:
        """Make sure the service answers (starting the local one if needed): ``on_wait`` is
        called when a start is waited for, ``on_status`` with what a starting service waits for
        ("the graph store is loading 13.2 MB (40% done)")."""
        self.connection.ensure(on_wait, on_status)
        return self

    def _client(self) -> httpx.Client:
        if self._http is None:
            self._http = httpx.Client(
                transport=httpx.HTTPTransport(uds=self.connection.uds) if self.connection.uds else None,
                base_url=self.connection.base_url,
                headers=self.connection.headers(),
                timeout=httpx.Timeout(self.timeout_s, connect=10.0),
            )
        return self._http

    def _send(self, spec: specs.Spec[Any], *, stream: bool = False) -> httpx.Response:
        """Send ``spec``; after a transport failure send it again (same idempotency key), up to
        :data:`ATTEMPTS` times, starting the local service again if it is gone."""
        for attempt in range(1, ATTEMPTS + 1):
            last = attempt == ATTEMPTS
            try:
                request = self._client().build_request(
                    spec.method, spec.url, json=spec.json, params=spec.params, headers=spec.headers
                )
                response = self._client().send(request, stream=stream)
            except httpx.TransportError as exc:
                if last or not retryable(exc):
                    raise transport_error(exc, self.connection.where, self.timeout_s) from exc
                self._recover(attempt)
                continue
            if response.status_code >= 400:
                try:
                    response.read()
                except httpx.TransportError as exc:
                    raise transport_error(exc, self.connection.where, self.timeout_s) from exc
                finally:
                    response.close()
                if not last and self.connection.local and is_stopping(response):
                    self.connection.ensure(None)  # on its way out: wait for it to exit, start a new one
                    continue
                raise_for_response(response)
            return response
        raise AssertionError("unreachable")

    def _recover(self, attempt: int) -> None:
        """Before sending again: the local service stopped (idle) or died, so start it again; a
        remote one gets a moment."""
        if self.connection.local:
            self.connection.ensure(None)
        else:
            time.sleep(BACKOFF_S * attempt)

    def _call(self, spec: specs.Spec[T]) -> T:
        return spec.parse(self._send(spec).json())

    def _events(self, spec: specs.Spec[Any]) -> Generator[ChatEvent, None, None]:
        response = self._send(spec, stream=True)
        try:
            yield from parse_lines(response.iter_lines())
        except httpx.TransportError as exc:
            raise transport_error(exc, self.connection.where, self.timeout_s) from exc
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"the answer stream broke off: {transport_detail(exc)}") from exc
        finally:
            response.close()  # closing early (Ctrl-C, break) cancels the cycle in the service

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the cycle ---------------------------------------------------------------------

    def health(self) -> m.Health:
        return self._call(specs.health())

    def status(self) -> m.ServiceStatus:
        return self._call(specs.status())

    def whoami(self, session_id: str | None = None) -> m.WhoAmI:
        return self._call(specs.whoami(session_id))

    def ask(self, text: str, session_id: str | None = None) -> m.AskResult:
        """One cognitive cycle; the whole answer at once. A connection that breaks during the
        answer is retried with the same idempotency key (the service records the impulse once)."""
        spec = specs.ask(text, session_id, stream=True)
        for attempt in range(1, ATTEMPTS + 1):
            with closing(self._events(spec)) as events:
                try:
                    for event in events:
                        if isinstance(event, Done):
                            return event.result
                except ConnectionLost:
                    if attempt == ATTEMPTS:
                        raise
                    self._recover(attempt)
                    continue
            break
        raise ServiceUnavailable("the answer stream ended without a result")

    def stream(self, text: str, session_id: str | None = None) -> Generator[Token | Done, None, None]:
        """One cognitive cycle, streamed: ``Token`` events, then ``Done``. Close the generator
        (or stop iterating) to cancel the cycle."""
        spec = specs.ask(text, session_id, stream=True)
        for attempt in range(1, ATTEMPTS + 1):
            events = self._events(spec)
            sent = False
            try:
                for event in events:
                    if isinstance(event, Token | Done):
                        sent = True
                        yield event
                return
            except ConnectionLost:
                # nothing shown yet: ask again with the same key (the service answers it once)
                if sent or attempt == ATTEMPTS:
                    raise
                self._recover(attempt)
            finally:
                events.close()  # closes the response: the service sees the stream end

    def chat(self, text: str, session_id: str | None = None) -> Generator[ChatEvent, None, None]:
        """A chat line: a message (streamed) or a ``!`` command (one ``Command`` event)."""
        return self._events(specs.chat(text, session_id))

    def sessions(self, limit: int = 50) -> m.ChatSessionList:
        """The caller's conversations, the latest first (their first message as a title)."""
        return self._call(specs.sessions(limit))

    def session(self, session_id: str, limit: int = 200) -> m.ChatSessionView:
        """One conversation's last ``limit`` messages with thea's answers, oldest first."""
        return self._call(specs.session(session_id, limit))

    # -- knowledge ---------------------------------------------------------------------

    def trace(
        self, impulse: str = "last", session_id: str | None = None, prompts: bool = False
    ) -> m.TraceView:
        """One cycle's trace; ``prompts`` adds the exact messages of the prompt the model got."""
        return self._call(specs.trace(impulse, session_id, prompts))

    def insights(
        self,
        state: m.InsightState = "active",
        concept: str | None = None,
        min_strength: float = 0.0,
        limit: int = 100,
    ) -> list[m.InsightSummary]:
        return self._call(specs.insights(state, concept, min_strength, limit)).insights

    def slow_loop(self) -> m.SlowLoopView:
        """What the slow loop still has to do: jobs queued, the caller's messages still to be
        read, roughly how long, and one line saying so ("" when nothing waits)."""
        return self._call(specs.slow_loop())

    def insight(self, insight_id: str) -> m.InsightDetailView:
        return self._call(specs.insight(insight_id))

    def graph(self, node: str | None = None, concept: str | None = None, depth: int = 2) -> m.GraphView:
        return self._call(specs.graph(node, concept, depth))

    def reflect(self, wait_s: float | None = None) -> m.ReflectionResult:
        return self._call(specs.reflect(wait_s))

    def fact(self, text: str, session_id: str | None = None) -> m.FactResult:
        return self._call(specs.fact(text, session_id))

    def import_history(
        self,
        text: str,
        fmt: str = "auto",
        source: str = "file",
        progress: Callable[[int, int], None] | None = None,
    ) -> m.ImportResult:
        """Import a history file's text (LoCoMo JSON or JSONL) into the caller's memory;
        ``progress(done, total)`` is called after every batch of turns. An import that stops
        before its end (the service stopped) raises :class:`~thea.errors.ImportInterrupted`:
        the same call again continues where it stopped."""
        if progress is None:
            return self._call(specs.import_history(text, fmt, source))
        response = self._send(specs.import_history(text, fmt, source, stream=True), stream=True)
        try:
            for event in import_events(response.iter_lines()):
                if isinstance(event, m.ImportResult):
                    return event
                progress(*event)
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"the import's progress stream broke off: {exc}") from exc
        finally:
            response.close()  # closing early (Ctrl-C) stops the import at its next batch
        raise ServiceUnavailable("the import's progress stream ended without a result")

    def recall(self, query: str, limit: int = 8) -> list[m.MemoryHit]:
        """The caller's memories that match ``query``, best first (no model call)."""
        return self._call(specs.recall(query, limit)).memories

    def remember(
        self, text: str, kind: m.MemoryKind = "message", session_id: str | None = None
    ) -> m.Remembered:
        """Store a message (verbatim, no model call) or a fact (confidence checked) for the caller."""
        return self._call(specs.remember(text, kind, session_id))

    def forget(self, node_id: str) -> m.ForgetResult:
        return self._call(specs.forget(node_id))

    def memories(self, include_history: bool = True) -> m.FactsOfRecordView:
        """What thea knows about the caller: current facts by subject, with a summary."""
        return self._call(specs.memories(include_history))

    def memory(self, fact_id: str) -> m.FactOfRecordView:
        """One fact (id or prefix) with the message it came from and its earlier values."""
        return self._call(specs.memory(fact_id))

    def correct_memory(self, fact_id: str, text: str) -> m.FactEditResult:
        """Replace a fact by what is true instead (the fact stays in history)."""
        return self._call(specs.correct_memory(fact_id, text))

    def outdate_memory(self, fact_id: str) -> m.FactEditResult:
        """A fact no longer holds; nothing replaces it (kept in history)."""
        return self._call(specs.outdate_memory(fact_id))

    def forget_memory(self, fact_id: str) -> m.FactEditResult:
        """Delete a fact for good: graph, vectors, answers, recall, insights."""
        return self._call(specs.forget_memory(fact_id))

    def forget_about(self, about: str) -> m.ErasureResult:
        """Forget everything about a subject for good (every fact naming it, its words everywhere)."""
        return self._call(specs.forget_about(about))

    def forget_conversation(self, session_id: str) -> m.ErasureResult:
        """Forget a whole conversation for good: messages, answers, facts told in it, insights."""
        return self._call(specs.forget_conversation(session_id))

    def forget_everything(self) -> m.ErasureResult:
        """Delete everything thea has of the caller, for good."""
        return self._call(specs.forget_everything())

    def feedback(
        self, value: int, response_id: str | None = None, session_id: str | None = None
    ) -> m.FeedbackResult:
        return self._call(specs.feedback(value, response_id, session_id))

    def export(self, since_ms: int = 0, all_users: bool = False) -> ExportStream:
        """Completed cycles as JSON lines (docs/export.md); iterate it, then close it."""
        return ExportStream(self._send(specs.export(since_ms, all_users), stream=True))

    # -- operations --------------------------------------------------------------------

    def jobs(self) -> m.JobsView:
        return self._call(specs.jobs())

    def retry_jobs(self, job_id: str | None = None, all_jobs: bool = False) -> m.RetryResult:
        return self._call(specs.retry_jobs(job_id, all_jobs))

    def memory_stats(self) -> m.MemoryStats:
        return self._call(specs.memory_stats())

    def scan(
        self,
        kind: Literal["check", "repair"],
        grace_minutes: float = 15.0,
        progress: ProgressFn | None = None,
    ) -> dict[str, Any]:
        """Check (or repair) the layers; ``progress(phase, done, total)`` as it goes."""
        response = self._send(specs.scan(kind, grace_minutes), stream=True)
        try:
            for line in _lines(response, f"the {kind}"):
                if not line:
                    continue
                item = m.ScanProgress.model_validate(json.loads(line))
                if item.event == "progress" and progress is not None:
                    progress(item.phase or "", item.done or 0, item.total or 0)
                elif item.event == "error" and item.error is not None:
                    raise_for_body(500, item.error.model_dump())
                elif item.event == "result" and item.result is not None:
                    return item.result
        finally:
            response.close()
        raise ServiceUnavailable(f"the {kind} ended without a result")

    def optimize(self) -> m.OptimizeResult:
        return self._call(specs.optimize())

    def doctor(self) -> m.DoctorView:
        return self._call(specs.doctor())

    def listen(self, host: str = "127.0.0.1", port: int = 8765) -> str:
        return self._call(specs.listen(host, port)).url

    def stop_service(self) -> None:
        self._call(specs.stop())
