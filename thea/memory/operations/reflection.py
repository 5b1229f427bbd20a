"""Reflection reads and writes: the insights a reflection groups and the atomic merge."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from thea.models import KnowledgeCrystal


@dataclass(frozen=True, slots=True)
class InsightCandidate:
    """One active insight with the ids of its concepts (what grouping needs)."""

    id: str
    content: str
    strength: float
    concepts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MergeClaim:
    """A merged insight and the ids of the insights it replaces."""

    merged: KnowledgeCrystal
    sources: tuple[str, ...]


class ReflectionOperations(abc.ABC):
    """What the reflection loop reads and writes in the graph."""

    @abc.abstractmethod
    def candidates(self, user_id: str, after: str, limit: int) -> list[InsightCandidate]:
        """One page of the user's active insights, in id order after ``after`` (keyset)."""

    @abc.abstractmethod
    def claim_merges(self, claims: Sequence[MergeClaim], now: int) -> set[str]:
        """Write each merged insight and archive its sources in one statement, but only for
        claims whose sources are all still active; return the merged ids that were written."""

    @abc.abstractmethod
    def users_with_insights(self) -> list[str]:
        """Users with at least two active insights (for a scheduled reflection), sorted."""

    @abc.abstractmethod
    def merge_parents(self, user_id: str) -> dict[str, int]:
        """For each of the user's merged-away insights, how many merged insights claim it."""
