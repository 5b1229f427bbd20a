"""One description per API call, shared by the sync and the async client: method, path, body,
query and the model the answer parses into. The clients only do the I/O.

Every POST carries a JSON body, ``{}`` when it has nothing to say: on TCP the service refuses
a POST that is not JSON (a web page elsewhere could send it without asking the browser)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel

from thea.api import IDEMPOTENCY_HEADER, PREFIX
from thea.api import models as m
from thea.errors import InputError


@dataclass(frozen=True)
class Spec:
    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str
    model: type[BaseModel] | None = None
    json: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    #: one per logical request: its retries send the same key, so a write happens once
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def url(self) -> str:
        return PREFIX + self.path

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.method == "GET" else {IDEMPOTENCY_HEADER: self.key}


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


def health() -> Spec:
    return Spec("GET", "/health", m.Health)


def status() -> Spec:
    return Spec("GET", "/status", m.ServiceStatus)


def whoami(session_id: str | None) -> Spec:
    return Spec("GET", "/whoami", m.WhoAmI, params=_clean({"session_id": session_id}))


def ask(text: str, session_id: str | None, stream: bool) -> Spec:
    body = m.AskRequest(text=sendable_text(text, "the message"), session_id=session_id, stream=stream)
    return Spec("POST", "/ask", m.AskResult, json=body.model_dump(exclude_none=True))


def chat(text: str, session_id: str | None) -> Spec:
    body = m.ChatRequest(text=sendable_text(text, "the message"), session_id=session_id)
    return Spec("POST", "/chat", None, json=body.model_dump(exclude_none=True))


def sessions(limit: int) -> Spec:
    return Spec("GET", "/sessions", m.ChatSessionList, params={"limit": limit})


def session(session_id: str, limit: int) -> Spec:
    return Spec(
        "GET", f"/sessions/{_id(session_id, 'a session')}", m.ChatSessionView, params={"limit": limit}
    )


def _id(value: str, what: str) -> str:
    if not value.strip():
        raise InputError(f"give {what} (an id or an id prefix)")
    return quote(sendable_text(value.strip(), "the id"), safe="")


def trace(impulse: str, session_id: str | None, prompts: bool = False) -> Spec:
    path = f"/traces/{_id(impulse, 'an impulse')}"
    params = _clean({"session_id": session_id, "prompts": "true" if prompts else None})
    return Spec("GET", path, m.TraceView, params=params)


def insights(state: str, concept: str | None, min_strength: float, limit: int) -> Spec:
    params = _clean({"state": state, "concept": concept, "min_strength": min_strength, "limit": limit})
    return Spec("GET", "/insights", m.InsightList, params=params)


def insight(insight_id: str) -> Spec:
    return Spec("GET", f"/insights/{_id(insight_id, 'an insight')}", m.InsightDetailView)


def graph(node: str | None, concept: str | None, depth: int) -> Spec:
    return Spec(
        "GET", "/graph", m.GraphView, params=_clean({"node": node, "concept": concept, "depth": depth})
    )


def reflect(wait_s: float | None) -> Spec:
    return Spec("POST", "/reflect", m.ReflectionResult, json=m.ReflectRequest(wait_s=wait_s).model_dump())


def fact(text: str, session_id: str | None) -> Spec:
    body = m.FactRequest(text=sendable_text(text, "the fact"), session_id=session_id)
    return Spec("POST", "/facts", m.FactResult, json=body.model_dump(exclude_none=True))


def recall(query: str, limit: int) -> Spec:
    body = m.RecallRequest(query=sendable_text(query, "the query"), limit=limit)
    return Spec("POST", "/recall", m.RecallView, json=body.model_dump())


def remember(text: str, kind: str, session_id: str | None) -> Spec:
    text = sendable_text(text, "the text")
    body = m.RememberRequest.model_validate({"text": text, "kind": kind, "session_id": session_id})
    return Spec("POST", "/remember", m.Remembered, json=body.model_dump(exclude_none=True))


def import_history(text: str, fmt: str = "auto", source: str = "file", *, stream: bool = False) -> Spec:
    text = sendable_text(text, "the file")
    body = m.ImportRequest.model_validate({"text": text, "format": fmt, "source": source, "stream": stream})
    return Spec("POST", "/import", None if stream else m.ImportResult, json=body.model_dump())


def forget(node_id: str) -> Spec:
    return Spec("POST", "/forget", m.ForgetResult, json={"id": node_id})


def memories(include_history: bool = True) -> Spec:
    params = {"include_history": "true" if include_history else "false"}
    return Spec("GET", "/facts", m.FactsOfRecordView, params=params)


def memory(fact_id: str) -> Spec:
    return Spec("GET", f"/facts/{_id(fact_id, 'a fact')}", m.FactOfRecordView)


def correct_memory(fact_id: str, text: str) -> Spec:
    body = m.CorrectFactRequest(action="correct", text=sendable_text(text, "the correction"))
    return Spec("PATCH", f"/facts/{_id(fact_id, 'a fact')}", m.FactEditResult, json=body.model_dump())


def outdate_memory(fact_id: str) -> Spec:
    body = m.OutdateFactRequest(action="outdate")
    return Spec("PATCH", f"/facts/{_id(fact_id, 'a fact')}", m.FactEditResult, json=body.model_dump())


def forget_memory(fact_id: str) -> Spec:
    return Spec("DELETE", f"/facts/{_id(fact_id, 'a fact')}", m.FactEditResult)


def feedback(value: int, response_id: str | None, session_id: str | None) -> Spec:
    body = _clean({"value": value, "response_id": response_id, "session_id": session_id})
    return Spec("POST", "/feedback", m.FeedbackResult, json=body)


def jobs() -> Spec:
    return Spec("GET", "/jobs", m.JobsView)


def retry_jobs(job_id: str | None, all_jobs: bool) -> Spec:
    return Spec("POST", "/jobs/retry", m.RetryResult, json=_clean({"job_id": job_id, "all": all_jobs}))


def memory_stats() -> Spec:
    return Spec("GET", "/memory/stats", m.MemoryStats)


def scan(kind: Literal["check", "repair"], grace_minutes: float) -> Spec:
    return Spec("POST", f"/memory/{kind}", None, json={"grace_minutes": grace_minutes})


def optimize() -> Spec:
    return Spec("POST", "/memory/optimize", m.OptimizeResult, json={})


def doctor() -> Spec:
    return Spec("GET", "/doctor", m.DoctorView)


def export(since_ms: int, all_users: bool) -> Spec:
    return Spec("GET", "/export", None, params={"since_ms": since_ms, "all_users": all_users})


def stop() -> Spec:
    return Spec("POST", "/service/stop", json={})


def listen(host: str, port: int) -> Spec:
    return Spec("POST", "/service/listen", json={}, params={"host": host, "port": port})
