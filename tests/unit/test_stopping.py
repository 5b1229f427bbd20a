"""The service hears its stop signals in its main thread, with the sender, and a forked copy
of it can never deliver one to it (issue 22, item 1). Each case runs in a process of its own:
signal masks and dispositions are process-wide."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from tests.processes import ROOT, wait_for

#: ``python -c FORKS <mode>``: an asyncio service whose work forks a helper (as RQ's scheduler
#: did), SIGTERMs it and goes on for a second; prints STOP lines for every stop it heard.
#: ``thea``: signals through serve_with_signals; ``asyncio``: loop.add_signal_handler (before).
FORKS = textwrap.dedent(
    """
    import asyncio, multiprocessing, os, signal, sys, time
    from thea.service.stopping import serve_with_signals

    stopped = []

    def on_stop(reason):
        stopped.append(str(reason))
        print("STOP", reason, flush=True)

    async def serve():
        stop = asyncio.Event()
        if sys.argv[1] == "asyncio":
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        helper = multiprocessing.get_context("fork").Process(target=time.sleep, args=(3,))
        helper.start()
        time.sleep(0.5)  # the helper runs (a signal during the fork itself is Python's to drop)
        os.kill(helper.pid, signal.SIGTERM)
        helper.join(10)
        print("helper exit code", helper.exitcode, flush=True)
        try:
            await asyncio.wait_for(stop.wait(), 1.5)
            print("STOP through the event loop", flush=True)
        except asyncio.TimeoutError:
            pass

    def work():
        asyncio.run(serve())
        return 0

    if sys.argv[1] == "asyncio":
        sys.exit(work())
    sys.exit(serve_with_signals(work, on_stop))
    """
)

#: ``python -c WAITS``: serve_with_signals around work that runs until a stop is heard.
WAITS = textwrap.dedent(
    """
    import threading
    from thea.service.stopping import serve_with_signals

    done = threading.Event()

    def on_stop(reason):
        print("STOP", reason, flush=True)
        done.set()

    def work():
        print("READY", flush=True)
        done.wait(60)
        return 0

    raise SystemExit(serve_with_signals(work, on_stop))
    """
)


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_a_forked_helper_that_gets_sigterm_does_not_stop_the_service() -> None:
    done = _run(FORKS, "thea")
    assert done.returncode == 0, done.stderr
    assert "helper exit code -15" in done.stdout  # the helper got it, with the default disposition
    assert "STOP" not in done.stdout


def test_with_asyncio_signal_handlers_the_helpers_sigterm_stopped_the_service() -> None:
    """The mechanism of the round-3 failure: the helper inherits the loop's signal wake-up
    descriptor, and the SIGTERM sent to the helper is written into the service's loop."""
    done = _run(FORKS, "asyncio")
    assert done.returncode == 0, done.stderr
    assert "STOP through the event loop" in done.stdout


def test_a_signal_names_its_sender() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WAITS], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY"
        time.sleep(0.3)  # the main thread is waiting for signals now
        sent = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert time.monotonic() - sent < 5
    (line,) = [x for x in out.splitlines() if x.startswith("STOP")]
    assert line.startswith(f"STOP signal: SIGTERM from pid {os.getpid()} (uid {os.getuid()}: ")


def test_sigint_ignored_at_start_stays_ignored_and_sigterm_still_stops() -> None:
    """``nohup``-style: a SIGINT that was ignored when the service started stays ignored."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WAITS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY"
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)
        time.sleep(0.5)
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGTERM)
        wait_for(lambda: proc.poll() is not None, 30, "the stop")
        out = proc.communicate(timeout=30)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert [x.split(" from ")[0] for x in out.splitlines() if x.startswith("STOP")] == [
        "STOP signal: SIGTERM"
    ]


#: ``python -c BOGUS``: the signal wait returns once with a signal number that is none of the
#: stop signals, as it did when py-spy attached to a running service (ptrace).
BOGUS = textwrap.dedent(
    """
    import signal, threading, types
    from thea.service.stopping import serve_with_signals

    real, calls = signal.sigtimedwait, []

    def interrupted(signals, timeout):
        if not calls:
            calls.append(1)
            return types.SimpleNamespace(si_signo=1849126648, si_code=0, si_pid=0, si_uid=0)
        return real(signals, timeout)

    signal.sigtimedwait = interrupted

    def on_stop(reason):
        print("STOP", reason, flush=True)

    def work():
        threading.Event().wait(1.0)
        print("WORKED", flush=True)
        return 0

    raise SystemExit(serve_with_signals(work, on_stop))
    """
)


def test_a_signal_wait_interrupted_by_a_debugger_neither_stops_nor_breaks_the_service() -> None:
    """Before, the main thread died on the unknown signal number: the service went on accepting
    connections and answered each request with a 500 (its thread pool was shut down)."""
    done = _run(BOGUS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["WORKED"]
    assert "Traceback" not in done.stderr
