"""The one thea service per data directory, driven as users drive it: real ``thea`` processes.

Every command is a client; the first one starts the service (detached), the others reuse it.
The fake model keeps these fast; the slow suite repeats the concurrency test ten times.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests import processes
from tests.processes import as_from_a_terminal, cli_env
from tests.recalling import recalled_told
from thea.locations import ServicePaths
from thea.proc import ProcessRecord, alive

PY = sys.executable


def thea(data: Path, *args: str, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess[str]:
    return processes.thea(list(args), data, timeout=timeout, **extra)


def first_output(proc: subprocess.Popen[str], timeout: float = 120) -> str:
    """Block until the process printed something (the first words of its answer)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    text = ""
    while not text.strip() and time.monotonic() < deadline:
        text += proc.stdout.read(1)
    return text


def service_record(data: Path) -> ProcessRecord | None:
    return ProcessRecord.read(ServicePaths.of(data).pid_file)


def ready_count(data: Path) -> int:
    """How many services ever got ready for this data dir (each logs one 'ready' line)."""
    log = ServicePaths.of(data).log_file
    return log.read_text().count(" ready in ") if log.exists() else 0


def test_the_first_command_starts_the_service_and_the_next_ones_reuse_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = thea(data, "ask", "--json", "My name is Ana.")
    assert first.returncode == 0, first.stderr
    record = service_record(data)
    assert record is not None
    assert alive(record)
    second = thea(data, "ask", "--json", "What is my name?")
    assert second.returncode == 0, second.stderr
    assert service_record(data) == record, "a second service was started"
    assert recalled_told(json.loads(first.stdout)["impulse_id"], json.loads(second.stdout)["recalled_ids"])

    status = thea(data, "service", "status")
    assert status.returncode == 0, status.stderr
    assert str(record.pid) in status.stdout
    assert "embedded" in status.stdout

    stopped = thea(data, "service", "stop")
    assert "thea service stopped" in stopped.stdout
    assert not alive(record)
    assert thea(data, "service", "status").returncode == 1


def test_every_command_works_while_a_chat_is_open(tmp_path: Path) -> None:
    """The tracer, the inspector, stats, export, reflect and ask next to an open chat."""
    data = tmp_path / "data"
    chat = subprocess.Popen(
        [PY, "-m", "thea.cli.main", "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data),
    )
    try:
        assert chat.stdin is not None
        assert chat.stdout is not None
        chat.stdin.write("Which queues does the team use?\n")
        chat.stdin.flush()
        deadline = time.monotonic() + 60
        while ready_count(data) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        commands = [
            ("ask", "--json", "What does the team work on?"),
            ("trace", "last"),
            ("insights",),
            ("memory", "stats"),
            ("export", "--out", str(tmp_path / "out.jsonl")),
            ("reflect",),
            ("jobs",),
            ("doctor",),
        ]
        with ThreadPoolExecutor(len(commands)) as pool:
            results = list(pool.map(lambda args: thea(data, *args), commands))
        for args, done in zip(commands, results, strict=True):
            assert done.returncode == 0, f"thea {' '.join(args)}: {done.stdout} {done.stderr}"
            assert "Traceback" not in done.stderr
        chat.stdin.write("!quit\n")
        chat.stdin.flush()
        out, err = chat.communicate(timeout=60)
    finally:
        if chat.poll() is None:
            chat.kill()
    assert chat.returncode == 0, err
    assert out.count("(fake model) I heard you.") == 1
    assert ready_count(data) == 1, "more than one service served this data dir"


def _burst(data: Path, n: int = 20) -> list[subprocess.CompletedProcess[str]]:
    """``n`` `thea ask` started 0.1-0.9 s apart (as a user with many terminals, or a script)."""
    gaps = [0.1 + 0.8 * ((i * 7) % 10) / 9 for i in range(n)]

    def one(i: int) -> subprocess.CompletedProcess[str]:
        time.sleep(sum(gaps[:i]) / 4)
        return thea(data, "ask", "--json", f"Note number {i}: the code word is w{i}.", timeout=300)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def check_burst(data: Path, results: list[subprocess.CompletedProcess[str]]) -> None:
    for done in results:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "graph store" not in done.stderr
        assert "vector store" not in done.stderr
    impulses = [json.loads(d.stdout)["impulse_id"] for d in results]
    assert len(set(impulses)) == len(results)
    assert ready_count(data) == 1, "more than one service was started"
    for impulse in impulses:  # every acknowledged impulse is in the graph
        trace = thea(data, "trace", impulse, "--format", "json")
        assert trace.returncode == 0, trace.stderr
    check = thea(data, "memory", "check", "--json", "--grace-minutes", "5")
    report = json.loads(check.stdout)
    assert report["ok"], report  # graph, vectors and chronicle agree: nothing acknowledged is missing


def test_eight_commands_at_once_start_exactly_one_service(tmp_path: Path) -> None:
    data = tmp_path / "data"
    check_burst(data, _burst(data, 8))  # twenty, ten times over: the slow test below


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_twenty_commands_at_once_ten_times(tmp_path: Path) -> None:
    for round_ in range(10):
        data = tmp_path / f"round-{round_}"
        check_burst(data, _burst(data))
        assert thea(data, "service", "stop").returncode == 0


def test_kill_9_of_the_service_mid_answer_loses_nothing_acknowledged(tmp_path: Path) -> None:
    data = tmp_path / "data"
    slow = {"THEA_LLM__FAKE_WORDS_PER_S": "0.3"}
    told = thea(data, "ask", "--json", "My cat is called Tom.", **slow)
    assert told.returncode == 0, told.stderr
    told_id = json.loads(told.stdout)["impulse_id"]
    record = service_record(data)
    assert record is not None

    asking = subprocess.Popen(
        [PY, "-m", "thea.cli.main", "ask", "Tell me a long story."],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data, **slow),
    )
    first_output(asking)  # the answer has begun; its other words come slowly
    os.kill(record.pid, signal.SIGKILL)
    _, err = asking.communicate(timeout=60)
    assert asking.returncode != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3, err

    again = thea(data, "ask", "--json", "What is my cat called?")  # restarts the service
    assert again.returncode == 0, again.stderr
    new = service_record(data)
    assert new is not None
    assert new.pid != record.pid
    trace = json.loads(thea(data, "trace", told_id, "--format", "json").stdout)
    assert trace["impulse"]["content"] == "My cat is called Tom."
    assert trace["complete"] is True
    assert recalled_told(told_id, json.loads(again.stdout)["recalled_ids"])
    repaired = thea(data, "memory", "repair", "--json", "--grace-minutes", "0")
    assert repaired.returncode == 0, repaired.stderr
    check = json.loads(thea(data, "memory", "check", "--json", "--grace-minutes", "0").stdout)
    assert check["ok"], check


