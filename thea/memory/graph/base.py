"""The graph port: symbolic + conceptual memory.

Adapters (one module each) implement this with query text from ``cypher/``.
All writes are batched (``UNWIND $rows``) and idempotent (``MERGE`` on ``id``).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

from thea.memory.operations import GraphOperations
from thea.memory.operations.deletion import NodeDeletion
from thea.models import Edge, EdgeType, HealthStatus, Node, NodeType, Subgraph


class GraphStore(abc.ABC):
    """Abstract graph store. Methods are synchronous; async callers use a thread."""

    #: Short backend name used in health reports and logs.
    backend: str = "graph"

    @abc.abstractmethod
    def ensure_schema(self) -> None:
        """Create indexes/constraints (idempotent)."""

    @abc.abstractmethod
    def upsert_nodes(self, nodes: Sequence[Node]) -> int:
        """MERGE nodes on id, set their properties; return how many were written."""

    @abc.abstractmethod
    def upsert_edges(self, edges: Sequence[Edge]) -> int:
        """MERGE edges between existing nodes; return how many were written."""

    @abc.abstractmethod
    def get_nodes(self, ids: Sequence[str]) -> list[Node]:
        """Nodes by id (missing ids are skipped), in no particular order."""

    @abc.abstractmethod
    def find_ids_by_prefix(self, prefix: str, limit: int = 5, user_id: str | None = None) -> list[str]:
        """Ids starting with ``prefix`` (for short ids typed by people); with ``user_id`` only
        that user's nodes."""

    @abc.abstractmethod
    def neighbourhood(
        self,
        node_id: str,
        depth: int = 1,
        edge_types: Sequence[EdgeType] | None = None,
        limit: int = 200,
        user_id: str | None = None,
    ) -> Subgraph:
        """The node, its neighbours up to ``depth`` hops and the edges between them; with
        ``user_id`` only paths through that user's nodes (and nothing if the start is not theirs)."""

    @abc.abstractmethod
    def nodes_in_time_range(
        self,
        node_type: NodeType | None,
        start_ms: int,
        end_ms: int,
        user_id: str | None = None,
        limit: int = 100,
    ) -> list[Node]:
        """Nodes created in [start_ms, end_ms), newest first."""

    @abc.abstractmethod
    def concepts_by_norm(self, norms: Sequence[str], user_id: str) -> dict[str, Node]:
        """One user's concepts whose normalised name or alias is in ``norms``, keyed by that norm
        (concepts are per user: another user's are never returned)."""

    @abc.abstractmethod
    def add_aliases(self, concept_id: str, alias_norms: Sequence[str], user_id: str) -> None:
        """Record extra normalised names that resolve to one of the user's concepts."""

    @abc.abstractmethod
    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        """Set the same flat properties on many nodes; return how many matched."""

    @abc.abstractmethod
    def count_by_type(self) -> dict[str, int]:
        """Node counts per label, plus ``edges`` for the relationship count."""

    @property
    @abc.abstractmethod
    def operations(self) -> GraphOperations:
        """The typed operations of this store, grouped by use (trace reads, recall reads, ...)."""

    @property
    @abc.abstractmethod
    def deletion(self) -> NodeDeletion:
        """Deleting one user's nodes for good (forgetting a fact of record); the other layers
        are handled by :func:`thea.memory.erasure.erase`."""

    @abc.abstractmethod
    def health(self) -> HealthStatus:
        """Reachability and latency, never raises."""

    def recover(self) -> bool:
        """Bring back an engine this store owns that has died (the embedded server); True when
        it did. Stores of servers run by others have nothing to do."""
        return False

    def compact(self) -> bool:
        """Rewrite the engine's files so that deleted and overwritten data is gone from disk
        (forgetting); True when done. Default: False (the engine offers no way to ask)."""
        return False

    @abc.abstractmethod
    def close(self) -> None:
        """Release connections (and stop an owned embedded server)."""
