"""How many of this process's cores other processes are using right now (Linux ``/proc``).

llama.cpp's threads wait for each other at every operation, so a thread that shares its core
with a CPU-bound process elsewhere on the machine holds all the others back: with one core of
two taken, two model threads answer about 3x slower than idle, one thread about 1.6x (measured
on the offline model, docs/benchmarks.md). :class:`CoreWatch` samples the CPU time of the cores
this process may run on and subtracts this process's own, so the local model can run on the
cores that are free at the moment of each call.

A daemon thread takes a sample every :data:`SAMPLE_S` seconds and keeps the last
:data:`WINDOW` of them; reading the estimate never blocks. Where ``/proc`` is missing (not
Linux) every core counts as free.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

SAMPLE_S = 0.25
#: the estimate spans this many samples (one second)
WINDOW = 4
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def allowed_cpus() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _busy_seconds(cpus: set[int], stat: Path = Path("/proc/stat")) -> float | None:
    """CPU time spent busy on ``cpus`` since boot, in seconds (None without /proc)."""
    try:
        lines = stat.read_text().splitlines()
    except OSError:
        return None
    busy = 0
    for line in lines:
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
            continue
        fields = [int(v) for v in rest.split()]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        busy += sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy / _TICKS


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


class CoreWatch:
    """Cores of this process's affinity set that other processes keep busy (a running mean)."""

    def __init__(
        self,
        cpus: set[int] | None = None,
        *,
        busy_seconds: Callable[[set[int]], float | None] = _busy_seconds,
        own_seconds: Callable[[], float] = _own_seconds,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cpus = cpus if cpus is not None else allowed_cpus()
        self._busy_seconds, self._own_seconds, self._clock = busy_seconds, own_seconds, clock
        self._samples: deque[tuple[float, float, float]] = deque(maxlen=WINDOW + 1)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def sample(self) -> bool:
        """Take one sample (the watch thread does this every SAMPLE_S); False without /proc."""
        busy = self._busy_seconds(self.cpus)
        if busy is None:
            return False
        with self._lock:
            self._samples.append((self._clock(), busy, self._own_seconds()))
        return True

    def start(self) -> None:
        if self._thread is not None:
            return
        if not self.sample():
            return
        self._thread = threading.Thread(target=self._run, name="thea-core-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(SAMPLE_S)
            self.sample()

    def busy_elsewhere(self) -> float:
        """Cores (0.0 .. len(cpus)) other processes used over the last second."""
        with self._lock:
            if len(self._samples) < 2:
                return 0.0
            (t0, busy0, own0), (t1, busy1, own1) = self._samples[0], self._samples[-1]
        elapsed = t1 - t0
        if elapsed <= 0:
            return 0.0
        others = ((busy1 - busy0) - (own1 - own0)) / elapsed
        return max(0.0, min(float(len(self.cpus)), others))

    def free_cores(self) -> int:
        """Cores nobody else is using (at least 1)."""
        return max(1, len(self.cpus) - round(self.busy_elsewhere()))


def thread_levels(usable: int) -> list[int]:
    """The thread counts worth a llama.cpp context of their own: ``usable``, then halves down
    to 1 (2 -> [2, 1]; 8 -> [8, 4, 2, 1])."""
    levels = [max(1, usable)]
    while levels[-1] > 1:
        levels.append(levels[-1] // 2)
    return levels


def pick_level(levels: list[int], free: int) -> int:
    """The largest level that fits in the free cores (the smallest when none does)."""
    fitting = [level for level in levels if level <= free]
    return max(fitting) if fitting else min(levels)
