"""The thea service in-process: its ASGI app around an already-built runtime (e.g. one with a
fake model), and a uvicorn server for it on 127.0.0.1 in a daemon thread."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from thea.config import Settings
from thea.local_token import ensure_local_token
from thea.locations import ServicePaths
from thea.runtime import Runtime
from thea.service.app import create_app, serve_app
from thea.service.auth import Authenticator
from thea.service.context import ServiceContext


def service_context(runtime: Runtime, settings: Settings | None = None) -> ServiceContext:
    """A service context around an already-built runtime (tests: a fake model)."""
    chosen = settings or runtime.settings
    return ServiceContext(runtime=runtime, auth=Authenticator(chosen), settings=chosen)


def service_app(runtime: Runtime, settings: Settings | None = None, transport: str = "tcp") -> ASGIApp:
    """The service's app as a listener serves it (TCP unless told: the page's path)."""
    ctx = service_context(runtime, settings)
    return serve_app(create_app(ctx), ctx, "unix" if transport == "unix" else "tcp")


def local_token(settings: Settings) -> str:
    """The data directory's local token (what ``thea serve``'s address carries), made if needed."""
    return ensure_local_token(ServicePaths.of(settings.data_dir))


def bearer(settings: Settings) -> dict[str, str]:
    """The header a TCP client of the local user sends."""
    return {"Authorization": f"Bearer {local_token(settings)}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """uvicorn serving an ASGI app (e.g. :func:`service_app`) on 127.0.0.1 in a daemon thread
    (on ``port``, e.g. a stopped server's, or a free one). ``token``: what its clients present
    (e.g. :func:`local_token`), for :attr:`headers`."""

    def __init__(self, app: Any, token: str | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=f"uvicorn-{self.port}", daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
