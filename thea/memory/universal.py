"""UniversalMemory: one facade over the graph, vector and chronicle layers.

``record(nodes, links)`` writes the graph first (the source of truth), then the
embeddings of recall-worthy nodes, then the temporal log, each in one batch and
idempotently (MERGE on ids; vector point ids and chronicle ids are the node ids).
If the graph write fails nothing else is attempted and the error propagates; if a
later layer fails, :class:`PartialWriteError` says which layers hold the data and
``thea memory repair`` can re-derive the rest from the graph.

``record(..., embed=False)`` (bulk imports) writes the graph and the log and leaves the vectors
for later: each recall-worthy node gets the graph property ``embed_pending`` (when it was
queued), :meth:`UniversalMemory.embed_pending` computes the vectors of the oldest waiting nodes
and clears it (the service does so in the background), keyword recall finds them meanwhile, and
``thea memory check`` counts them as pending, not missing. The same embedder computes them: one
embedding space per store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings

from thea.errors import InputError, NotFoundError, PartialWriteError, TheaError
from thea.memory.chronicle.base import Chronicle
from thea.memory.chunking import MAX_CHUNKS, Chunker, char_chunks, spread_evenly
from thea.memory.graph.base import GraphStore
from thea.memory.operation_groups import OperationGroups
from thea.memory.recall_port import MemoryRecallPort, RecallPort
from thea.memory.vector.base import VectorStore
from thea.memory.vector.indexing import IndexKeeper
from thea.models import (
    ChronicleEvent,
    Collection,
    Concept,
    DocumentChunk,
    Edge,
    EdgeType,
    HealthStatus,
    KnowledgeCrystal,
    Node,
    NodeType,
    Subgraph,
    VectorFilter,
    VectorHit,
    VectorRecord,
    normalize_name,
    now_ms,
)
from thea.words import words as read_words

log = logging.getLogger(__name__)

#: graph property of a node whose vectors wait to be computed: when it was queued (epoch ms)
EMBED_PENDING = "embed_pending"

_COLLECTION_OF: dict[NodeType, Collection] = {
    NodeType.CONCEPT: Collection.CONCEPTS,
    NodeType.KNOWLEDGE_CRYSTAL: Collection.INSIGHTS,
}


def collection_for(node_type: NodeType) -> Collection:
    return _COLLECTION_OF.get(node_type, Collection.EXPERIENCE)


def unknown_id(prefix: str) -> NotFoundError:
    """The one answer for an id that does not exist, or that belongs to someone else."""
    return NotFoundError(f"no memory with id starting {prefix!r}")


@dataclass
class RecordResult:
    nodes: int = 0
    edges: int = 0
    vectors: int = 0
    events: int = 0
    #: nodes whose vectors were left for later (``record(..., embed=False)``)
    pending: int = 0
    layers: list[str] = field(default_factory=list)


class UniversalMemory(OperationGroups):
    """The four memory layers behind one object. Methods are synchronous and
    thread-safe as far as the adapters are; ``a*`` variants run them in a thread
    so an event loop never blocks."""

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        chronicle: Chronicle,
        embedder: Embeddings,
        *,
        dimension: int,
        chunker: Chunker | None = None,
        space_guard: Callable[[], None] | None = None,
        max_chunks: int = MAX_CHUNKS,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.chronicle = chronicle
        self.embedder = embedder
        self.dimension = dimension
        self.chunker: Chunker = chunker or getattr(embedder, "chunk_text", None) or char_chunks
        #: raises (e.g. :class:`~thea.errors.DiskFullError`) when a write must not start
        self.space_guard = space_guard or (lambda: None)
        self.max_chunks = max_chunks
        self.recall_port: RecallPort = MemoryRecallPort(self)

    def ensure_schema(self) -> None:
        self.graph.ensure_schema()
        self.vectors.ensure_collections(self.dimension)

    # -- writes ------------------------------------------------------------------------

    def record(
        self, nodes: Sequence[Node], links: Sequence[Edge] = (), *, embed: bool = True
    ) -> RecordResult:
        """Write nodes and links to every layer, in batches, idempotently. ``embed=False``
        leaves the vectors for :meth:`embed_pending` (the recall-worthy nodes are marked
        ``embed_pending`` in the graph, in the same call)."""
        for node in nodes:
            if not isinstance(node, Node):
                raise InputError(f"record() takes Node objects, got {type(node).__name__}")
        self.space_guard()  # refused before anything is written, so nothing is half-stored
        result = RecordResult()
        result.nodes = self.graph.upsert_nodes(nodes)
        result.edges = self.graph.upsert_edges(links) if links else 0
        result.layers.append("graph")
        failed: dict[str, Exception] = {}
        if not embed:
            waiting = [n.id for n in nodes if (n.embedding_text() or "").strip()]
            result.pending = self.graph.set_properties(waiting, {EMBED_PENDING: now_ms()}) if waiting else 0
        else:
            try:
                result.vectors = self._embed_and_store(nodes)
                result.layers.append("vectors")
            except TheaError as exc:
                log.error("vector write failed for %d nodes: %s", len(nodes), exc)
                failed["vectors"] = exc
        try:
            result.events = self.chronicle.append([self.event_of(n) for n in nodes])
            result.layers.append("chronicle")
        except TheaError as exc:
            log.error("chronicle write failed for %d nodes: %s", len(nodes), exc)
            failed["chronicle"] = exc
        if failed:
            raise PartialWriteError(result.layers, failed)
        return result

    async def arecord(self, nodes: Sequence[Node], links: Sequence[Edge] = ()) -> RecordResult:
        return await asyncio.to_thread(self.record, nodes, links)

    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        """Set the same flat properties on many nodes, in the graph only (vector payloads keep
        theirs: use :meth:`set_active` for ``active``); return how many matched."""
        return self.graph.set_properties(ids, props)

    def set_vector_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        """Archive or revive points in the vector store only, for nodes whose graph state an
        operation already changed (a merge, a promotion)."""
        self.vectors.set_active(collection, ids, active)

    def link(self, links: Sequence[Edge]) -> int:
        """Add edges between nodes already recorded."""
        self.space_guard()
        return self.graph.upsert_edges(links)

    @staticmethod
    def event_of(node: Node) -> ChronicleEvent:
        summary = node.content[:200] if node.content else node.type.value
        return ChronicleEvent(
            id=node.id,
            type=node.type.value,
            time=node.happened_at(),
            user_id=node.user_id,
            session_id=node.session_id,
            correlation_id=node.correlation_id,
            summary=summary,
        )

    def vector_records(self, nodes: Sequence[Node]) -> list[VectorRecord]:
        """Embed the recall-worthy nodes (long texts as overlapping chunks, at most
        ``max_chunks`` of them per text)."""
        pending: list[tuple[Node, int, str]] = []
        for node in nodes:
            text = node.embedding_text()
            if not text or not text.strip():
                continue
            for index, chunk in spread_evenly(self.chunker(text), self.max_chunks):
                pending.append((node, index, chunk))
        if not pending:
            return []
        vectors = self.embedder.embed_documents([chunk for _, _, chunk in pending])
        records = []
        for (node, index, chunk), vector in zip(pending, vectors, strict=True):
            records.append(
                VectorRecord(
                    id=node.id,
                    collection=collection_for(node.type),
                    vector=vector,
                    type=node.type.value,
                    text=chunk,
                    user_id=node.user_id,
                    session_id=node.session_id,
                    active=node.vector_active(),
                    created_at=node.happened_at(),
                    chunk=index,
                )
            )
        return records

    def _embed_and_store(self, nodes: Sequence[Node]) -> int:
        records = self.vector_records(nodes)
        return self.vectors.upsert(records) if records else 0

    def waiting_for_vectors(self, limit: int) -> list[Node]:
        """At most ``limit`` nodes whose vectors wait to be computed, oldest wait first (a node
        that no longer reads as one loses its mark: `memory check` reports it)."""
        nodes: list[Node] = []
        unreadable: list[str] = []
        for p in self.admin.pending_vectors(limit):
            try:
                nodes.append(Node.from_props(p))
            except (TheaError, ValueError) as exc:
                log.warning("cannot embed unreadable node %s: %s", p.get("id"), exc)
                unreadable.append(str(p.get("id")))
        if unreadable:
            self.graph.set_properties(unreadable, {EMBED_PENDING: None})
        return nodes

    def embed_waiting(self, nodes: Sequence[Node]) -> int:
        """Compute and store the vectors of nodes that wait for them, then clear their mark."""
        if not nodes:
            return 0
        self.space_guard()
        self._embed_and_store(nodes)
        self.graph.set_properties([n.id for n in nodes], {EMBED_PENDING: None})
        return len(nodes)

    def embed_pending(self, limit: int = 64) -> int:
        """Compute and store the vectors of at most ``limit`` nodes that wait for them (oldest
        first) and clear their marks; how many were done (0: none waits)."""
        return self.embed_waiting(self.waiting_for_vectors(limit))

    def pending_vectors(self) -> int:
        """How many nodes wait for their vectors (:meth:`embed_pending`)."""
        return self.admin.count_pending_vectors()

    def get_or_create_concepts(
        self, names: Sequence[str], user_id: str, *, embed: bool = True
    ) -> dict[str, Concept]:
        """Resolve names (case, spacing and aliases ignored) to one user's concepts, creating
        missing ones.

        The result has one key per name given, spelled as given. Concepts are per user: the id
        derives from the user and the normalised name, so two processes creating the same
        concept at once MERGE into one node, and two users never share a concept. ``embed=False``
        leaves the vectors of new concepts for :meth:`embed_pending`.
        """
        wanted = {normalize_name(n): n for n in names if normalize_name(n)}
        found = self.graph.concepts_by_norm(list(wanted), user_id)
        by_norm: dict[str, Concept] = {}
        missing: list[Concept] = []
        for norm, original in wanted.items():
            hit = found.get(norm)
            if isinstance(hit, Concept):
                by_norm[norm] = hit
            else:
                by_norm[norm] = Concept.named(original, user_id)
                missing.append(by_norm[norm])
        if missing:
            self.record(missing, embed=embed)
        # every spelling asked for is a key ("Redis" and "redis" both map to the one concept)
        return {n: by_norm[normalize_name(n)] for n in names if normalize_name(n)}

    def find_concepts(self, names: Sequence[str], user_id: str) -> dict[str, Node]:
        """One user's existing concepts named (or aliased) by ``names``, keyed by normalised name;
        nothing is created."""
        norms = [n for n in dict.fromkeys(normalize_name(name) for name in names) if n]
        return self.graph.concepts_by_norm(norms, user_id) if norms else {}

    def set_active(self, nodes: Sequence[Node], active: bool) -> None:
        """Archive (active=False) or revive nodes in the graph and the vector payloads."""
        self.space_guard()
        ids = [n.id for n in nodes]
        self.graph.set_properties(ids, {"active": active})
        by_collection: dict[Collection, list[str]] = {}
        for node in nodes:
            by_collection.setdefault(collection_for(node.type), []).append(node.id)
        for collection, coll_ids in by_collection.items():
            self.vectors.set_active(collection, coll_ids, active)

    def close_insight_relations(self, insight_ids: Sequence[str], now: int) -> int:
        """Set ``valid_until`` on the concept relations the given insights asserted (superseded
        insights); returns how many were closed."""
        if not insight_ids:
            return 0
        self.space_guard()
        return self.knowledge.close_insight_relations(insight_ids, now)

    # -- reads -------------------------------------------------------------------------

    def get(self, ids: Sequence[str]) -> list[Node]:
        return self.graph.get_nodes(ids)

    def concepts_named_in(
        self, text: str, user_id: str, max_words: int = 3, limit: int = 400
    ) -> list[Concept]:
        """One user's concepts whose name (or alias) is a run of up to ``max_words`` words of
        ``text``: indexed lookups of at most ``limit`` candidate names, no scan."""
        words = read_words(text)
        norms: dict[str, None] = {}
        for size in range(1, max_words + 1):
            for start in range(len(words) - size + 1):
                norm = normalize_name(" ".join(words[start : start + size]))
                if len(norm) >= 2:
                    norms.setdefault(norm, None)
        found = self.graph.concepts_by_norm(list(norms)[:limit], user_id) if norms else {}
        unique = {n.id: n for n in found.values() if isinstance(n, Concept)}
        return list(unique.values())

    def insights_about(
        self, concept_ids: Sequence[str], user_id: str, *, exclude: Sequence[str] = (), limit: int = 20
    ) -> list[KnowledgeCrystal]:
        """One user's insights (any state) linked to any of the concepts, not superseded,
        newest first, at most ``limit``."""
        return self.insight_views.about_concepts(concept_ids, user_id, exclude, limit)

    def document_chunks(self, document_id: str, user_id: str) -> list[DocumentChunk]:
        """One user's document as its chunks, in order: joined, they are the pasted text."""
        return self.exchange.document_chunks(document_id, user_id)

    def neighbourhood(
        self,
        node_id: str,
        depth: int = 1,
        edge_types: Sequence[EdgeType] | None = None,
        limit: int = 200,
        *,
        user_id: str | None = None,
    ) -> Subgraph:
        return self.graph.neighbourhood(node_id, depth, edge_types, limit, user_id)

    def by_time(
        self,
        start_ms: int,
        end_ms: int,
        *,
        node_type: NodeType | None = None,
        user_id: str | None = None,
        limit: int = 100,
    ) -> list[Node]:
        return self.graph.nodes_in_time_range(node_type, start_ms, end_ms, user_id, limit)

    def events(
        self, start_ms: int, end_ms: int, *, user_id: str | None = None, types: Sequence[str] | None = None
    ) -> list[ChronicleEvent]:
        return self.chronicle.range(start_ms, end_ms, user_id=user_id, types=types)

    def search(
        self,
        text: str,
        collection: Collection = Collection.EXPERIENCE,
        *,
        flt: VectorFilter | None = None,
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        if not text.strip():
            return []
        vector = self.embedder.embed_query(text)
        return self.vectors.search(collection, vector, limit, flt, score_threshold)

    def resolve_id(self, prefix: str, *, user_id: str | None = None) -> str:
        """A full id from a unique prefix (people type short ids). With ``user_id`` only that
        user's memories count: another user's id gets the same answer as an id that does not
        exist."""
        matches = self.graph.find_ids_by_prefix(prefix, limit=2, user_id=user_id)
        if not matches:
            raise unknown_id(prefix)
        if len(matches) > 1:
            raise NotFoundError(f"id prefix {prefix!r} is ambiguous; type more characters")
        return matches[0]

    # -- operations --------------------------------------------------------------------

    def node_counts(self) -> dict[str, int]:
        """Graph node counts per type, plus ``edges``."""
        return self.graph.count_by_type()

    def compact(self) -> dict[str, bool]:
        """Have every layer rewrite its files so that deleted and overwritten data leaves the
        disk (after forgetting); per layer, whether it could."""
        return {
            "graph": self.graph.compact(),
            "vectors": self.vectors.compact(),
            "chronicle": self.chronicle.compact(),
        }

    def optimize_vectors(self) -> None:
        """Build the vector indexes now (``thea memory optimize``)."""
        self.vectors.optimize()

    def index_keeper(self, threshold: int) -> IndexKeeper:
        """What builds the embedded vector index when ``threshold`` points wait (idle work)."""
        return IndexKeeper(self.vectors, threshold)

    def stats(self) -> dict[str, dict[str, int]]:
        return {
            "graph": self.graph.count_by_type(),
            "vectors": {c.value: self.vectors.count(c) for c in Collection},
            "chronicle": {"events": self.chronicle.count()},
        }

    def health(self) -> list[HealthStatus]:
        def embed() -> str:
            self.embedder.embed_query("ping")
            return ""

        embeddings = HealthStatus.probe("embeddings", type(self.embedder).__name__, embed)
        return [self.graph.health(), self.vectors.health(), self.chronicle.health(), embeddings]

    def recover_engines(self) -> bool:
        """Start again an engine this memory owns that has died (the embedded graph server);
        True when one was. Raises :class:`BackendUnavailable` when it cannot be started."""
        return self.graph.recover()

    def close(self) -> None:
        for closer in (self.vectors.close, self.chronicle.close, self.graph.close):
            try:
                closer()
            except Exception as exc:  # close everything even if one part fails
                log.warning("error while closing memory: %s", exc)
