"""Which ``Host`` names the service answers to on TCP (protection against DNS rebinding).

A page on ``evil.example`` can make the browser resolve its own name to 127.0.0.1 and then
talk to a local thea as if it were its own site; the only trace of that is the ``Host``
header, which still says ``evil.example``. Without an access token thea therefore answers
only to loopback names (``localhost``, ``127.0.0.1``, ``::1``), the address it was told to
listen on, and the names listed in ``web_allowed_hosts`` (``*`` allows any). With a token
set, a rebinding page cannot authenticate, so every name is accepted unless
``web_allowed_hosts`` is set explicitly. The unix socket has no Host to check: only this OS
user can open it.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from thea.service.errors import error_response
from thea.service.middleware import TRANSPORT_KEY

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
_ANY_ADDRESS = frozenset({"", "0.0.0.0", "::"})


def host_name(value: str) -> str:
    """The host part of a ``Host`` header (no port, no IPv6 brackets, lower case, no final dot)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def allowed_hosts(configured: Iterable[str], *, bind_host: str | None, token: bool) -> frozenset[str] | None:
    """The accepted host names, or ``None`` when any name is accepted."""
    names = {host_name(h) for h in configured if h.strip()}
    if "*" in names or (token and not names):
        return None
    if bind_host and host_name(bind_host) not in _ANY_ADDRESS:
        names.add(host_name(bind_host))
    return frozenset(names | LOOPBACK)


class HostCheck:
    """Refuse requests whose ``Host`` is not an allowed name (400, JSON, input not echoed)."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tcp = scope.get(TRANSPORT_KEY, "tcp") == "tcp"
        if self.allowed is not None and tcp and scope["type"] in ("http", "websocket"):
            name = host_name(Headers(scope=scope).get("host", ""))
            if name not in self.allowed:
                message = (
                    "this server answers only to "
                    + ", ".join(sorted(self.allowed))
                    + "; the request named another host (protection against DNS rebinding). "
                    "Open it under one of those names, or list the name in THEA_WEB_ALLOWED_HOSTS"
                )
                await error_response(400, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
