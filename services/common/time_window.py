"""A span of time a question asks about: [start, end) in epoch ms, either end open."""

from __future__ import annotations

from typing import NamedTuple


class TimeWindow(NamedTuple):
    """[start, end) in epoch ms; None leaves that end open (``TimeWindow()``: all of time)."""

    start: int | None = None
    end: int | None = None

    def holds(self, when: int) -> bool:
        """Whether ``when`` falls inside the window."""
        after_start = self.start is None or when >= self.start
        return after_start and (self.end is None or when < self.end)
