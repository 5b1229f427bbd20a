"""With the real offline model: one copy of the model in memory however many clients are open.

Slow (model load + CPU inference): ``python -m pytest -m slow``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from thea.config import default_cache_dir
from thea.locations import ServicePaths
from thea.proc import ProcessRecord

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mapping(path_part: str) -> set[int]:
    """Processes that have a file whose path contains ``path_part`` mapped into memory."""
    pids = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if path_part in (proc / "maps").read_text():
                pids.add(int(proc.name))
        except OSError:
            continue
    return pids


def of_data_dir(pid: int, data: Path) -> bool:
    """Whether a process works on this data dir: a client (``THEA_DATA_DIR``) or its service
    (its settings file lies in the data dir). Other processes on the machine may map the same
    model file (another chat, or this pytest process after an earlier in-process test)."""
    try:
        seen = (Path(f"/proc/{pid}/cmdline").read_bytes() + Path(f"/proc/{pid}/environ").read_bytes()).decode(
            errors="replace"
        )
    except OSError:
        return False
    return str(data) in seen


def test_one_model_copy_for_every_client(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "THEA_DATA_DIR": str(data), "TERM": "dumb"}
    command = [sys.executable, "-m", "thea.cli.main"]
    chat = subprocess.Popen(
        [*command, "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert chat.stdin is not None
        chat.stdin.write("My name is Ana and my cat is called Tom.\n")
        chat.stdin.flush()
        asks = [
            subprocess.Popen([*command, "ask", "--json", q], stdout=subprocess.PIPE, text=True, env=env)
            for q in ("What is my name?", "What is my cat called?")
        ]
        answers = [json.loads(a.communicate(timeout=900)[0]) for a in asks]
        assert all(a["answer"] for a in answers)
        record = ProcessRecord.read(ServicePaths.of(data).pid_file)
        assert record is not None
        model_file = str(default_cache_dir() / "models")
        deadline = time.monotonic() + 120
        while record.pid not in mapping(model_file) and time.monotonic() < deadline:
            time.sleep(0.5)
        holders = {pid for pid in mapping(model_file) if of_data_dir(pid, data)}
        assert holders == {record.pid}, f"the model is mapped by {holders}, not only by the service"
        service_mb, client_mb = rss_mb(record.pid), rss_mb(chat.pid)
        print(f"\nresident memory: service {service_mb:.0f} MB, a chat client {client_mb:.0f} MB")
        assert client_mb < 200
        chat.stdin.write("!quit\n")
        chat.stdin.flush()
        chat.communicate(timeout=300)
    finally:
        if chat.poll() is None:
            chat.kill()
        subprocess.run([*command, "service", "stop"], env=env, capture_output=True, timeout=120)
