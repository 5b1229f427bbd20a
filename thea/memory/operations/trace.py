"""Trace reads: the nodes of one cognitive cycle, and the latest cycle of a user."""

from __future__ import annotations

import abc

from thea.models import Node


class TraceReads(abc.ABC):
    """What the trace view (``thea trace``, the web inspector) reads from the graph."""

    @abc.abstractmethod
    def cycle_nodes(self, correlation_id: str) -> list[Node]:
        """Every node of one cycle (and of the jobs that followed it), oldest first."""

    @abc.abstractmethod
    def latest_impulse_id(self, user_id: str | None = None) -> str | None:
        """The newest impulse (of ``user_id``, or of anyone), or None."""
