"""Recall reads: the graph lookups of the recall cascade (keywords, triples, activation)."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from thea.models import EdgeType, NodeType


@dataclass(frozen=True, slots=True)
class KeywordMatch:
    """One full-text hit: what the keyword stage scores (BM25) and filters (owner, time)."""

    id: str
    type: str
    user_id: str | None
    content: str
    #: the words an imported turn replies to (empty when none)
    context: str
    #: when it happened: an imported turn's ``event_time``, else ``created_at``
    event_time: int
    score: float
    #: what the user told (not a question, not thea's own words; :func:`thea.models.is_evidence`)
    evidence: bool = True


@dataclass(frozen=True, slots=True)
class TripleMatch:
    """A concept pair matching a triple pattern: the known end and the other end."""

    known: str
    other: str
    confidence: float | None


@dataclass(frozen=True, slots=True)
class ConceptNeighbour:
    """One currently valid typed relation touching a concept of the frontier."""

    src: str
    dst: str
    relation: str
    confidence: float | None


class RecallReads(abc.ABC):
    """Graph lookups of recall; every one takes the asking user and returns only theirs."""

    @abc.abstractmethod
    def keyword_matches(
        self, queries: Sequence[str], types: Sequence[NodeType], user_id: str | None, limit: int
    ) -> list[KeywordMatch]:
        """Full-text search over memory content in one round trip: for each of ``queries`` (safe
        words) its best ``limit`` matches, query after query, best first within a query (a memory
        matching two queries comes twice)."""

    @abc.abstractmethod
    def triple_matches(
        self,
        relation: str,
        known: str,
        *,
        known_is_subject: bool,
        other: str | None,
        user_id: str,
        now: int,
    ) -> list[TripleMatch]:
        """The user's concept pairs ``(known)-[relation]-(other)`` valid at ``now`` (at most 50)."""

    @abc.abstractmethod
    def linked_memories(
        self,
        concept_ids: Sequence[str],
        user_id: str | None,
        time_from: int | None,
        time_to: int | None,
        limit: int,
    ) -> list[str]:
        """Ids of the user's active memories linked to the concepts, inside the time window."""

    @abc.abstractmethod
    def concept_neighbours(
        self, concept_ids: Sequence[str], relations: Sequence[EdgeType], user_id: str | None, now: int
    ) -> list[ConceptNeighbour]:
        """One hop of spreading activation over the user's valid typed concept relations."""
