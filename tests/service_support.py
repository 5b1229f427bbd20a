"""Test helpers around the thea service: reading event streams, and clean-up of service processes
that CLI tests started (the in-process app itself: :mod:`thea.testing.service`)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from thea.api import PREFIX
from thea.locations import ServicePaths
from thea.proc import ProcessRecord, alive, signal_if_alive

Event = tuple[str, Any]


def parse_sse(lines: Iterator[str]) -> list[Event]:
    """(event, data) pairs of a server-sent-event stream, in order (keep-alives skipped)."""
    events: list[Event] = []
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: "):
            assert event is not None
            events.append((event, json.loads(line[len("data: ") :])))
    return events


def chat(client: TestClient, text: str, session: str = "s1", **kw: Any) -> list[Event]:
    """POST /api/v1/chat and parse the SSE stream into (event, data) pairs, in order."""
    body = {"text": text, "session_id": session}
    with client.stream("POST", f"{PREFIX}/chat", json=body, **kw) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return parse_sse(response.iter_lines())


def answer_of(events: list[Event]) -> str:
    return "".join(data["text"] for kind, data in events if kind == "token")


def done_of(events: list[Event]) -> dict[str, Any]:
    (done,) = [data for kind, data in events if kind == "done"]
    return dict(done)


def stop_services_under(root: Path, timeout_s: float = 30.0) -> None:
    """Stop every thea service whose data dir lies under ``root`` (verified pid records only)."""
    for record_file in root.rglob("service/service.json"):
        record = ProcessRecord.read(record_file)
        if record is None or not alive(record):
            continue
        signal_if_alive(record, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while alive(record) and time.monotonic() < deadline:
            time.sleep(0.05)
        signal_if_alive(record, signal.SIGKILL)


def service_pids(root: str) -> set[int]:
    """Service processes whose command line mentions ``root`` (their data dir or settings file)."""
    out = subprocess.run(["pgrep", "-af", ServicePaths.MARKER], capture_output=True, text=True)
    pids = set()
    for line in out.stdout.splitlines():
        pid, _, cmd = line.partition(" ")
        if root in cmd and "pgrep" not in cmd:
            pids.add(int(pid))
    return pids
