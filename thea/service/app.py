"""The service's ASGI app: the v1 API, the web page, middleware and error handlers.

``create_app`` takes an already-built :class:`~thea.service.context.ServiceContext`; the
service process builds one (the composition root), tests build one around a runtime with a
scripted model. The same app object is served on the unix socket and, when asked, on TCP:
each listener wraps it in :class:`~thea.service.middleware.TransportTag`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp

from thea.api import PREFIX
from thea.api.models import MAX_IMPORT_BYTES
from thea.service.auth import cookie_name
from thea.service.context import ServiceContext
from thea.service.errors import install_error_handlers
from thea.service.hosts import HostCheck, allowed_hosts
from thea.service.idempotency import IdempotentWrites
from thea.service.mcp_mount import PATH as MCP_PATH
from thea.service.mcp_mount import McpEndpoint
from thea.service.metrics import CONTENT_TYPE as METRICS_TYPE
from thea.service.metrics import ServiceMetrics
from thea.service.middleware import (
    ActivityTracker,
    BodyLimit,
    SameOrigin,
    SecurityHeaders,
    StopGate,
    TokenGate,
    Transport,
    TransportTag,
)
from thea.service.openai_app import create_openai_app
from thea.service.routes import admin, cycle, facts, history, knowledge, memories, sessions
from thea.web import STATIC

#: how long a browser keeps the page's token (the local token does not change)
COOKIE_MAX_AGE_S = 30 * 24 * 3600


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    await app.state.mcp.aclose()


def create_app(ctx: ServiceContext) -> FastAPI:
    app = FastAPI(
        lifespan=_lifespan,
        title="thea",
        version=admin.thea_version(),
        summary="A cognitive architecture with an inspectable long-term memory",
        openapi_url=f"{PREFIX}/openapi.json",
        docs_url=f"{PREFIX}/docs",
        redoc_url=None,
    )
    app.state.ctx = ctx
    install_error_handlers(app)
    for module in (cycle, sessions, knowledge, facts, memories, history, admin):
        app.include_router(module.router, prefix=PREFIX)

    app.state.mcp = McpEndpoint(ctx, app, admin.thea_version())  # MCP, streamable HTTP
    app.add_route(MCP_PATH, app.state.mcp, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    app.mount("/v1", create_openai_app(ctx))  # OpenAI-compatible chat (docs/interfaces.md)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def index(request: Request, token: str | None = None) -> Response:
        """The page. ``/?token=...`` (the address ``thea serve`` prints) hands the page its
        token: kept in an HttpOnly, SameSite=Strict cookie, and taken out of the address bar
        by a redirect (the fragment, e.g. ``#insights``, stays)."""
        if token is None:
            return FileResponse(STATIC / "index.html")
        response = RedirectResponse("/", status_code=303, headers={"Cache-Control": "no-store"})
        if ctx.auth.token_user(token) is not None:
            response.set_cookie(
                cookie_name(request.scope),
                token,
                max_age=COOKIE_MAX_AGE_S,
                path="/",
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    metrics = ServiceMetrics(ctx.settings.profile)
    if ctx.runtime is not None:
        metrics.watch(ctx.runtime)
    app.state.metrics = metrics

    @app.get("/metrics", include_in_schema=False)
    async def prometheus(request: Request) -> Response:
        """Prometheus metrics (docs/interfaces.md); a token is required where the API needs one."""
        ctx.auth.caller(request)
        body = await asyncio.to_thread(metrics.exposition)  # the queue gauges ask Redis
        return Response(body, media_type=METRICS_TYPE)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    return app


def serve_app(
    app: FastAPI, ctx: ServiceContext, transport: Transport, bind_host: str | None = None
) -> ASGIApp:
    """The app as one listener serves it (outermost first: transport tag, host check, ...).
    ``bind_host`` (the address a TCP listener listens on) is accepted as a Host name."""
    settings = ctx.settings
    hosts = allowed_hosts(settings.web_allowed_hosts, bind_host=bind_host, token=ctx.auth.configured_tokens)
    wrapped: ASGIApp = SecurityHeaders(app)
    wrapped = IdempotentWrites(wrapped, ctx)  # a retried write gets the first result
    wrapped = BodyLimit(
        wrapped, larger={f"{PREFIX}/import": MAX_IMPORT_BYTES}, timeout_s=settings.service.body_timeout_s
    )
    wrapped = ActivityTracker(wrapped, ctx.activity)
    wrapped = SameOrigin(wrapped)  # TCP: changes only from the served site, POSTs only as JSON
    wrapped = TokenGate(wrapped, ctx.auth.admits)  # TCP: no token, no body read
    wrapped = StopGate(wrapped, lambda: ctx.stopping)
    wrapped = HostCheck(wrapped, hosts)
    return TransportTag(wrapped, transport)
