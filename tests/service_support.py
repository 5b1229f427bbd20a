"""Test helpers around the thea service: an in-process app over a runtime, and clean-up of
service processes that CLI tests started."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from thea.config import Settings
from thea.locations import ServicePaths
from thea.proc import ProcessRecord, alive, signal_if_alive
from thea.runtime import Runtime
from thea.service.app import create_app, serve_app
from thea.service.auth import Authenticator
from thea.service.context import ServiceContext

Event = tuple[str, Any]


def service_context(runtime: Runtime, settings: Settings | None = None) -> ServiceContext:
    """A service context around an already-built runtime (tests: a scripted model)."""
    chosen = settings or runtime.settings
    return ServiceContext(runtime=runtime, auth=Authenticator(chosen), settings=chosen)


def service_app(runtime: Runtime, settings: Settings | None = None, transport: str = "tcp") -> ASGIApp:
    """The service's app as a listener serves it (TCP unless told: the page's path)."""
    ctx = service_context(runtime, settings)
    return serve_app(create_app(ctx), ctx, "unix" if transport == "unix" else "tcp")


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
