"""A starting graph server's load is reported as soon as its size is known (CI failure of stop
77: the first answer said only "loading its data", the next report came 5 s later, and a 6 s
load ended before the size was ever shown to the waiting command)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from thea.memory.embedded_server import EmbeddedFalkorDB, Loading


class Scripted(EmbeddedFalkorDB):
    """A server that reports ``states`` one per poll, then answers."""

    def __init__(self, data_dir: Path, states: list[Loading | None]) -> None:
        self.told: list[Loading] = []
        super().__init__(data_dir, on_loading=self.told.append, start_timeout_s=30)
        self.states = states
        self.polls = 0

    def is_running(self) -> bool:
        return self.polls >= len(self.states)

    def loading(self) -> Loading | None:
        state = self.states[self.polls]
        self.polls += 1
        return state


def _wait(states: list[Loading | None], tmp_path: Path) -> list[Loading]:
    server = Scripted(tmp_path, states)
    server.process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    server.pid_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        server._wait_until_up(time.monotonic())
    finally:
        server.process.kill()
        server.process.wait()
    return server.told


def test_the_size_of_a_load_is_told_as_soon_as_the_server_knows_it(tmp_path: Path) -> None:
    unknown, sized, further = Loading(0, 0), Loading(1_000_000, 6_000_000), Loading(3_000_000, 6_000_000)
    told = _wait([unknown, unknown, sized, further], tmp_path)
    assert told == [unknown, sized]  # further progress waits for the next report period


def test_a_load_whose_size_is_known_at_once_is_told_once_per_period(tmp_path: Path) -> None:
    first, later = Loading(1_000_000, 6_000_000), Loading(2_000_000, 6_000_000)
    assert _wait([None, first, later, later], tmp_path) == [first]
