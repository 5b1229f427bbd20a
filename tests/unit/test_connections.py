"""What a connection may cost before it has sent its request head (thea.service.connections):
a deadline for the head, and a cap on connections still sending one (the oldest goes first)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from thea.service.connections import guarded_protocol


async def hello(scope: Scope, receive: Receive, send: Send) -> None:
    await PlainTextResponse("hello")(scope, receive, send)


@pytest.fixture
def port() -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        chosen = int(probe.getsockname()[1])
    config = uvicorn.Config(
        hello,
        host="127.0.0.1",
        port=chosen,
        log_level="warning",
        lifespan="off",
        http=guarded_protocol(1.0, 2),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield chosen
    server.should_exit = True
    thread.join(timeout=10)


def partial(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
    return sock


def closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (waits up to its timeout)."""
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_head_that_never_ends_is_closed_and_the_oldest_goes_first(port: int) -> None:
    first, second, third = partial(port), partial(port), partial(port)
    first.settimeout(0.5)  # one over the cap of 2: the oldest is closed at once
    assert closed(first)
    for sock in (second, third):  # the others at the head deadline (1 s), not never
        sock.settimeout(10)
        assert closed(sock)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as prompt:  # a whole request is served
        prompt.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert prompt.recv(1024).startswith(b"HTTP/1.1 200")
