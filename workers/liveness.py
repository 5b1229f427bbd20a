"""Who holds a lock or runs a job, and whether that process still lives.

A process is named by its *node* (the machine's boot id plus its pid namespace: pids are
comparable only inside one node), its pid and its start time (so a pid reused by a new
process does not count as the old holder). A holder on this node is checked at once via
``/proc``; a holder on another node cannot be checked and is trusted until its lease runs
out (see :mod:`workers.locks` and :mod:`workers.worker`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_WORKER_PREFIX = "thea"


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


@cache
def current_node() -> str:
    """This machine's boot and pid namespace, hashed (12 hex digits)."""
    boot = _read("/proc/sys/kernel/random/boot_id") or socket.gethostname()
    try:
        pidns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pidns = ""
    return hashlib.sha1(f"{boot}/{pidns}".encode(), usedforsecurity=False).hexdigest()[:12]


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot); None when no such process lives (a zombie
    counts as gone); 0 when this system cannot tell (no ``/proc``)."""
    if not Path("/proc/self").exists():
        return 0
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if fields and fields[0] in ("Z", "X"):
        return None
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return 0


@dataclass(frozen=True)
class ProcessIdentity:
    node: str
    pid: int
    started: int
    host: str = ""

    @classmethod
    def current(cls) -> ProcessIdentity:
        pid = os.getpid()
        return cls(current_node(), pid, start_time(pid) or 0, socket.gethostname())

    def token(self) -> str:
        return f"{self.node}:{self.pid}:{self.started}:{self.host}"

    @classmethod
    def parse(cls, text: str | bytes | None) -> ProcessIdentity | None:
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        parts = (text or "").split(":", 3)
        if len(parts) < 3 or not parts[1].isdigit() or not parts[2].isdigit():
            return None
        return cls(parts[0], int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "")

    def alive(self) -> bool | None:
        """True or False for a process on this node; None when it lives elsewhere (unknown)."""
        if self.node != current_node():
            return None
        started = start_time(self.pid)
        if started is None:
            return False
        return not (self.started and started and started != self.started)

    def describe(self) -> str:
        return f"pid {self.pid}" + (f" on {self.host}" if self.host else "")


def worker_name(identity: ProcessIdentity | None = None) -> str:
    """An RQ worker name that records its process (``thea-<node>-<pid>-<start>-<random>``)."""
    me = identity or ProcessIdentity.current()
    return f"{_WORKER_PREFIX}-{me.node}-{me.pid}-{me.started}-{secrets.token_hex(3)}"


def identity_of_worker(name: str | bytes | None) -> ProcessIdentity | None:
    """The process behind a worker name made by :func:`worker_name` (None for other names)."""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    parts = (name or "").split("-")
    if len(parts) != 5 or parts[0] != _WORKER_PREFIX or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    return ProcessIdentity(parts[1], int(parts[2]), int(parts[3]))
