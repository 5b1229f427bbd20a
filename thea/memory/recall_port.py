"""The read port recall uses: every store lookup of the recall cascade behind one interface
(reflection's near-duplicate search uses its similarity reads too).

:class:`RecallPort` is the interface (a ``Protocol``: the cascade's unit tests give it a small
in-memory fake); :class:`MemoryRecallPort` implements it over the stores.
:class:`~thea.memory.universal.UniversalMemory` hands one out (``memory.recall_port``), so the
cascade takes a :class:`RecallSource` and never touches the graph, the vector store or the
embedder itself. The implementation reads the facade's current embedder on every call
(benchmarks swap it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from thea.memory.operations import ConceptNeighbour, KeywordMatch, TripleMatch
from thea.models import Collection, EdgeType, Node, NodeType, VectorFilter, VectorHit

if TYPE_CHECKING:
    from thea.memory.universal import UniversalMemory

#: the collections recall searches by similarity (and counts for idf)
RECALL_COLLECTIONS = (Collection.EXPERIENCE, Collection.INSIGHTS)


class RecallPort(Protocol):
    """Every store read of the recall cascade."""

    def recallable_count(self) -> int:
        """How many points the recall collections hold (all users): the N of idf."""
        ...

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Query embeddings, one per text."""
        ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Document embeddings, one per text."""
        ...

    def nearest(
        self,
        collection: Collection,
        vector: list[float],
        limit: int,
        flt: VectorFilter | None = None,
        floor: float | None = None,
    ) -> list[VectorHit]:
        """The ``limit`` points nearest ``vector`` that pass the filter and the similarity floor."""
        ...

    def keyword_matches(
        self, queries: Sequence[str], types: Sequence[NodeType], user_id: str | None, limit: int
    ) -> list[KeywordMatch]:
        """Full-text matches of each word, in one lookup: each word's best ``limit``, word after word."""
        ...

    def concepts_by_norm(self, norms: Sequence[str], user_id: str) -> dict[str, Node]:
        """The user's concepts whose normalised name or alias is in ``norms``, by that norm."""
        ...

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
        """Current concept relations of one kind with one end known."""
        ...

    def linked_memories(
        self,
        concept_ids: Sequence[str],
        user_id: str | None,
        time_from: int | None,
        time_to: int | None,
        limit: int,
    ) -> list[str]:
        """Ids of the memories linked to the concepts, within the time window."""
        ...

    def concept_neighbours(
        self, concept_ids: Sequence[str], relations: Sequence[EdgeType], user_id: str | None, now: int
    ) -> list[ConceptNeighbour]:
        """The concepts one current relation away."""
        ...

    def nodes(self, ids: Sequence[str]) -> list[Node]:
        """The nodes with these ids (those that exist)."""
        ...


class RecallSource(Protocol):
    """What the recall cascade is given: anything that hands out a :class:`RecallPort`
    (:class:`~thea.memory.universal.UniversalMemory` does)."""

    @property
    def recall_port(self) -> RecallPort: ...


class MemoryRecallPort:
    """:class:`RecallPort` over the stores of a :class:`~thea.memory.universal.UniversalMemory`."""

    def __init__(self, memory: UniversalMemory) -> None:
        self._memory = memory

    # -- vectors -----------------------------------------------------------------------

    def recallable_count(self) -> int:
        """How many points the recall collections hold (all users): the N of idf."""
        vectors = self._memory.vectors
        return sum(vectors.count(c) for c in RECALL_COLLECTIONS)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Query embeddings (an embedder with a batched ``embed_queries`` is asked once)."""
        embedder = self._memory.embedder
        batched = getattr(embedder, "embed_queries", None)
        if callable(batched):
            return list(batched(texts))
        return [embedder.embed_query(t) for t in texts]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Document embeddings (for comparing stored texts with each other, e.g. near-duplicate
        insights)."""
        return self._memory.embedder.embed_documents(texts)

    def nearest(
        self,
        collection: Collection,
        vector: list[float],
        limit: int,
        flt: VectorFilter | None = None,
        floor: float | None = None,
    ) -> list[VectorHit]:
        """The ``limit`` points nearest ``vector`` that pass the filter and the similarity floor."""
        return self._memory.vectors.search(collection, vector, limit, flt, floor)

    # -- graph -------------------------------------------------------------------------

    def keyword_matches(
        self, queries: Sequence[str], types: Sequence[NodeType], user_id: str | None, limit: int
    ) -> list[KeywordMatch]:
        return self._memory.graph.operations.recall.keyword_matches(queries, types, user_id, limit)

    def concepts_by_norm(self, norms: Sequence[str], user_id: str) -> dict[str, Node]:
        """The user's concepts whose normalised name or alias is in ``norms``, by that norm."""
        return self._memory.graph.concepts_by_norm(norms, user_id)

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
        recall = self._memory.graph.operations.recall
        return recall.triple_matches(
            relation, known, known_is_subject=known_is_subject, other=other, user_id=user_id, now=now
        )

    def linked_memories(
        self,
        concept_ids: Sequence[str],
        user_id: str | None,
        time_from: int | None,
        time_to: int | None,
        limit: int,
    ) -> list[str]:
        recall = self._memory.graph.operations.recall
        return recall.linked_memories(concept_ids, user_id, time_from, time_to, limit)

    def concept_neighbours(
        self, concept_ids: Sequence[str], relations: Sequence[EdgeType], user_id: str | None, now: int
    ) -> list[ConceptNeighbour]:
        return self._memory.graph.operations.recall.concept_neighbours(concept_ids, relations, user_id, now)

    def nodes(self, ids: Sequence[str]) -> list[Node]:
        return self._memory.get(ids)
