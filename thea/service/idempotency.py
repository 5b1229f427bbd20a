"""Retries without duplicates: a mutating request with an ``Idempotency-Key`` header runs once
per user and key; the same request sent again (a client's retry after a dropped connection,
a timeout, a restarted service) gets the first response back, marked with the
``Idempotent-Replayed: true`` header, and writes nothing.

The first responses live in the store (:mod:`workers.idempotency`), not in this process, so
a restarted service, or another replica on the same stores, answers a retry the same way.
A duplicate that arrives while the first request still runs waits for its result. Routes
derive the ids of what they write from the key (:func:`request_id`), so a request whose
first run was cut off (the service killed mid-request, a cancelled stream) writes the same
nodes when it runs again.

Not kept (a retry runs again): server errors (5xx), ``busy`` and other transient answers, a
stream that ended with an ``error`` event or was cut off, and responses over 1 MB.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from thea.api import IDEMPOTENCY_HEADER
from thea.errors import TheaError
from thea.models import stable_id
from thea.service.context import ServiceContext
from thea.service.middleware import send_error
from workers.idempotency import IdempotencyStore, StoredResponse
from workers.locks import LeaseLock

log = logging.getLogger(__name__)

#: the key as the request carried it (routes read it with :func:`request_key`)
KEY_SCOPE = "thea.idempotency_key"
REPLAYED_HEADER = "Idempotent-Replayed"
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: 1-128 characters; clients send a uuid
KEY_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
#: how long a duplicate waits for the first request with its key to finish
WAIT_S = 900.0
POLL_S = 0.1
#: answers that may change on their own: a retry runs the request again
_TRANSIENT = {408, 409, 423, 425, 429}
#: paths whose requests are not kept (MCP has sessions of its own)
_EXEMPT = ("/mcp",)


def request_key(request: Request) -> str | None:
    """The request's idempotency key (None when it carried none)."""
    key = request.scope.get(KEY_SCOPE)
    return key if isinstance(key, str) else None


def request_id(request: Request, user_id: str, what: str) -> str | None:
    """A node id that derives from the user and the request's key: the same request sent again
    writes the same node. None for a request without a key (a fresh id, as before)."""
    key = request_key(request)
    return stable_id("request", user_id, key, what) if key else None


def _fingerprint(scope: Scope, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (scope.get("method", ""), scope.get("path", ""), scope.get("query_string", b"")):
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\x00")
    digest.update(_canonical(body))
    return digest.hexdigest()


def _canonical(body: bytes) -> bytes:
    """A JSON body in one spelling (a retry may serialise it with other spacing or key order)."""
    try:
        return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, RecursionError):
        return body


def _keepable(status: int, headers: list[tuple[str, str]], body: bytes) -> bool:
    if status >= 500 or status in _TRANSIENT:
        return False
    streamed = any(k.lower() == "content-type" and "event-stream" in v for k, v in headers)
    return not (streamed and b"event: error" in body)


