"""Deleting memories for good: what forgetting a fact of record does to the graph."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field


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
