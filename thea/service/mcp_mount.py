"""MCP over streamable HTTP at ``/mcp`` on the service (stateless: any request may reach any
worker; JSON responses).

The caller is checked before MCP sees the request (a missing or wrong token gets a 401 JSON
error, as on the v1 API). The tools then call the v1 API in-process (httpx's ASGI transport)
with the request's own ``Authorization`` and ``X-Thea-User`` headers and its transport tag,
so every rule of the API (who the user is, limits, errors) holds for MCP unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from thea.api import USER_HEADER
from thea.client import AsyncClient
from thea.errors import TheaError
from thea.interfaces.mcp_server import build_mcp_server
from thea.service.context import ServiceContext
from thea.service.errors import error_body
from thea.service.middleware import TRANSPORT_KEY, TransportTag, send_error

log = logging.getLogger(__name__)

PATH = "/mcp"
#: the in-process base URL of tool calls (a loopback name: the Host check lets it pass)
_INTERNAL = "http://localhost"


class McpEndpoint:
    """The ASGI endpoint of ``/mcp``; its session manager runs in a task of its own, started on
    the first request (the service's listeners run without lifespan events)."""

    def __init__(self, ctx: ServiceContext, api: ASGIApp, version: str) -> None:
        self.ctx = ctx
        self.api = api
        self.server = build_mcp_server(self._client, version)
        self.http = self.server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            # the service's own Host check (thea.service.hosts) guards every listener already
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._runner: asyncio.Task[None] | None = None
        self._started: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None

    @asynccontextmanager
    async def _client(self, mcp_ctx: Context) -> AsyncIterator[AsyncClient]:
        request = mcp_ctx.request_context.request
        scope = getattr(request, "scope", {}) or {}
        headers = getattr(request, "headers", None) or {}
        # "" when none: the in-process client must not go looking for a token of its own
        token = str(headers.get("authorization", "")).partition(" ")[2].strip()
        transport = httpx.ASGITransport(app=TransportTag(self.api, scope.get(TRANSPORT_KEY, "tcp")))
        client = AsyncClient(_INTERNAL, token, user=headers.get(USER_HEADER.lower()), transport=transport)
        try:
            yield client
        finally:
            await client.aclose()

    async def _run(self) -> None:
        assert self._started is not None
        assert self._stop is not None
        async with self.server.session_manager.run():
            self._started.set()
            await self._stop.wait()

    async def _ensure_running(self) -> None:
        if self._started is None:
            self._started, self._stop = asyncio.Event(), asyncio.Event()
            self._runner = asyncio.create_task(self._run(), name="thea-mcp")
        await self._started.wait()

    async def aclose(self) -> None:
        if self._stop is not None and self._runner is not None:
            self._stop.set()
            await asyncio.gather(self._runner, return_exceptions=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            self.ctx.auth.caller(Request(scope))
        except TheaError as exc:
            status, body = error_body(exc)
            extra = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            await send_error(send, status, body["error"], body["kind"], extra)
            return
        await self._ensure_running()
        await self.http(scope, receive, send)
