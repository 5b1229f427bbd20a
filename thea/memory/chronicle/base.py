"""The chronicle port: the temporal layer, an ordered durable log of events."""

from __future__ import annotations

import abc
from collections.abc import Sequence

from thea.models import ChronicleEvent, HealthStatus


class Chronicle(abc.ABC):
    """Append-only log of recorded events, queryable by time (only repair deletes, and erasing
    a memory for good, which leaves an event saying only that a deletion happened).

    Appending an event whose id is already logged changes nothing (idempotent).
    Events are ordered by ``time`` then ``id``.
    """

    backend: str = "chronicle"

    @abc.abstractmethod
    def append(self, events: Sequence[ChronicleEvent]) -> int:
        """Log events in one batch; return how many were new."""

    @abc.abstractmethod
    def range(
        self,
        start_ms: int,
        end_ms: int,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ChronicleEvent]:
        """Events with start_ms <= time < end_ms, oldest first."""

    @abc.abstractmethod
    def latest(
        self,
        n: int = 20,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
    ) -> list[ChronicleEvent]:
        """The n most recent events, newest first."""

    @abc.abstractmethod
    def by_correlation(self, correlation_id: str) -> list[ChronicleEvent]:
        """Every event of one cycle, oldest first."""

    @abc.abstractmethod
    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these event ids are logged (for consistency checks)."""

    @abc.abstractmethod
    def scan_ids(self, cursor: str | None = None, limit: int = 500) -> tuple[list[str], str | None]:
        """One page of logged event ids and the cursor of the next page (None at the end).
        For consistency scans."""

    @abc.abstractmethod
    def delete(self, ids: Sequence[str]) -> int:
        """Remove events (``thea memory repair`` drops events whose node is gone); return how many."""

    def compact(self) -> bool:
        """Rewrite the log's files so that deleted events are gone from disk (forgetting); True
        when done. Default: False."""
        return False

    @abc.abstractmethod
    def count(self) -> int:
        """Number of logged events."""

    @abc.abstractmethod
    def health(self) -> HealthStatus:
        """Reachability, never raises."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the log."""
