"""Real thea processes for tests: the CLI as a user runs it, and a thea service running the
fake model (so a test can stall it mid-job and kill it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def as_from_a_terminal() -> None:
    """``preexec_fn`` for a child that a test interrupts as Ctrl-C would: SIGINT back to its
    default. A test run started in the background by a non-interactive shell (``pytest &``, as
    CI scripts and ``flock ... &`` do) ignores SIGINT, every child inherits that, and thea
    rightly keeps a SIGINT that was ignored when it started (nohup semantics)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: ``python -c SCRIPTED_SERVICE <data dir> <slow prompt ids, comma-separated> <seconds>``: the
#: real thea service of that data dir, but its runtime answers with the fake model and stalls for
#: that long on the given prompts (e.g. ``reflect``), so a test can kill it mid-job.
SCRIPTED_SERVICE = textwrap.dedent(
    """
    import sys
    import thea.runtime
    import thea.service.process as process
    from thea.llm.fake import FakeChatModel
    from thea.llm.prompt_ids import PromptId
    from thea.config import load_settings

    slow = {PromptId(r) for r in sys.argv[2].split(",") if r}
    seconds = float(sys.argv[3])
    real_build = thea.runtime.build_runtime

    def build(settings, llm=None, **kwargs):
        return real_build(settings, llm=FakeChatModel(slow=slow, slow_seconds=seconds), **kwargs)

    process.build_runtime = build
    settings = load_settings("embedded", data_dir=sys.argv[1], llm={"provider": "fake"})
    sys.exit(process.run_service(settings))
    """
)


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a thea process in a test: the caller's, without its own THEA_ settings
    (a developer's shell must not change what a test sees), the fake model, a wide dumb terminal."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("THEA_")},
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "THEA_DATA_DIR": str(data_dir),
        "THEA_LLM__PROVIDER": "fake",
        "COLUMNS": "200",
        "TERM": "dumb",
        **extra,
    }


def thea(
    args: list[str],
    data_dir: Path,
    *,
    stdin: str = "",
    cwd: Path = ROOT,
    timeout: float = 120,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """Run ``thea ARGS`` to completion (fake model), typing ``stdin``, from ``cwd`` (where a
    user's .env is read), with ``env`` added to its environment; return what it printed."""
    return subprocess.run(
        [sys.executable, "-m", "thea.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(data_dir, **env),
        cwd=cwd,
        timeout=timeout,
    )


def start_thea(args: list[str], data_dir: Path) -> subprocess.Popen[str]:
    """Start ``thea ARGS`` in the background (fake model)."""
    return subprocess.Popen(
        [sys.executable, "-m", "thea.cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data_dir),
        cwd=ROOT,
    )


def start_scripted_service(data_dir: Path, *, slow: str = "", slow_s: float = 120) -> subprocess.Popen[str]:
    """The data dir's thea service with the scripted model, stalling on the ``slow`` roles;
    returns once it answers (commands then use it instead of starting their own). A service
    already running for the data dir (e.g. one a client started after the last one was killed)
    is stopped first: otherwise it would answer in the scripted one's place while the scripted
    one waits for the directory, and take over the stores later."""
    from tests.service_support import stop_services_under
    from thea.client.local import probe
    from thea.locations import ServicePaths
    from thea.proc import ProcessRecord

    stop_services_under(data_dir)

    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPTED_SERVICE, str(data_dir), slow, str(slow_s)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data_dir),
        cwd=ROOT,
        start_new_session=True,
    )
    paths = ServicePaths.of(data_dir)

    def answering() -> bool:
        record = ProcessRecord.read(paths.pid_file)
        return record is not None and record.pid == proc.pid and probe(paths)

    wait_for(lambda: answering() or proc.poll() is not None, 120, "the scripted service to answer")
    if proc.poll() is not None:
        raise AssertionError(f"the scripted service exited: {proc.communicate()[1][-2000:]}")
    return proc


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
