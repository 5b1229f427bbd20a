"""Typed graph operations grouped by use.

Each group is an abstract interface with typed inputs and results; the Cypher adapters
implement every group once (``thea.memory.graph.cypher_operations``) on their private query
runner, so the query files in ``cypher/`` and the dialect choice stay inside the adapters.
Services get the groups from :class:`~thea.memory.universal.UniversalMemory`.
"""

from __future__ import annotations

from dataclasses import dataclass

from thea.memory.operations.admin import AdminOperations, CycleOutcome, LegacyLink, LegacyRelation
from thea.memory.operations.exchange import ExchangeOperations
from thea.memory.operations.facts import FactReads
from thea.memory.operations.insights import (
    AssertedRelation,
    InsightFilter,
    InsightLineage,
    InsightListing,
    InsightViews,
    Verification,
)
from thea.memory.operations.knowledge import KnowledgeWrites, NodePatch
from thea.memory.operations.recall import ConceptNeighbour, KeywordMatch, RecallReads, TripleMatch
from thea.memory.operations.reflection import InsightCandidate, MergeClaim, ReflectionOperations
from thea.memory.operations.trace import ChatSessionRow, ExchangeRow, TraceReads

__all__ = [
    "AdminOperations",
    "AssertedRelation",
    "ChatSessionRow",
    "ConceptNeighbour",
    "CycleOutcome",
    "ExchangeOperations",
    "ExchangeRow",
    "FactReads",
    "GraphOperations",
    "InsightCandidate",
    "InsightFilter",
    "InsightLineage",
    "InsightListing",
    "InsightViews",
    "KeywordMatch",
    "KnowledgeWrites",
    "LegacyLink",
    "LegacyRelation",
    "MergeClaim",
    "NodePatch",
    "RecallReads",
    "ReflectionOperations",
    "TraceReads",
    "TripleMatch",
    "Verification",
]


@dataclass(frozen=True)
class GraphOperations:
    """Every operation group of one graph store."""

    traces: TraceReads
    recall: RecallReads
    reflection: ReflectionOperations
    insights: InsightViews
    knowledge: KnowledgeWrites
    exchange: ExchangeOperations
    admin: AdminOperations
    facts: FactReads
