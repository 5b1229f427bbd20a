"""ASGI middleware of the service: transport tag, activity, stop gate, token gate, same-origin
check, body limit and read timeout, security headers (the Host check is in
:mod:`thea.service.hosts`, the header timeout and connection caps in
:mod:`thea.service.connections`).

Pure ASGI (no BaseHTTPMiddleware), so streamed answers pass through untouched. Every refusal
here is sent before the request's body is read, with ``Connection: close``: the server drops
the connection (and whatever of the body it buffered) at once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from typing import Literal
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from thea.api import PREFIX, paths

MAX_BODY_BYTES = 512 * 1024
#: default seconds a request body may stall between two reads
BODY_TIMEOUT_S = 30.0
TRANSPORT_KEY = "thea.transport"
Transport = Literal["unix", "tcp"]
#: what a TCP client may fetch without a token: the page's files (it then authenticates with
#: its cookie) and the health check (no data in it)
PUBLIC_PATHS = frozenset({"/", "/favicon.ico", PREFIX + paths.HEALTH})
PUBLIC_PREFIXES = ("/static/",)
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_CLOSE = {"Connection": "close"}


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
        kind_of = {401: "authentication_error", 403: "permission_error"}
        detail = {"message": message, "type": kind_of.get(status, "invalid_request_error"), "code": kind}
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


def _is_tcp(scope: Scope) -> bool:
    return bool(scope["type"] == "http" and scope.get(TRANSPORT_KEY, "tcp") == "tcp")


class TokenGate:
    """On TCP, refuse a request without a valid token (401) from its headers alone, before
    anything reads its body: an unauthenticated client can make the service hold no more than
    its headers. The page's files and the health check need none."""

    def __init__(self, app: ASGIApp, admits: Callable[[Scope], bool]) -> None:
        self.app = app
        self.admits = admits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        public = path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)
        if not _is_tcp(scope) or public or self.admits(scope):
            await self.app(scope, receive, send)
            return
        extra = {"WWW-Authenticate": "Bearer", **_CLOSE}
        message = "missing or wrong access token"
        await send_error(send, 401, message, "auth", extra, openai=path.startswith("/v1/"))


def _origin_of(url: str) -> tuple[str, str]:
    """(scheme, host[:port]) of an origin or URL, port only when not the scheme's default."""
    parts = urlsplit(url.strip().lower())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return parts.scheme, "?"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, host if port in (None, default) else f"{host}:{port}"


class SameOrigin:
    """On TCP, a request that changes something (any method but GET/HEAD/OPTIONS) must come
    from the served site itself, and a POST must carry JSON:

    * ``Origin`` (sent by browsers with every such request), when present, must name the host
      the request went to (its ``Host``); ``Sec-Fetch-Site: cross-site``/``same-site`` is
      refused too (a page on another port of the same host is same-site, not same-origin);
    * a POST needs ``Content-Type: application/json``: a page elsewhere cannot send that
      without the browser asking first (CORS), which thea never allows; HTML forms and
      body-less ``fetch`` calls cannot.

    Non-browser clients (the CLI, ``thea.Client``, OpenAI clients, MCP) send no Origin and JSON
    anyway. The unix socket is not a browser's to reach."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_tcp(scope) or scope.get("method", "GET") in _SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        openai = scope.get("path", "").startswith("/v1/")
        refusal = self._refusal(headers, scope)
        if refusal is not None:
            await send_error(send, 403, refusal, "forbidden", _CLOSE, openai=openai)
            return
        if scope.get("method") == "POST" and not _is_json(headers.get("content-type", "")):
            message = "a POST needs a JSON body (Content-Type: application/json)"
            await send_error(send, 415, message, "input", _CLOSE, openai=openai)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _refusal(headers: Headers, scope: Scope) -> str | None:
        site = headers.get("sec-fetch-site", "").strip().lower()
        if site in ("cross-site", "same-site"):
            return "cross-origin requests may not change anything here"
        origin = headers.get("origin")
        if origin is None:
            return None
        # the host and port, not the scheme: behind a TLS proxy the page is https, the listener http
        _, host = _origin_of(origin)
        _, served = _origin_of(f"{scope.get('scheme', 'http')}://{headers.get('host', '')}")
        if origin.strip().lower() == "null" or not host or host != served:
            return "cross-origin requests may not change anything here"
        return None


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class BodyTooLarge(HTTPException):
    """Raised while reading an over-long body (an HTTPException, so the framework's body
    parsing passes it on instead of turning it into a 400)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body over {max_bytes:,} bytes")


class BodyTimeout(HTTPException):
    """Raised when a request body stalls (408; an HTTPException for the same reason)."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(408, f"the request body stalled for {timeout_s:g} s")


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413: by Content-Length up front, and while
    reading for chunked uploads that announce no length. A body that sends nothing for
    ``timeout_s`` while it is being read gets 408. Both close the connection."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int = MAX_BODY_BYTES,
        larger: Mapping[str, int] | None = None,
        timeout_s: float = BODY_TIMEOUT_S,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        #: exact paths allowed a larger body (an imported history file)
        self.larger = dict(larger or {})
        self.timeout_s = timeout_s

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
            await send_error(send, 413, message, "input", _CLOSE, openai=openai)
            return
        body = _LimitedBody(receive, send, max_bytes, self.timeout_s)
        try:
            await self.app(scope, body.receive, body.send)
        except BodyTooLarge:
            if not body.started:
                await send_error(send, 413, message, "input", _CLOSE, openai=openai)
        except BodyTimeout as exc:
            if not body.started:
                await send_error(send, 408, str(exc.detail), "input", _CLOSE, openai=openai)


class _LimitedBody:
    """One request's body read under :class:`BodyLimit`: counted, timed, and the connection
    closed after the response when the body was refused."""

    def __init__(self, receive: Receive, send: Send, max_bytes: int, timeout_s: float) -> None:
        self._receive, self._send = receive, send
        self.max_bytes, self.timeout_s = max_bytes, timeout_s
        self.seen = 0
        self.started = False
        #: the whole body is in: later receives only wait for a disconnect
        self.complete = False
        self.refused = False

    async def receive(self) -> Message:
        if self.complete:
            return await self._receive()
        try:
            received = await asyncio.wait_for(self._receive(), self.timeout_s)
        except TimeoutError:
            self.refused = True
            raise BodyTimeout(self.timeout_s) from None
        if received["type"] == "http.request":
            self.seen += len(received.get("body", b""))
            self.complete = not received.get("more_body", False)
            if self.seen > self.max_bytes:
                self.refused = True
                raise BodyTooLarge(self.max_bytes)
        return received

    async def send(self, out: Message) -> None:
        if out["type"] == "http.response.start":
            self.started = True
            if self.refused:  # the rest of the body is not wanted: drop the connection
                MutableHeaders(scope=out)["Connection"] = "close"
        await self._send(out)


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
