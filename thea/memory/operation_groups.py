"""The typed graph operation groups, as the facade hands them out to services."""

from __future__ import annotations

from thea.memory.graph.base import GraphStore
from thea.memory.operations import (
    AdminOperations,
    ExchangeOperations,
    FactReads,
    InsightViews,
    KnowledgeWrites,
    ReflectionOperations,
    TraceReads,
)


class OperationGroups:
    """Mixed into :class:`~thea.memory.universal.UniversalMemory`: one property per use."""

    graph: GraphStore

    @property
    def traces(self) -> TraceReads:
        """Reads of cognitive cycles (trace view)."""
        return self.graph.operations.traces

    @property
    def insight_views(self) -> InsightViews:
        """Insight lists, lineage and asserted relations (inspectors)."""
        return self.graph.operations.insights

    @property
    def reflection(self) -> ReflectionOperations:
        """What the reflection loop reads and the atomic merge it writes."""
        return self.graph.operations.reflection

    @property
    def knowledge(self) -> KnowledgeWrites:
        """Per-node patches and closing asserted relations (feedback, facts); graph only."""
        return self.graph.operations.knowledge

    @property
    def exchange(self) -> ExchangeOperations:
        """Export pages and import existence checks."""
        return self.graph.operations.exchange

    @property
    def admin(self) -> AdminOperations:
        """Maintenance scans and migrations (``thea memory check/repair``, load checks)."""
        return self.graph.operations.admin

    @property
    def facts(self) -> FactReads:
        """Facts of record: current and earlier values, and the insights resting on them."""
        return self.graph.operations.facts
