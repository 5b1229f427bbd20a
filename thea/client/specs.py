"""One description per API call, shared by the sync and the async client: method, path, body,
query and the model the answer parses into. The clients only do the I/O.

Every POST carries a JSON body, ``{}`` when it has nothing to say: on TCP the service refuses
a POST that is not JSON (a web page elsewhere could send it without asking the browser)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from thea.api import IDEMPOTENCY_HEADER, PREFIX, paths
from thea.api import models as m
from thea.errors import InputError

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Spec(Generic[M]):
    """One API call: ``route`` is a path of :mod:`thea.api.paths` (``{name}`` filled from
    ``path_params``, already quoted), ``model`` what the answer parses into (None: a stream
    the client reads line by line)."""

    method: Literal["GET", "POST", "PATCH", "DELETE"]
    route: str
    model: type[M] | None = None
    json: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    path_params: dict[str, str] = field(default_factory=dict)
    #: one per logical request: its retries send the same key, so a write happens once
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def path(self) -> str:
        return self.route.format(**self.path_params)

    @property
    def url(self) -> str:
        return PREFIX + self.path

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.method == "GET" else {IDEMPOTENCY_HEADER: self.key}

    def parse(self, body: object) -> M:
        """The answer as its model."""
        if self.model is None:
            raise TypeError(f"{self.method} {self.route} answers with a stream, not one result")
        return self.model.model_validate(body)


@contextmanager
def _checked() -> Iterator[None]:
    """A request model the caller's values do not fit: one line, as the service would say it."""
    try:
        yield
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the request"
        raise InputError(f"{where}: {first.get('msg', 'invalid')}") from exc


def sendable_text(value: str, what: str) -> str:
    """``value`` if it can be sent as text; else :class:`InputError` in one line. Python hands
    bytes that are not UTF-8 (a command-line argument, a terminal set to another encoding) on
    as lone surrogates U+DC80-U+DCFF, which no JSON body can carry."""
    bad = next((c for c in value if "\ud800" <= c <= "\udfff"), None)
    if bad is None:
        return value
    code = ord(bad)
    if 0xDC80 <= code <= 0xDCFF:
        return _not_utf8(what, code - 0xDC00)
    raise InputError(f"{what} contains an invalid (unpaired surrogate) character")


def _not_utf8(what: str, byte: int) -> str:
    raise InputError(f"{what} is not valid UTF-8 text (byte 0x{byte:02X}); check the terminal's encoding")


