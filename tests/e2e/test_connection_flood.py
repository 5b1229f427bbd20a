"""Unauthenticated memory exhaustion on TCP (issue 22, item 5), against a real service process
(``thea serve``, fake model): stalled connections by the hundred are closed within their
timeout, the service answers its user meanwhile, and its memory returns to where it was.

Before: 1,000 connections each sending most of a declared 524 KB body and stalling held
+488 MB indefinitely (the body was read before the token was checked, with no read timeout)."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests import processes
from thea.locations import ServicePaths
from thea.proc import ProcessRecord

#: short limits, so the test waits seconds, not the defaults' 10 s / 30 s
TIMEOUT_S = 3
LIMITS = {
    "THEA_SERVICE__HEADER_TIMEOUT_S": str(TIMEOUT_S),
    "THEA_SERVICE__BODY_TIMEOUT_S": str(TIMEOUT_S),
    "THEA_SERVICE__MAX_PENDING_CONNECTIONS": "100",
}
DECLARED = 524_288  # the largest body a route takes (512 KB)
SENT = 400_000  # most of it


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def head(port: int, token: str | None, length: int = DECLARED) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"POST /api/v1/remember HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def stall(port: int, count: int, payload: bytes, body: int) -> list[socket.socket]:
    """``count`` connections that send ``payload`` and ``body`` bytes of body, then nothing."""
    opened = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            sock.sendall(payload)
            if body:
                sock.sendall(b'{"text": "' + b"x" * (body - 10))
        except OSError:  # already refused and closed: that is the point
            pass
        opened.append(sock)
    return opened


def closed_within(socks: list[socket.socket], seconds: float) -> tuple[int, dict[str, int]]:
    """How many of ``socks`` the service closed within ``seconds`` (reading what it said)."""
    deadline = time.monotonic() + seconds
    statuses: dict[str, int] = {}
    closed = 0
    for sock in socks:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        said = b""
        try:
            while chunk := sock.recv(65536):
                said += chunk
            closed += 1
        except (ConnectionResetError, BrokenPipeError):
            closed += 1
        except TimeoutError:
            pass
        status = said[9:12].decode() if said.startswith(b"HTTP/1.1 ") else "none"
        statuses[status] = statuses.get(status, 0) + 1
        sock.close()
    return closed, statuses


def answers(port: int, token: str) -> float:
    """Seconds the service takes to answer its user (an authenticated request)."""
    started = time.monotonic()
    response = httpx.get(
        f"http://127.0.0.1:{port}/api/v1/whoami", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    return time.monotonic() - started


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_stalled_connections_are_closed_and_memory_returns_to_its_baseline(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = processes.thea(["serve", "--port", str(port)], data, **LIMITS)
    assert served.returncode == 0, served.stderr
    found = re.search(r"\?token=([A-Za-z0-9_-]+)", served.stdout)
    assert found is not None, served.stdout
    token = found.group(1)
    record = ProcessRecord.read(ServicePaths.of(data).pid_file)
    assert record is not None
    for _ in range(20):  # warm up: the routes, the stores, the allocator
        answers(port, token)
    closed, _ = closed_within(stall(port, 50, head(port, None), SENT), 10)
    baseline = rss_mb(record.pid)

    floods: list[tuple[str, Callable[[], list[socket.socket]], float]] = [
        # no token, most of a declared 512 KB body, then silence: refused from the headers
        ("unauthenticated bodies", lambda: stall(port, 500, head(port, None), SENT), 2),
        # a valid token, then a body that stalls: 408 after the body timeout
        ("stalled bodies", lambda: stall(port, 200, head(port, token), 100_000), TIMEOUT_S + 5),
        # headers that never end (slowloris): closed after the header timeout, the oldest at once
        (
            "endless headers",
            lambda: stall(port, 300, b"POST /api/v1/remember HTTP/1.1\r\nHost: x\r\n", 0),
            TIMEOUT_S + 5,
        ),
    ]
    peak, rounds = baseline, []
    # four times: the first sets the allocator's high-water mark (the arenas and buffers it keeps
    # for reuse), the next three show whether anything stays behind (a leak grows with each round)
    for name, flood, limit_s in floods * 4:
        socks = flood()
        peak = max(peak, rss_mb(record.pid))
        assert answers(port, token) < 5, f"the service kept its user waiting during {name}"
        closed, statuses = closed_within(socks, limit_s)
        print(f"{name}: {len(socks)} connections, {closed} closed within {limit_s} s, {statuses}")
        assert closed == len(socks), f"{name}: {len(socks) - closed} connections still open after {limit_s} s"
        if name == "unauthenticated bodies":
            assert set(statuses) <= {"401", "none"}, statuses
        if name == "stalled bodies":  # 408, or a reset that overtook it (the body was cut off)
            assert set(statuses) <= {"408", "none"}, statuses
            assert statuses.get("408", 0) > len(socks) / 2, statuses
        if name == "endless headers":
            time.sleep(2)
            rounds.append(rss_mb(record.pid))
    each = ", ".join(f"{r:.0f}" for r in rounds)
    print(f"service RSS: baseline {baseline:.0f} MB, peak {peak:.0f} MB, after each round {each} MB")
    # the first round leaves what the allocator keeps for reuse (20-35 MB measured), never what the
    # 1,000 connections sent (220 MB a round; 488 MB were held before issue 22)
    assert rounds[0] < baseline + 60, f"RSS {rounds[0]:.0f} MB after the floods, {baseline:.0f} MB before"
    # three more rounds, 3,000 more connections: the allocator settles within a few MB either way
    # (measured over eight rounds: 256, 263, 263, 267, 267, 258, 263, 263 MB); a leak of 10 KB a
    # connection would add 30 MB
    assert max(rounds[1:]) < rounds[0] + 30, f"RSS grew over the rounds: {each} MB"
    assert answers(port, token) < 5
