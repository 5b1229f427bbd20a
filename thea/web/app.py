"""``thea serve``: the web chat (streamed answers, trace panel, insights, graph view).

Each browser gets its own session cookie, hence its own user/session id and
conversation cache; the inspector endpoints (trace, insights, graph) show only that
user's memories, concepts included (concepts are per user); another user's id gets the
same 404 as an id that does not exist. With ``web_token`` set, every ``/api/``
request needs ``Authorization: Bearer <token>`` (the page asks once per tab). Request
bodies are size-limited (413), also when sent chunked. Stored text is always rendered
as text by the page (``textContent``), never as HTML, and a Content-Security-Policy
allows only the page's own scripts. Without a token only loopback ``Host`` names are
answered (DNS rebinding, see ``thea.web.hosts``); every error is a small JSON body that
never echoes the request (``thea.web.errors``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

from fastapi import Depends, FastAPI, HTTPException, Query, Request, Response
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.insights import State, insight_detail, list_insights
from services.trace import load_trace, trace_json
from thea.errors import InputError, NotFoundError, TheaError
from thea.memory.universal import unknown_id
from thea.models import Node, normalize_name
from thea.runtime import Runtime
from thea.runtime.commands import ChatSession, is_command, run_command
from thea.web.errors import error_response, install_error_handlers
from thea.web.hosts import HostCheck, allowed_hosts
from thea.web.serialize import graph_json, insight_detail_json, insight_json

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "thea_session"
MAX_BODY_BYTES = 256 * 1024


class ChatRequest(BaseModel):
    text: str = Field(max_length=200_000)


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(413, f"request body over {MAX_BODY_BYTES} bytes")


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413: by Content-Length up front, and while
    reading for chunked uploads that announce no length (pure ASGI: streaming responses
    pass through untouched)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None:
            too_big = not length.isdigit() or int(length) > self.max_bytes
            if too_big:
                await _error(413, f"request body over {self.max_bytes} bytes")(scope, receive, send)
                return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await _error(413, f"request body over {self.max_bytes} bytes")(scope, receive, send)


class TokenAuth:
    """Bearer-token protection of ``/api/`` when a token is configured (the page itself
    and its static files stay public so the browser can ask for the token)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token and scope["type"] == "http" and scope["path"].startswith("/api/"):
            given = Headers(scope=scope).get("authorization", "")
            scheme, _, value = given.partition(" ")
            ok = scheme.lower() == "bearer" and hmac.compare_digest(
                value.strip().encode(), self.token.encode()
            )
            if not ok:
                response = _error(401, "missing or wrong access token")
                response.headers["WWW-Authenticate"] = "Bearer"
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


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


