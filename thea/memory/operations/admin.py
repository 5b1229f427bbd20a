"""Maintenance reads and writes: consistency scans, legacy concept migration, load checks."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: A node's stored properties as the graph holds them. Maintenance reads raw maps on purpose:
#: it must see records that no longer parse as nodes (shared concepts from older versions).
PropertyMap = dict[str, Any]


@dataclass(frozen=True, slots=True)
class LegacyLink:
    """A link from a user's memory to a concept that has no owner."""

    concept_id: str
    src: str
    user_id: str
    type: str
    props: PropertyMap


@dataclass(frozen=True, slots=True)
class LegacyRelation:
    """A typed relation leaving an ownerless concept; ``user_id`` of the memory that asserted it."""

    subject: str
    relation: str
    object: str
    props: PropertyMap
    user_id: str | None


@dataclass(frozen=True, slots=True)
class CycleOutcome:
    """How many answers and crystals one impulse got."""

    impulse_id: str
    responses: int
    crystals: int
    crystal_ids: tuple[str, ...] = ()


class AdminOperations(abc.ABC):
    @abc.abstractmethod
    def memory_page(self, after_id: str, limit: int) -> list[PropertyMap]:
        """Memory nodes after an id cursor, in id order (keyset pagination)."""

    @abc.abstractmethod
    def pending_vectors(self, limit: int) -> list[PropertyMap]:
        """At most ``limit`` memory nodes whose vectors wait to be computed, oldest wait first."""

    @abc.abstractmethod
    def count_pending_vectors(self) -> int:
        """How many memory nodes wait for their vectors."""

    @abc.abstractmethod
    def cycles_without_response(self, ids: Sequence[str]) -> list[str]:
        """Of these cycle ids, the ones that recorded no final response."""

    @abc.abstractmethod
    def cycle_outcomes(self, user_prefix: str) -> list[CycleOutcome]:
        """Per impulse of users whose id starts with ``user_prefix``: answers and crystals."""

    @abc.abstractmethod
    def legacy_links(self, concept_ids: Sequence[str]) -> list[LegacyLink]: ...

    @abc.abstractmethod
    def legacy_relations(self, concept_ids: Sequence[str]) -> list[LegacyRelation]: ...

    @abc.abstractmethod
    def legacy_aliases(self, concept_ids: Sequence[str]) -> dict[str, list[str]]:
        """Ownerless aliases of ownerless concepts, by concept id."""

    @abc.abstractmethod
    def delete_legacy_concepts(self, concept_ids: Sequence[str]) -> int:
        """Delete ownerless concepts and their aliases."""
