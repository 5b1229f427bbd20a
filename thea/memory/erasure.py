"""Erasing memories for good, in every layer at once (forgetting a fact of record).

The graph goes first (the source of truth): each node with all its edges and the concept
relations it asserted. Then its vector points, then its chronicle events; in their place the
chronicle keeps one event per erased memory that says only that a deletion happened (no text,
no id of what was erased). If a later layer fails, :class:`PartialWriteError` names the layers
that were cleaned: what is left there has no node any more, and ``thea memory repair`` drops
such orphan points and events.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from thea.errors import PartialWriteError, TheaError
from thea.memory.universal import UniversalMemory, collection_for
from thea.models import ChronicleEvent, Collection, Node, NodeType, new_id, now_ms

log = logging.getLogger(__name__)

#: the chronicle event type of an erasure
FORGOTTEN_EVENT = "Forgotten"
#: erasure events' ids start with this: they stand for no node (consistency checks skip them)
FORGOTTEN_PREFIX = "forgotten:"


def is_erasure_event(event_id: str) -> bool:
    """Whether a chronicle event id is an erasure's record (it has no node by design)."""
    return event_id.startswith(FORGOTTEN_PREFIX)


@dataclass(frozen=True)
class Erased:
    """What one erasure removed."""

    #: the nodes deleted from the graph
    ids: list[str] = field(default_factory=list)
    #: concept relations those nodes had asserted, deleted with them
    relations: int = 0
    #: the chronicle events that record the deletions
    events: list[str] = field(default_factory=list)


def erase(memory: UniversalMemory, nodes: Sequence[Node], user_id: str) -> Erased:
    """Delete one user's ``nodes`` from the graph, the vectors and the chronicle (another
    user's nodes are left alone); record in the chronicle only that deletions happened."""
    own = [n for n in nodes if n.user_id == user_id]
    if not own:
        return Erased()
    deleted = memory.graph.deletion.delete_nodes([n.id for n in own], user_id)
    gone = set(deleted.ids)
    erased = [n for n in own if n.id in gone]
    if not erased:
        return Erased()
    layers = ["graph"]
    failed: dict[str, Exception] = {}
    by_collection: dict[Collection, list[str]] = {}
    for node in erased:
        by_collection.setdefault(collection_for(node.type), []).append(node.id)
    try:
        for collection, ids in by_collection.items():
            memory.vectors.delete(collection, ids)
        layers.append("vectors")
    except TheaError as exc:
        log.error("erasing %d nodes from the vectors failed: %s", len(erased), exc)
        failed["vectors"] = exc
    at = now_ms()
    events = [
        ChronicleEvent(id=f"{FORGOTTEN_PREFIX}{new_id()}", type=FORGOTTEN_EVENT, time=at, user_id=user_id)
        for _ in erased
    ]
    try:
        memory.chronicle.delete([n.id for n in erased])
        memory.chronicle.append(events)
        layers.append("chronicle")
    except TheaError as exc:
        log.error("erasing %d nodes from the chronicle failed: %s", len(erased), exc)
        failed["chronicle"] = exc
    if failed:
        raise PartialWriteError(layers, failed)
    log.info("erased %d memories of user %s", len(erased), user_id)
    return Erased(ids=[n.id for n in erased], relations=deleted.relations, events=[e.id for e in events])


def erase_concepts(memory: UniversalMemory, concept_ids: Sequence[str], user_id: str) -> list[str]:
    """Delete one user's concepts with their aliases and relations from the graph, their vector
    points and their log events; the ids deleted."""
    gone = memory.graph.deletion.delete_concepts(concept_ids, user_id) if concept_ids else []
    if gone:
        memory.vectors.delete(collection_for(NodeType.CONCEPT), gone)
        memory.chronicle.delete(gone)
    return gone
