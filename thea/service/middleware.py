"""ASGI middleware of the service: transport tag, activity, stop gate, body limit, security
headers (the Host check is in :mod:`thea.service.hosts`).

Pure ASGI (no BaseHTTPMiddleware), so streamed answers pass through untouched.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Literal

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 512 * 1024
TRANSPORT_KEY = "thea.transport"
Transport = Literal["unix", "tcp"]


async def send_error(
    send: Send,
    status: int,
    message: str,
    kind: str,
    extra: dict[str, str] | None = None,
    *,
    openai: bool = False,
) -> None:
    """A small JSON error (never echoing the request); OpenAI's shape under ``/v1/``."""
    body = json.dumps({"error": message, "kind": kind, "detail": message}).encode()
    if openai:
        detail = {"message": message, "type": "invalid_request_error", "code": kind}
        body = json.dumps({"error": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    for key, value in (extra or {}).items():
        headers.append((key.lower().encode(), value.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class TransportTag:
    """Marks each request with the listener it came through: the unix socket is the local
    user's private door (filesystem permissions), TCP is not."""

    def __init__(self, app: ASGIApp, transport: Transport) -> None:
        self.app = app
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope[TRANSPORT_KEY] = self.transport
        await self.app(scope, receive, send)


class Activity:
    """Counts requests in flight and remembers the last one (the idle stop reads both)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.last = time.monotonic()

    def idle_for(self) -> float:
        return 0.0 if self.in_flight else time.monotonic() - self.last


class ActivityTracker:
    def __init__(self, app: ASGIApp, activity: Activity) -> None:
        self.app = app
        self.activity = activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.activity.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.in_flight -= 1
            self.activity.last = time.monotonic()


class StopGate:
    """Once the service is stopping, a new request gets 503 with kind ``stopping`` (a local
    client then waits for the service to exit and asks a new one); requests already running
    finish. ``stopping`` returns why it stops, or None while it runs."""

    def __init__(self, app: ASGIApp, stopping: Callable[[], object | None]) -> None:
        self.app = app
        self.stopping = stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reason = self.stopping() if scope["type"] == "http" else None
        if reason is None:
            await self.app(scope, receive, send)
            return
        openai = scope.get("path", "").startswith("/v1/")
        await send_error(send, 503, f"the thea service is stopping ({reason})", "stopping", openai=openai)


class BodyTooLarge(HTTPException):
    """Raised while reading an over-long body (an HTTPException, so the framework's body
    parsing passes it on instead of turning it into a 400)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body over {max_bytes:,} bytes")


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413: by Content-Length up front, and while
    reading for chunked uploads that announce no length."""

    def __init__(
        self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        #: exact paths allowed a larger body (an imported history file)
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        max_bytes = self.larger.get(path, self.max_bytes)
        openai = path.startswith("/v1/")
        message = f"request body over {max_bytes:,} bytes"
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_bytes):
            await send_error(send, 413, message, "input", openai=openai)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            received = await receive()
            if received["type"] == "http.request":
                seen += len(received.get("body", b""))
                if seen > max_bytes:
                    raise BodyTooLarge(max_bytes)
            return received

        async def tracking_send(out: Message) -> None:
            nonlocal started
            started = started or out["type"] == "http.response.start"
            await send(out)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await send_error(send, 413, message, "input", openai=openai)


class SecurityHeaders:
    """No sniffing, no framing; the page may only run its own scripts (defence in depth:
    stored text is rendered with ``textContent`` anyway)."""

    CSP = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'; form-action 'self'"
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("Content-Security-Policy", self.CSP)
            await send(message)

        await self.app(scope, receive, with_headers)