class _Capture:
    """The response as the app sends it (what the client gets is sent on unchanged)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.status = 0
        self.headers: list[tuple[str, str]] = []
        self.chunks: list[bytes] = []
        self.complete = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            chunk = bytes(message.get("body", b""))
            if chunk != b": keep-alive\n\n":
                self.chunks.append(chunk)
            self.complete = not message.get("more_body", False)
        await self.send(message)

    def stored(self, fingerprint: str) -> StoredResponse:
        headers = [(k, v) for k, v in self.headers if k.lower() not in ("content-length", "date")]
        return StoredResponse(fingerprint, self.status, headers, b"".join(self.chunks))


async def _replay(send: Send, stored: StoredResponse) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in stored.headers]
    headers.append((b"content-length", str(len(stored.body)).encode()))
    headers.append((REPLAYED_HEADER.lower().encode(), b"true"))
    await send({"type": "http.response.start", "status": stored.status, "headers": headers})
    await send({"type": "http.response.body", "body": stored.body})


class IdempotentWrites:
    """ASGI middleware: runs each keyed mutating request once per user (see the module doc).
    ``store_of`` gives the store, or None when the service has none (maintenance mode)."""

    def __init__(
        self,
        app: ASGIApp,
        ctx: ServiceContext,
        store_of: Callable[[], IdempotencyStore | None] | None = None,
        wait_s: float = WAIT_S,
    ) -> None:
        self.app = app
        self.ctx = ctx
        self.store_of = store_of or self._runtime_store
        self.wait_s = wait_s
        self._store: IdempotencyStore | None = None

    def _runtime_store(self) -> IdempotencyStore | None:
        runtime = self.ctx.runtime
        if runtime is None:
            return None
        if self._store is None or self._store.connection is not runtime.jobs.connection:
            self._store = IdempotencyStore(runtime.jobs.connection)
        return self._store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in MUTATING:
            await self.app(scope, receive, send)
            return
        key = Headers(scope=scope).get(IDEMPOTENCY_HEADER)
        path = str(scope.get("path", ""))
        if key is None or path.startswith(_EXEMPT):
            await self.app(scope, receive, send)
            return
        openai = path.startswith("/v1/")
        if not KEY_PATTERN.fullmatch(key):
            message = f"{IDEMPOTENCY_HEADER} must be 1-128 letters, digits or _.:-"
            await send_error(send, 400, message, "input", openai=openai)
            return
        store = self.store_of()
        try:
            user_id = self.ctx.auth.caller(Request(scope)).user_id
        except TheaError:
            store = None  # the route answers the auth error itself
        if store is None:
            await self.app(scope, receive, send)
            return
        scope[KEY_SCOPE] = key
        body, pending = await _read_body(receive)

        async def replay_receive() -> Message:
            return pending.popleft() if pending else await receive()

        fingerprint = _fingerprint(scope, body)
        try:
            lock = await self._first_or_claim(store, user_id, key, fingerprint, send, openai)
        except TheaError as exc:  # the store is down: run without the guarantee rather than fail
            log.warning("request key %s: the idempotency store is unavailable (%s); running it", key, exc)
            await self.app(scope, replay_receive, send)
            return
        if lock is None:
            return  # answered: the first response, a mismatch or a timeout
        capture = _Capture(send)
        try:
            await self.app(scope, replay_receive, capture)
        finally:
            if capture.complete and _keepable(capture.status, capture.headers, b"".join(capture.chunks)):
                await asyncio.to_thread(store.save, user_id, key, capture.stored(fingerprint))
            await asyncio.to_thread(lock.release)

    async def _first_or_claim(
        self, store: IdempotencyStore, user_id: str, key: str, fingerprint: str, send: Send, openai: bool
    ) -> LeaseLock | None:
        """The key's lock to run the request, or None after answering with the first response
        (waiting while the first still runs)."""
        deadline = time.monotonic() + self.wait_s
        while True:
            stored = await asyncio.to_thread(store.stored, user_id, key)
            if stored is None:
                lock = await asyncio.to_thread(store.claim, user_id, key)
                if lock is not None:
                    # the first may have finished between the two looks
                    stored = await asyncio.to_thread(store.stored, user_id, key)
                    if stored is None:
                        return lock
                    await asyncio.to_thread(lock.release)
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    message = f"this {IDEMPOTENCY_HEADER} was already used for a different request"
                    await send_error(send, 422, message, "input", openai=openai)
                else:
                    log.info("request key %s: answered with the first response (%d)", key, stored.status)
                    await _replay(send, stored)
                return None
            if time.monotonic() >= deadline:
                message = f"the first request with this {IDEMPOTENCY_HEADER} is still running; retry later"
                await send_error(send, 409, message, "busy", openai=openai)
                return None
            await asyncio.sleep(POLL_S)


async def _read_body(receive: Receive) -> tuple[bytes, deque[Message]]:
    """The whole request body, and the messages to hand the app instead of the real ones."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), deque([message])
        chunks.append(bytes(message.get("body", b"")))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    return body, deque([{"type": "http.request", "body": body, "more_body": False}])