def test_a_stale_pid_record_never_leads_to_a_signal_to_another_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    paths = ServicePaths.of(data)
    paths.run_dir.mkdir(parents=True)
    bystander = subprocess.Popen(["sleep", "300"])
    try:
        # a record naming the bystander's pid, as a crashed service's file would after pid reuse
        stale = ProcessRecord(pid=bystander.pid, started=12345, marker=ServicePaths.MARKER)
        stale.write(paths.pid_file)
        graph_dir = data / "graph"
        graph_dir.mkdir(parents=True)
        ProcessRecord(pid=bystander.pid, started=12345, marker=str(graph_dir)).write(
            graph_dir / "falkordb.pid"
        )
        assert thea(data, "service", "stop").stdout.strip() == "no thea service was running"
        started = thea(data, "ask", "hello")  # starts a service, which starts a graph server
        assert started.returncode == 0, started.stderr
        assert thea(data, "service", "stop").returncode == 0
        assert bystander.poll() is None, "the bystander process was signalled"
    finally:
        bystander.kill()
        bystander.wait()


def test_ctrl_c_in_ask_stops_at_once_with_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    slow = {"THEA_LLM__FAKE_WORDS_PER_S": "0.3"}
    assert thea(data, "service", "start", **slow).returncode == 0
    asking = subprocess.Popen(
        [PY, "-m", "thea.cli.main", "ask", "Tell me a long story."],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(data, **slow),
        preexec_fn=as_from_a_terminal,
    )
    first_output(asking)  # mid-answer: the first word is on the screen, the rest comes slowly
    sent = time.monotonic()
    asking.send_signal(signal.SIGINT)
    _, err = asking.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert asking.returncode == 130
    assert err.strip().splitlines() == ["cancelled: the answer was stopped"]
    record = service_record(data)
    assert record is not None
    assert alive(record), "Ctrl-C reached the service"
    deadline = time.monotonic() + 30  # the service notices the closed stream at its next send
    status = None
    while status != "cancelled" and time.monotonic() < deadline:
        status = json.loads(thea(data, "trace", "last", "--format", "json").stdout)["impulse"]["status"]
    assert status == "cancelled"


def test_the_cli_talks_to_a_remote_service_with_its_token(tmp_path: Path) -> None:
    """THEA_URL + THEA_TOKEN: the same commands, against a service elsewhere (here: another
    data dir's service listening on TCP with a token)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server_dir = tmp_path / "server"
    secret = "a-long-random-token"
    served = thea(server_dir, "serve", "--port", str(port), THEA_WEB_TOKEN=secret)
    assert served.returncode == 0, served.stderr
    url = f"http://127.0.0.1:{port}"

    elsewhere = tmp_path / "laptop"
    remote = {"THEA_URL": url, "THEA_TOKEN": secret}
    told = thea(elsewhere, "ask", "--json", "My favourite colour is teal.", **remote)
    assert told.returncode == 0, told.stderr
    trace = thea(elsewhere, "trace", "last", "--format", "json", **remote)
    assert json.loads(trace.stdout)["impulse"]["id"] == json.loads(told.stdout)["impulse_id"]
    assert not (elsewhere / "service").exists(), "a local service was started although THEA_URL is set"

    wrong = thea(elsewhere, "ask", "hello", THEA_URL=url, THEA_TOKEN="wrong")
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines() == ["denied: missing or wrong access token"]
    stats = thea(elsewhere, "memory", "stats", **remote)  # maintenance is for the service's local user
    assert stats.returncode == 2
    assert "local user" in stats.stderr
