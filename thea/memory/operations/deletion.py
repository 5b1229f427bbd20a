"""Deleting memories for good: what forgetting a fact of record does to the graph."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class DeletedNodes:
    """What one deletion removed from the graph."""

    #: the ids that were deleted (ids of another user, or unknown ones, are not among them)
    ids: list[str] = field(default_factory=list)
    #: concept relations the deleted memories had asserted, deleted with them
    relations: int = 0


class NodeDeletion(abc.ABC):
    @abc.abstractmethod
    def delete_nodes(self, ids: Sequence[str], user_id: str) -> DeletedNodes:
        """Delete one user's nodes with every edge they have (DETACH DELETE) and the concept
        relations they asserted; another user's ids match nothing. Nothing is kept: history
        that should stay is closed with ``valid_until`` instead."""

    @abc.abstractmethod
    def user_memory_page(self, user_id: str, after_id: str, limit: int) -> list[dict[str, Any]]:
        """One user's memory nodes (their stored properties) after an id cursor, in id order."""

    @abc.abstractmethod
    def insights_derived_from(self, ids: Sequence[str], user_id: str) -> list[str]:
        """Ids of the user's insights, current or superseded, derived from any of ``ids``, and
        of the insights merged from those."""

    @abc.abstractmethod
    def unsupported_concepts(
        self, concept_ids: Sequence[str], user_id: str, leaving: Sequence[str]
    ) -> list[str]:
        """Those of the user's concepts that no fact or insight contains once ``leaving`` is gone."""

    @abc.abstractmethod
    def delete_concepts(self, concept_ids: Sequence[str], user_id: str) -> list[str]:
        """Delete the user's concepts with their aliases and relations; the ids deleted."""
