"""Real thea processes for tests: the CLI as a user runs it, and the CLI with a scripted model."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: ``python -c SCRIPTED_CLI <slow roles, comma-separated> <seconds> <thea args...>``: the real
#: ``thea`` command line, but every runtime it builds answers with the scripted model and
#: stalls for that long on the given roles (e.g. ``reflect``), so a test can kill it mid-job.
SCRIPTED_CLI = textwrap.dedent(
    """
    import sys
    import thea.runtime
    from tests.fakes import ScriptedChatModel

    slow = {r for r in sys.argv[1].split(",") if r}
    seconds = float(sys.argv[2])
    real_build = thea.runtime.build_runtime

    def build(settings, llm=None):
        return real_build(settings, llm=ScriptedChatModel(slow_roles=slow, slow_seconds=seconds))

    thea.runtime.build_runtime = build
    from thea.cli.main import app

    app(sys.argv[3:], prog_name="thea")
    """
)


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "THEA_DATA_DIR": str(data_dir),
        "THEA_LLM__PROVIDER": "fake",
        "COLUMNS": "200",
        "TERM": "dumb",
        **extra,
    }


def thea(
    args: list[str], data_dir: Path, *, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``thea ARGS`` to completion (fake model) and return what it printed."""
    return subprocess.run(
        [sys.executable, "-m", "thea.cli.main", *args],
        capture_output=True,
        text=True,
        env=cli_env(data_dir, **env),
        cwd=ROOT,
        timeout=timeout,
    )


def start_thea(
    args: list[str], data_dir: Path, *, slow: str = "", slow_s: float = 120
) -> subprocess.Popen[str]:
    """Start ``thea ARGS`` in the background; with ``slow`` roles it runs the scripted model."""
    if slow:
        cmd = [sys.executable, "-c", SCRIPTED_CLI, slow, str(slow_s), *args]
    else:
        cmd = [sys.executable, "-m", "thea.cli.main", *args]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data_dir),
        cwd=ROOT,
    )


def wait_for(condition: Callable[[], Any], timeout_s: float, what: str, poll_s: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(poll_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def one_line(text: str) -> str:
    """Terminal output with its wrapping undone."""
    return " ".join(text.split())