def _error(status: int, message: str) -> JSONResponse:
    return error_response(status, message)


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def create_app(
    runtime: Runtime,
    *,
    own_runtime: bool = False,
    max_sessions: int = 1000,
    bind_host: str | None = None,
) -> FastAPI:
    """The web app around an already-built runtime (closed on shutdown when ``own_runtime``).

    Every browser is one user: the inspector endpoints (trace, insights, graph) only show
    that user's memories and concepts. ``bind_host`` (the address ``thea serve`` listens on)
    is accepted as a ``Host`` name besides the loopback names.
    """
    sessions: OrderedDict[str, ChatSession] = OrderedDict()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if own_runtime:
            await asyncio.to_thread(runtime.close)

    app = FastAPI(title="thea", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    token = runtime.settings.web_token.get_secret_value() if runtime.settings.web_token else None
    hosts = allowed_hosts(runtime.settings.web_allowed_hosts, bind_host=bind_host, token=bool(token))
    install_error_handlers(app)
    app.add_middleware(TokenAuth, token=token)
    app.add_middleware(BodyLimit)
    app.add_middleware(HostCheck, allowed=hosts)
    app.add_middleware(SecurityHeaders)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def session_of(request: Request) -> tuple[ChatSession, str | None]:
        """This browser's chat session, and the cookie to set when it is new."""
        sid = request.cookies.get(SESSION_COOKIE, "")
        new_cookie = None
        if not sid or len(sid) > 64 or not sid.isalnum():
            sid = secrets.token_hex(12)
            new_cookie = sid
        chat = sessions.get(sid)
        if chat is None:
            chat = sessions[sid] = ChatSession(user_id=f"web-{sid}", session_id=sid)
            while len(sessions) > max_sessions:
                sessions.popitem(last=False)
        sessions.move_to_end(sid)
        return chat, new_cookie

    def set_cookie(response: Response, value: str | None) -> None:
        if value:
            response.set_cookie(
                SESSION_COOKIE, value, httponly=True, samesite="strict", max_age=400 * 24 * 3600
            )

    def user_session(request: Request, response: Response) -> ChatSession:
        chat, new_cookie = session_of(request)
        set_cookie(response, new_cookie)
        return chat

    def visible(node: Node, chat: ChatSession) -> bool:
        return node.user_id == chat.user_id

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "profile": runtime.settings.profile, "auth": bool(token)}

    @app.get("/api/session")
    async def session(chat: ChatSession = Depends(user_session)) -> dict[str, Any]:
        return {
            "user_id": chat.user_id,
            "session_id": chat.session_id,
            "last_impulse_id": chat.last_impulse_id,
        }

    @app.post("/api/chat")
    async def chat(body: ChatRequest, request: Request) -> StreamingResponse:
        session, new_cookie = session_of(request)

        async def stream() -> AsyncIterator[bytes]:
            queue: asyncio.Queue[bytes | None] = asyncio.Queue()

            async def produce() -> None:
                try:
                    if is_command(body.text):
                        result = await run_command(runtime, session, body.text)
                        payload: dict[str, Any] = {"text": result.text, "data": result.data}
                        if result.trace is not None:
                            payload["trace"] = trace_json(result.trace)
                        await queue.put(_sse("command", payload))
                    else:
                        cycle = await runtime.orchestrator.handle_impulse(
                            body.text,
                            session.user_id,
                            session.session_id,
                            on_token=lambda piece: queue.put_nowait(_sse("token", piece)),
                        )
                        session.last_impulse_id = cycle.impulse_id
                        session.last_response_id = cycle.response_id
                        done = {
                            "impulse_id": cycle.impulse_id,
                            "response_id": cycle.response_id,
                            "failed_steps": cycle.failed_steps,
                        }
                        await queue.put(_sse("done", done))
                except InputError as exc:
                    await queue.put(_sse("error", {"message": str(exc), "kind": "input"}))
                except TheaError as exc:
                    await queue.put(_sse("error", {"message": str(exc), "kind": "backend"}))
                except Exception as exc:  # never leave the browser hanging
                    log.exception("chat request failed")
                    await queue.put(_sse("error", {"message": f"internal error: {type(exc).__name__}"}))
                finally:
                    await queue.put(None)

            task = asyncio.create_task(produce())
            try:
                while (item := await queue.get()) is not None:
                    yield item
            finally:
                await task

        response = StreamingResponse(stream(), media_type="text/event-stream")
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Accel-Buffering"] = "no"
        set_cookie(response, new_cookie)
        return response

    @app.get("/api/trace/{impulse_id}")
    async def trace(impulse_id: str, chat: ChatSession = Depends(user_session)) -> dict[str, Any]:
        def load() -> dict[str, Any]:
            key = chat.last_impulse_id if impulse_id == "last" else impulse_id
            if not key:
                raise NotFoundError("nothing to trace yet: say something first")
            loaded = load_trace(runtime.memory, runtime.memory.resolve_id(key, user_id=chat.user_id))
            if not visible(loaded.impulse, chat):
                raise unknown_id(key)
            return trace_json(loaded)

        try:
            return await asyncio.to_thread(load)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc

    @app.get("/api/insights")
    async def insights(
        state: str = Query("active", pattern="^(active|archived|all)$"),
        concept: str | None = Query(None, max_length=200),
        min_strength: float = Query(0.0, ge=0),
        limit: int = Query(100, ge=1, le=1000),
        chat: ChatSession = Depends(user_session),
    ) -> dict[str, Any]:
        rows = await asyncio.to_thread(
            list_insights,
            runtime.memory,
            state=cast(State, state),
            concept=concept or None,
            min_strength=min_strength,
            user_id=chat.user_id,
            limit=limit,
        )
        return {"insights": [insight_json(r.insight, r.concepts) for r in rows]}

    @app.get("/api/insights/{insight_id}")
    async def insight(insight_id: str, chat: ChatSession = Depends(user_session)) -> dict[str, Any]:
        def load() -> dict[str, Any]:
            found = runtime.memory.resolve_id(insight_id, user_id=chat.user_id)
            detail = insight_detail(runtime.memory, found)
            if not visible(detail.insight, chat):
                raise unknown_id(insight_id)
            return insight_detail_json(detail, runtime.memory.get(detail.merged_from + detail.merged_into))

        try:
            return await asyncio.to_thread(load)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc

    @app.get("/api/graph")
    async def graph(
        node: str | None = Query(None, max_length=128),
        concept: str | None = Query(None, max_length=200),
        depth: int = Query(2, ge=1, le=3),
        chat: ChatSession = Depends(user_session),
    ) -> dict[str, Any]:
        def load() -> dict[str, Any]:
            if concept:
                found = runtime.memory.graph.concepts_by_norm([normalize_name(concept)], chat.user_id)
                if not found:
                    raise NotFoundError(f"no concept named {concept!r}")
                start = next(iter(found.values())).id
            elif node:
                start = runtime.memory.resolve_id(node, user_id=chat.user_id)
            else:
                raise NotFoundError("give ?node=<id> or ?concept=<name>")
            # the walk itself stays inside this user's nodes; the filter is a second guard
            sub = runtime.memory.neighbourhood(start, depth=depth, limit=150, user_id=chat.user_id)
            sub.nodes = [n for n in sub.nodes if visible(n, chat)]
            if start not in {n.id for n in sub.nodes}:
                raise NotFoundError(f"no concept named {concept!r}") if concept else unknown_id(node or "")
            return graph_json(sub, start)

        try:
            return await asyncio.to_thread(load)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc

    return app
