"""``thea serve``: the web chat (streamed answers, trace panel, insights, graph view).

Each browser gets its own session cookie, hence its own user/session id and
conversation cache. With ``web_token`` set, every API request needs
``Authorization: Bearer <token>`` (the page asks once and keeps it in the tab).
Request bodies are size-limited; stored text is always rendered as text by the
page (``textContent``), never as HTML.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.responses import Response

from services.insights import insight_detail, list_insights
from services.trace import load_trace, trace_json
from thea.errors import InputError, NotFoundError, TheaError
from thea.models import normalize_name
from thea.runtime import Runtime
from thea.runtime.commands import ChatSession, is_command, run_command
from thea.web.serialize import graph_json, insight_json

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "thea_session"
MAX_BODY_BYTES = 256 * 1024


class ChatRequest(BaseModel):
    text: str = Field(max_length=200_000)


class BodyLimit(BaseHTTPMiddleware):
    """Refuse oversized bodies before reading them (413)."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        length = request.headers.get("content-length")
        if length is not None and int(length or 0) > MAX_BODY_BYTES:
            return JSONResponse({"error": f"request body over {MAX_BODY_BYTES} bytes"}, status_code=413)
        return await call_next(request)


class TokenAuth(BaseHTTPMiddleware):
    """Bearer-token protection of the API when a token is configured."""

    def __init__(self, app: Any, token: str | None) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if self.token and request.url.path.startswith("/api/"):
            given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return JSONResponse({"error": "missing or wrong access token"}, status_code=401)
        return await call_next(request)


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def create_app(runtime: Runtime, *, own_runtime: bool = False) -> FastAPI:
    """The web app around an already-built runtime (closed on shutdown when ``own_runtime``)."""
    sessions: dict[str, ChatSession] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if own_runtime:
            await asyncio.to_thread(runtime.close)

    app = FastAPI(title="thea", lifespan=lifespan, docs_url=None, redoc_url=None)
    token = runtime.settings.web_token.get_secret_value() if runtime.settings.web_token else None
    app.add_middleware(TokenAuth, token=token)
    app.add_middleware(BodyLimit)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def session_of(request: Request) -> tuple[ChatSession, str | None]:
        sid = request.cookies.get(SESSION_COOKIE, "")
        new_cookie = None
        if not sid or len(sid) > 64 or not sid.isalnum():
            sid = secrets.token_hex(12)
            new_cookie = sid
        chat = sessions.get(sid)
        if chat is None:
            chat = sessions[sid] = ChatSession(user_id=f"web-{sid}", session_id=sid)
        return chat, new_cookie

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "profile": runtime.settings.profile, "auth": bool(token)}

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
                        done = {"impulse_id": cycle.impulse_id, "failed_steps": cycle.failed_steps}
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
        if new_cookie:
            response.set_cookie(SESSION_COOKIE, new_cookie, httponly=True, samesite="strict")
        return response

    @app.get("/api/trace/{impulse_id}")
    async def trace(impulse_id: str) -> dict[str, Any]:
        try:
            full = await asyncio.to_thread(runtime.memory.resolve_id, impulse_id)
            loaded = await asyncio.to_thread(load_trace, runtime.memory, full)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc
        return trace_json(loaded)

    @app.get("/api/insights")
    async def insights(
        state: str = Query("active", pattern="^(active|archived|all)$"),
        concept: str | None = Query(None, max_length=200),
        min_strength: float = Query(0.0, ge=0),
        limit: int = Query(100, ge=1, le=1000),
    ) -> dict[str, Any]:
        rows = await asyncio.to_thread(
            list_insights,
            runtime.memory,
            state=state,  # type: ignore[arg-type]
            concept=concept,
            min_strength=min_strength,
            limit=limit,
        )
        return {"insights": [insight_json(r.insight, r.concepts) for r in rows]}

    @app.get("/api/insights/{insight_id}")
    async def insight(insight_id: str) -> dict[str, Any]:
        try:
            full = await asyncio.to_thread(runtime.memory.resolve_id, insight_id)
            detail = await asyncio.to_thread(insight_detail, runtime.memory, full)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc
        data = insight_json(detail.insight, detail.concepts)
        data.update(
            relations=detail.relations,
            merged_from=detail.merged_from,
            merged_into=detail.merged_into,
            source_impulses=[n.id for n in detail.source_impulses],
        )
        return data

    @app.get("/api/graph")
    async def graph(
        node: str | None = Query(None, max_length=128),
        concept: str | None = Query(None, max_length=200),
        depth: int = Query(2, ge=1, le=3),
    ) -> dict[str, Any]:
        def load() -> dict[str, Any]:
            if concept:
                found = runtime.memory.graph.concepts_by_norm([normalize_name(concept)])
                if not found:
                    raise NotFoundError(f"no concept named {concept!r}")
                start = next(iter(found.values())).id
            elif node:
                start = runtime.memory.resolve_id(node)
            else:
                raise NotFoundError("give ?node=<id> or ?concept=<name>")
            return graph_json(runtime.memory.neighbourhood(start, depth=depth, limit=150), start)

        try:
            return await asyncio.to_thread(load)
        except NotFoundError as exc:
            raise HTTPException(404, str(exc)) from exc

    return app
