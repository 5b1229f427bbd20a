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
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp

from thea.api import PREFIX
from thea.api.models import MAX_IMPORT_BYTES
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
    SecurityHeaders,
    StopGate,
    Transport,
    TransportTag,
)
from thea.service.openai_app import create_openai_app
from thea.service.routes import admin, cycle, facts, history, knowledge, memories, sessions
from thea.web import STATIC


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
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    metrics = ServiceMetrics(ctx.config.profile)
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
    settings = ctx.config
    hosts = allowed_hosts(settings.web_allowed_hosts, bind_host=bind_host, token=ctx.auth.tokens_required)
    wrapped: ASGIApp = SecurityHeaders(app)
    wrapped = IdempotentWrites(wrapped, ctx)  # a retried write gets the first result
    wrapped = BodyLimit(wrapped, larger={f"{PREFIX}/import": MAX_IMPORT_BYTES})
    wrapped = ActivityTracker(wrapped, ctx.activity)
    wrapped = StopGate(wrapped, lambda: ctx.stopping)
    wrapped = HostCheck(wrapped, hosts)
    return TransportTag(wrapped, transport)
