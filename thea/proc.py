"""Process identity: never signal a pid without knowing it is still the process we started.

A pid file alone is not enough: after a ``kill -9`` or a reboot the kernel reuses pids,
and a stale file could make thea signal an unrelated process. A :class:`ProcessRecord`
stores the pid together with the process's start time (``/proc/<pid>/stat`` field 22,
in clock ticks since boot, unique per pid for the life of the machine) and a marker
that must appear in its command line. :func:`alive` checks all three before anyone
trusts the record.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
from dataclasses import asdict, dataclass
from pathlib import Path


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may contain spaces and ')': split after the last ')'
    fields = stat.rsplit(")", 1)[-1].split()
    try:
        return int(fields[19])  # field 22 of the whole line
    except (IndexError, ValueError):
        return None


def parent_pid(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\x00", b" ").decode("utf-8", "replace").strip()


@dataclass(frozen=True)
class ProcessRecord:
    """Who a pid file points at: pid, start time and a command-line marker."""

    pid: int
    started: int
    marker: str

    @classmethod
    def of(cls, pid: int, marker: str) -> ProcessRecord:
        ticks = start_ticks(pid)
        if ticks is None:
            raise ProcessLookupError(pid)
        return cls(pid=pid, started=ticks, marker=marker)

    def write(self, path: Path) -> None:
        """Atomically (temp file + rename): a reader never sees half a record."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(self)))
        os.replace(tmp, path)

    @classmethod
    def read(cls, path: Path) -> ProcessRecord | None:
        """The record in ``path``; None when missing or unreadable (old plain-pid files included:
        without a start time they cannot be trusted)."""
        try:
            data = json.loads(path.read_text())
            return cls(pid=int(data["pid"]), started=int(data["started"]), marker=str(data["marker"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None


def alive(record: ProcessRecord) -> bool:
    """True only if the recorded process still runs: same pid, same start time, marker in
    its command line."""
    if start_ticks(record.pid) != record.started:
        return False
    return record.marker in command_line(record.pid)


def signal_if_alive(record: ProcessRecord, sig: signal.Signals) -> bool:
    """Send ``sig`` only to the very process the record names; False if it is gone."""
    if not alive(record):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(record.pid, sig)
        return True
    return False


_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """``preexec_fn`` of a child process that must not outlive the thread that started it: the
    kernel sends it SIGTERM when that thread ends (``PR_SET_PDEATHSIG``; kept across ``exec``)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass
