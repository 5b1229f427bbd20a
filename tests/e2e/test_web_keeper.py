"""A `thea serve` service comes back by itself (issue 23, item 4): when the service that serves
the web page goes away (here: killed with SIGKILL), the web keeper `thea serve` started brings it
back on the same port without the user running anything; `thea service stop` stops it for good.
Real processes, the fake model."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from tests import processes
from tests.processes import wait_for
from thea.api import PREFIX
from thea.client.local import service_holds
from thea.locations import ServicePaths
from thea.proc import ProcessRecord, alive


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def web_pid(url: str) -> int | None:
    try:
        response = httpx.get(f"{url}{PREFIX}/health", timeout=2)
    except httpx.HTTPError:
        return None
    return int(response.json()["pid"]) if response.status_code == 200 else None


def keeper_runs(paths: ServicePaths) -> bool:
    import fcntl

    with open(paths.keeper_lock, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


@pytest.mark.slow  # two service starts (~45 s)
def test_a_killed_web_service_comes_back_on_its_port_and_a_stop_is_for_good(tmp_path: Path) -> None:
    data = tmp_path / "data"
    paths = ServicePaths.of(data)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    served = processes.thea(["serve", "--port", str(port)], data)
    assert served.returncode == 0, served.stderr
    assert "comes back by itself" in processes.one_line(served.stdout)
    first = web_pid(url)
    assert first is not None
    wait_for(lambda: keeper_runs(paths), 30, "the web keeper to start")

    record = ProcessRecord.read(paths.pid_file)
    assert record is not None
    assert record.pid == first
    os.kill(first, signal.SIGKILL)  # a crash: no clean stop, nothing forgotten
    wait_for(lambda: not alive(record), 10, "the killed service to be gone")
    back = wait_for(lambda: web_pid(url), 120, "the web page to come back on its port", poll_s=0.5)
    assert back != first
    assert "starting it again" in paths.keeper_log.read_text()

    stopped = processes.thea(["service", "stop"], data)
    assert stopped.returncode == 0, stopped.stderr
    assert not paths.web_file.exists()
    wait_for(lambda: not keeper_runs(paths), 10, "the keeper to end after a stop on purpose")
    time.sleep(2 * 1.0)  # two of the keeper's polls: nothing started the service again
    assert not service_holds(paths)
    assert web_pid(url) is None
