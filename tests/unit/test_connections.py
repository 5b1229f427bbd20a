"""What a connection may cost before it has sent its request head (thea.service.connections):
a deadline for the head, and a cap on connections still sending one (the oldest goes first)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from thea.service.connections import guarded_protocol


async def hello(scope: Scope, receive: Receive, send: Send) -> None:
    await PlainTextResponse("hello")(scope, receive, send)


@contextmanager
def serving(header_timeout_s: float, max_pending: int) -> Iterator[uvicorn.Server]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        chosen = int(probe.getsockname()[1])
    config = uvicorn.Config(
        hello,
        host="127.0.0.1",
        port=chosen,
        log_level="warning",
        lifespan="off",
        http=guarded_protocol(header_timeout_s, max_pending),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def port_of(server: uvicorn.Server) -> int:
    return int(server.servers[0].sockets[0].getsockname()[1])


@pytest.fixture
def port() -> Iterator[int]:
    with serving(1.0, 2) as server:
        yield port_of(server)


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


def test_whole_requests_that_arrived_during_a_stall_are_answered_not_evicted() -> None:
    """A burst of clients that each sent a whole request while the loop was busy (CI: 200 at
    once against a cap of 100) is accepted before any of it is read; the cap must count only
    heads still unfinished once what has arrived is read, or it closes answered clients."""
    with serving(5.0, 2) as server:
        chosen = port_of(server)
        loop = server.servers[0].get_loop()
        loop.call_soon_threadsafe(time.sleep, 1.0)  # the loop is busy while the burst arrives
        time.sleep(0.1)
        clients = []
        for _ in range(12):
            sock = socket.create_connection(("127.0.0.1", chosen), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            clients.append(sock)
        answered = 0
        for sock in clients:
            with sock:
                answered += sock.recv(1024).startswith(b"HTTP/1.1 200")
        assert answered == len(clients)
