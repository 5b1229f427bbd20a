"""Knowledge writes: per-node property patches and closing asserted relations."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: a flat graph property value (what ``Node.to_props`` produces)
PropertyValue = str | int | float | bool | list[str] | None


@dataclass(frozen=True, slots=True)
class NodePatch:
    """Properties to set on one node (graph only: vector payloads are not touched)."""

    id: str
    props: Mapping[str, PropertyValue]


class KnowledgeWrites(abc.ABC):
    @abc.abstractmethod
    def patch_nodes(self, patches: Sequence[NodePatch]) -> int:
        """Set each node's own properties in one batch; return how many matched."""

    @abc.abstractmethod
    def close_relations(self, source_ids: Sequence[str], now: int) -> int:
        """End the validity (``valid_until = now``) of the still-valid concept relations the
        given memories asserted; history is kept. Return how many were closed."""

    @abc.abstractmethod
    def close_insight_relations(self, insight_ids: Sequence[str], now: int) -> int:
        """End the validity of the concept relations the given (superseded) insights asserted,
        starting from each insight's concepts; return how many were closed."""