def _clean(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def health() -> Spec[m.Health]:
    return Spec("GET", paths.HEALTH, m.Health)


def status() -> Spec[m.ServiceStatus]:
    return Spec("GET", paths.STATUS, m.ServiceStatus)


def slow_loop() -> Spec[m.SlowLoopView]:
    return Spec("GET", paths.SLOW_LOOP, m.SlowLoopView)


def whoami(session_id: str | None) -> Spec[m.WhoAmI]:
    return Spec("GET", paths.WHOAMI, m.WhoAmI, params=_clean({"session_id": session_id}))


def ask(text: str, session_id: str | None, stream: bool) -> Spec[m.AskResult]:
    with _checked():
        body = m.AskRequest(text=sendable_text(text, "the message"), session_id=session_id, stream=stream)
    return Spec("POST", paths.ASK, m.AskResult, json=body.model_dump(exclude_none=True))


def chat(text: str, session_id: str | None) -> Spec[BaseModel]:
    with _checked():
        body = m.ChatRequest(text=sendable_text(text, "the message"), session_id=session_id)
    return Spec("POST", paths.CHAT, None, json=body.model_dump(exclude_none=True))


def sessions(limit: int) -> Spec[m.ChatSessionList]:
    return Spec("GET", paths.SESSIONS, m.ChatSessionList, params={"limit": limit})


def session(session_id: str, limit: int) -> Spec[m.ChatSessionView]:
    return Spec(
        "GET",
        paths.SESSION,
        m.ChatSessionView,
        params={"limit": limit},
        path_params={"session_id": _id(session_id, "a session")},
    )


def _id(value: str, what: str) -> str:
    if not value.strip():
        raise InputError(f"give {what} (an id or an id prefix)")
    return quote(sendable_text(value.strip(), "the id"), safe="")


def trace(impulse: str, session_id: str | None, prompts: bool = False) -> Spec[m.TraceView]:
    params = _clean({"session_id": session_id, "prompts": "true" if prompts else None})
    return Spec(
        "GET", paths.TRACE, m.TraceView, params=params, path_params={"impulse": _id(impulse, "an impulse")}
    )


def insights(state: str, concept: str | None, min_strength: float, limit: int) -> Spec[m.InsightList]:
    params = _clean({"state": state, "concept": concept, "min_strength": min_strength, "limit": limit})
    return Spec("GET", paths.INSIGHTS, m.InsightList, params=params)


def insight(insight_id: str) -> Spec[m.InsightDetailView]:
    return Spec(
        "GET", paths.INSIGHT, m.InsightDetailView, path_params={"insight_id": _id(insight_id, "an insight")}
    )


def graph(node: str | None, concept: str | None, depth: int) -> Spec[m.GraphView]:
    return Spec(
        "GET", paths.GRAPH, m.GraphView, params=_clean({"node": node, "concept": concept, "depth": depth})
    )


def reflect(wait_s: float | None) -> Spec[m.ReflectionResult]:
    with _checked():
        body = m.ReflectRequest(wait_s=wait_s)
    return Spec("POST", paths.REFLECT, m.ReflectionResult, json=body.model_dump())


def fact(text: str, session_id: str | None) -> Spec[m.FactResult]:
    with _checked():
        body = m.FactRequest(text=sendable_text(text, "the fact"), session_id=session_id)
    return Spec("POST", paths.FACTS, m.FactResult, json=body.model_dump(exclude_none=True))


def recall(query: str, limit: int) -> Spec[m.RecallView]:
    with _checked():
        body = m.RecallRequest(query=sendable_text(query, "the query"), limit=limit)
    return Spec("POST", paths.RECALL, m.RecallView, json=body.model_dump())


def remember(text: str, kind: m.MemoryKind, session_id: str | None) -> Spec[m.Remembered]:
    text = sendable_text(text, "the text")
    with _checked():
        body = m.RememberRequest(text=text, kind=kind, session_id=session_id)
    return Spec("POST", paths.REMEMBER, m.Remembered, json=body.model_dump(exclude_none=True))


def import_history(
    text: str, fmt: str = "auto", source: str = "file", *, stream: bool = False
) -> Spec[m.ImportResult]:
    text = sendable_text(text, "the file")
    with _checked():
        body = m.ImportRequest.model_validate(
            {"text": text, "format": fmt, "source": source, "stream": stream}
        )
    return Spec("POST", paths.IMPORT, None if stream else m.ImportResult, json=body.model_dump())


def forget(node_id: str) -> Spec[m.ForgetResult]:
    with _checked():
        body = m.ForgetRequest(id=node_id)
    return Spec("POST", paths.FORGET, m.ForgetResult, json=body.model_dump())


def memories(include_history: bool = True) -> Spec[m.FactsOfRecordView]:
    params = {"include_history": "true" if include_history else "false"}
    return Spec("GET", paths.FACTS, m.FactsOfRecordView, params=params)


def _fact_id(fact_id: str) -> dict[str, str]:
    return {"fact_id": _id(fact_id, "a fact")}


def memory(fact_id: str) -> Spec[m.FactOfRecordView]:
    return Spec("GET", paths.FACT, m.FactOfRecordView, path_params=_fact_id(fact_id))


def correct_memory(fact_id: str, text: str) -> Spec[m.FactEditResult]:
    with _checked():
        body = m.CorrectFactRequest(action="correct", text=sendable_text(text, "the correction"))
    return Spec("PATCH", paths.FACT, m.FactEditResult, json=body.model_dump(), path_params=_fact_id(fact_id))


def outdate_memory(fact_id: str) -> Spec[m.FactEditResult]:
    body = m.OutdateFactRequest(action="outdate")
    return Spec("PATCH", paths.FACT, m.FactEditResult, json=body.model_dump(), path_params=_fact_id(fact_id))


def forget_memory(fact_id: str) -> Spec[m.FactEditResult]:
    return Spec("DELETE", paths.FACT, m.FactEditResult, path_params=_fact_id(fact_id))


def forget_about(about: str) -> Spec[m.ErasureResult]:
    words = " ".join(about.split())
    if not words:
        raise InputError("say what to forget everything about")
    return Spec("DELETE", paths.FACTS, m.ErasureResult, params={"about": words})


def forget_conversation(session_id: str) -> Spec[m.ErasureResult]:
    return Spec(
        "DELETE",
        paths.SESSION,
        m.ErasureResult,
        path_params={"session_id": _id(session_id, "a conversation")},
    )


def forget_everything() -> Spec[m.ErasureResult]:
    return Spec("DELETE", paths.ME, m.ErasureResult)


def feedback(value: int, response_id: str | None, session_id: str | None) -> Spec[m.FeedbackResult]:
    with _checked():
        body = m.FeedbackRequest.model_validate(
            {"value": value, "response_id": response_id, "session_id": session_id}
        )  # value: an int the service checks is 1 or -1
    return Spec("POST", paths.FEEDBACK, m.FeedbackResult, json=body.model_dump(exclude_none=True))


def jobs() -> Spec[m.JobsView]:
    return Spec("GET", paths.JOBS, m.JobsView)


def retry_jobs(job_id: str | None, all_jobs: bool) -> Spec[m.RetryResult]:
    with _checked():
        body = m.RetryRequest(job_id=job_id, all=all_jobs)
    return Spec("POST", paths.JOBS_RETRY, m.RetryResult, json=body.model_dump(exclude_none=True))


def memory_stats() -> Spec[m.MemoryStats]:
    return Spec("GET", paths.MEMORY_STATS, m.MemoryStats)


def scan(kind: Literal["check", "repair"], grace_minutes: float) -> Spec[BaseModel]:
    with _checked():
        body = m.ScanRequest(grace_minutes=grace_minutes)
    route = paths.MEMORY_CHECK if kind == "check" else paths.MEMORY_REPAIR
    return Spec("POST", route, None, json=body.model_dump())


def optimize() -> Spec[m.OptimizeResult]:
    return Spec("POST", paths.MEMORY_OPTIMIZE, m.OptimizeResult, json={})


def doctor() -> Spec[m.DoctorView]:
    return Spec("GET", paths.DOCTOR, m.DoctorView)


def export(since_ms: int, all_users: bool) -> Spec[BaseModel]:
    return Spec("GET", paths.EXPORT, None, params={"since_ms": since_ms, "all_users": all_users})


def stop() -> Spec[m.Stopping]:
    return Spec("POST", paths.SERVICE_STOP, m.Stopping, json={})


def listen(host: str, port: int) -> Spec[m.Listening]:
    return Spec("POST", paths.SERVICE_LISTEN, m.Listening, json={}, params={"host": host, "port": port})
