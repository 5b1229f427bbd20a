"""Insight views: lists, lineage and asserted relations for inspectors."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from thea.models import KnowledgeCrystal

#: ``unverified`` keeps the unverified insights only, ``archived`` leaves them out
Verification = Literal["unverified", "archived"]


@dataclass(frozen=True, slots=True)
class InsightFilter:
    active: bool | None = True
    verification: Verification | None = None
    user_id: str | None = None
    min_strength: float = 0.0
    #: a normalised concept name the insight must link to
    concept: str | None = None
    limit: int = 50


@dataclass(frozen=True, slots=True)
class InsightListing:
    insight: KnowledgeCrystal
    #: names of its concepts, sorted
    concepts: list[str]


@dataclass(frozen=True, slots=True)
class InsightLineage:
    insight: KnowledgeCrystal
    concepts: list[str]
    merged_from: list[str] = field(default_factory=list)
    merged_into: list[str] = field(default_factory=list)
    source_impulse_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AssertedRelation:
    """A concept relation and its provenance, as asserted by one memory (crystal or fact)."""

    subject: str
    relation: str
    object: str
    confidence: float | None
    valid_until: int | None


class InsightViews(abc.ABC):
    @abc.abstractmethod
    def matching(self, flt: InsightFilter) -> list[InsightListing]:
        """Insights matching the filter, strongest first."""

    @abc.abstractmethod
    def lineage(self, insight_id: str) -> InsightLineage | None:
        """One insight with its concepts, merge lineage and source impulses; None if no insight
        has that id."""

    @abc.abstractmethod
    def relations_by_source(self, source_id: str) -> list[AssertedRelation]:
        """Concept relations whose source is this memory (only its own user's concepts)."""

    @abc.abstractmethod
    def about_concepts(
        self, concept_ids: Sequence[str], user_id: str, exclude: Sequence[str], limit: int
    ) -> list[KnowledgeCrystal]:
        """One user's insights (any state) linked to any of the concepts, not superseded,
        newest first, at most ``limit``."""
