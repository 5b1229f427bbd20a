"""Narrow views of :class:`~thea.memory.universal.UniversalMemory`: what one view, job or
service reads, as a ``Protocol``. Each function takes the narrowest one it uses, so its
signature says what it touches and a test can hand it a small fake; the memory satisfies them
all (mypy checks it where the composition passes it). The recall cascade's port is in
``recall_port.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from thea.memory.operations import (
    ExchangeOperations,
    FactReads,
    InsightViews,
    KnowledgeWrites,
    ReflectionOperations,
    TraceReads,
)
from thea.models import (
    Collection,
    Concept,
    Edge,
    EdgeType,
    KnowledgeCrystal,
    Node,
    Subgraph,
    VectorFilter,
    VectorHit,
)

if TYPE_CHECKING:
    from thea.memory.recall_port import RecallPort
    from thea.memory.universal import RecordResult


class NodeReads(Protocol):
    def get(self, ids: Sequence[str]) -> list[Node]:
        """The nodes with these ids (those that exist)."""
        ...


class NodeLookup(NodeReads, Protocol):
    def resolve_id(self, prefix: str, *, user_id: str | None = None) -> str:
        """A full id from a unique prefix (among ``user_id``'s memories when given)."""
        ...


class Recorder(Protocol):
    def record(
        self, nodes: Sequence[Node], links: Sequence[Edge] = (), *, embed: bool = True
    ) -> RecordResult:
        """Store nodes and edges (``embed=False``: their vectors are left for later)."""
        ...


class ConceptSource(Protocol):
    def get_or_create_concepts(
        self, names: Sequence[str], user_id: str, *, embed: bool = True
    ) -> dict[str, Concept]:
        """The user's concepts with these names, created when missing."""
        ...


class VectorSearch(Protocol):
    def search(
        self,
        text: str,
        collection: Collection = Collection.EXPERIENCE,
        *,
        flt: VectorFilter | None = None,
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        """The nearest memories of a collection to ``text``."""
        ...


class TraceSource(NodeLookup, Protocol):
    """What the trace view reads: cycles, and the user's own nodes by id or prefix."""

    @property
    def traces(self) -> TraceReads: ...


class InsightSource(NodeReads, Protocol):
    """What the insight views read."""

    @property
    def insight_views(self) -> InsightViews: ...


class FactSource(NodeLookup, Protocol):
    """What "What I know about you" reads: the facts of record and their messages."""

    @property
    def facts(self) -> FactReads: ...


class ExportSource(NodeReads, Protocol):
    """What an export reads: pages of conversations, and how many there are."""

    @property
    def exchange(self) -> ExchangeOperations: ...

    def node_counts(self) -> dict[str, int]:
        """Graph node counts per type, plus ``edges``."""
        ...


class ReflectionSource(Protocol):
    """What the reflection schedule reads: who has insights to merge."""

    @property
    def reflection(self) -> ReflectionOperations: ...


class Forgetting(NodeLookup, Protocol):
    """What forgetting a memory writes: it leaves recall, a fact stops holding."""

    def set_active(self, nodes: Sequence[Node], active: bool) -> None:
        """Mark nodes active or not, in the graph and in the vector store."""
        ...

    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        """Set properties of nodes; how many were found."""
        ...


class FeedbackTarget(NodeReads, Protocol):
    """What feedback on an answer reweighs: the answer and what it recalled."""

    @property
    def knowledge(self) -> KnowledgeWrites: ...

    def set_vector_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        """Mark points of a collection active or not (recall skips inactive ones)."""
        ...


class MemoryWriter(Recorder, ConceptSource, Protocol):
    """What recording new memories with their concepts writes (imports, ``remember``)."""


class ImportTarget(MemoryWriter, Protocol):
    """What importing history writes, and reads to skip what is already there."""

    @property
    def exchange(self) -> ExchangeOperations: ...


class VectorBacklog(Protocol):
    """The memories whose vectors a large import left for later (workers/vector_catch_up.py)."""

    def waiting_for_vectors(self, limit: int) -> list[Node]:
        """At most ``limit`` nodes waiting for their vectors, oldest wait first."""
        ...

    def embed_waiting(self, nodes: Sequence[Node]) -> int:
        """Compute and store their vectors; how many were stored."""
        ...

    def pending_vectors(self) -> int:
        """How many memories still wait."""
        ...


class AsyncRecorder(Protocol):
    """What a slow-loop job writes from its event loop (distilled turns)."""

    async def arecord(self, nodes: Sequence[Node], links: Sequence[Edge] = ()) -> RecordResult:
        """Store nodes and edges (in a thread)."""
        ...


class CrystalWriter(AsyncRecorder, NodeReads, ConceptSource, Protocol):
    """What crystallizing a session writes: its crystal, the crystal's concepts and its trace."""


class CycleMemory(AsyncRecorder, ConceptSource, Protocol):
    """What the orchestrator writes and reads: the cycle's nodes, the impulse's concepts and
    status, and a session's earlier exchanges (to restore its conversation)."""

    @property
    def traces(self) -> TraceReads: ...

    def link(self, links: Sequence[Edge]) -> int:
        """Add edges between nodes already recorded."""
        ...

    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        """Set properties of nodes; how many were found."""
        ...


class FactStore(NodeReads, ConceptSource, Recorder, VectorSearch, Protocol):
    """What the fact keeper reads and writes: similar facts and insights, the facts it records
    with their concepts, and what a new value supersedes."""

    @property
    def facts(self) -> FactReads: ...

    @property
    def knowledge(self) -> KnowledgeWrites: ...


class InsightSupersession(Recorder, Protocol):
    """What superseding the insights that rest on a fact reads and writes."""

    @property
    def facts(self) -> FactReads: ...

    def close_insight_relations(self, insight_ids: Sequence[str], now: int) -> int:
        """Close the concept relations these insights asserted."""
        ...


class FactEdits(FactSource, InsightSupersession, Protocol):
    """What correcting or outdating a fact of record reads and writes."""

    @property
    def knowledge(self) -> KnowledgeWrites: ...

    def link(self, links: Sequence[Edge]) -> int:
        """Add edges between nodes already recorded."""
        ...


class InsightRevisionSource(NodeReads, Recorder, VectorSearch, Protocol):
    """What revising insights on new evidence reads and writes: the insights about what it names
    or nearest to it, embeddings to compare claims, and the revised insights."""

    @property
    def recall_port(self) -> RecallPort: ...

    def concepts_named_in(
        self, text: str, user_id: str, max_words: int = 3, limit: int = 400
    ) -> list[Concept]:
        """The user's concepts whose name is a run of words of ``text``."""
        ...

    def insights_about(
        self, concept_ids: Sequence[str], user_id: str, *, exclude: Sequence[str] = (), limit: int = 20
    ) -> list[KnowledgeCrystal]:
        """The user's insights linked to any of the concepts."""
        ...

    def close_insight_relations(self, insight_ids: Sequence[str], now: int) -> int:
        """Close the concept relations these insights asserted."""
        ...


class CrystallizerMemory(TraceSource, AsyncRecorder, ConceptSource, InsightRevisionSource, Protocol):
    """What crystallizing a message reads and writes: its cycle, the concepts it links, the
    crystal with its trace, and the older insights it revises."""

    def neighbourhood(
        self,
        node_id: str,
        depth: int = 1,
        edge_types: Sequence[EdgeType] | None = None,
        limit: int = 200,
        *,
        user_id: str | None = None,
    ) -> Subgraph:
        """The nodes and edges around a node."""
        ...


class ReflectionMemory(AsyncRecorder, NodeReads, ReflectionSource, Recorder, Protocol):
    """What merging a user's insights reads and writes: candidate groups, their claims, the
    merged insights, and the sources archived from the vector store."""

    @property
    def recall_port(self) -> RecallPort: ...

    def set_vector_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        """Mark points of a collection active or not (recall skips inactive ones)."""
        ...
