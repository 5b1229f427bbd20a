"""Give every user their own copy of the shared concepts of an older data directory.

Concepts are per user (the id derives from the user and the normalised name; ``user_id`` is set
on the Concept, its ConceptAlias nodes and its relations). Data directories written before that
hold *shared* concepts (``user_id`` null) that several users' memories link to. Every read
ignores them (each concept query takes the user and matches ``user_id``), so they leak nothing;
``thea memory repair`` migrates them with :func:`give_owners`:

* for every user whose memories link to a shared concept, that user's own concept of the same
  name is created and the links (CONTAINS_CONCEPT, INSIGHT_FROM_CONCEPT) are moved onto it;
* a typed relation between shared concepts goes to the user of the memory that asserted it
  (its ``source``, a crystal or a fact); a relation whose source is gone is dropped;
* aliases are copied to every user of the concept;
* the shared concept (graph node, aliases, vector points, chronicle event) is then deleted.

Idempotent: a second run finds no shared concept.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from thea.memory.operations import LegacyLink, LegacyRelation
from thea.memory.universal import UniversalMemory
from thea.models import Collection, Concept, Edge, EdgeType, normalize_name

log = logging.getLogger(__name__)

_EDGE_FIELDS = frozenset(Edge.model_fields) - {"src", "dst", "type"}


def is_shared_concept(props: dict[str, Any]) -> bool:
    """A concept node without an owner (written before concepts were per user)."""
    return props.get("type") == "Concept" and not props.get("user_id")


@dataclass
class OwnerMigration:
    shared: int = 0
    copies: int = 0
    links: int = 0
    relations: int = 0
    dropped_relations: int = 0


def _edge(src: str, dst: str, rel: str, props: dict[str, Any], user_id: str | None = None) -> Edge:
    data = {k: v for k, v in (props or {}).items() if k in _EDGE_FIELDS}
    if user_id is not None:
        data["user_id"] = user_id
    return Edge(src=src, dst=dst, type=EdgeType.parse(rel), **data)


def give_owners(memory: UniversalMemory, shared: Sequence[dict[str, Any]]) -> OwnerMigration:
    """Replace these shared concepts (their graph properties) by per-user copies (see module doc)."""
    out = OwnerMigration(shared=len(shared))
    if not shared:
        return out
    ids = [str(p["id"]) for p in shared]
    names = {str(p["id"]): str(p.get("name") or p.get("content") or "") for p in shared}
    links = memory.admin.legacy_links(ids)
    relations = memory.admin.legacy_relations(ids)
    aliases = memory.admin.legacy_aliases(ids)

    copies = _Copies.made(memory, links, relations, names)
    out.copies = copies.count
    memory.link(_link_edges(copies, links, names, out) + _relation_edges(copies, relations, out))
    for cid, norms in aliases.items():
        for user in copies.users_of.get(cid, ()):
            target = copies.mine(user, names[cid])
            if target is not None:
                memory.graph.add_aliases(target.id, norms, user)

    memory.admin.delete_legacy_concepts(ids)
    memory.vectors.delete(Collection.CONCEPTS, ids)
    memory.chronicle.delete(ids)
    log.info(
        "gave owners to %d shared concepts: %d copies, %d links, %d relations (%d dropped)",
        out.shared,
        out.copies,
        out.links,
        out.relations,
        out.dropped_relations,
    )
    return out


@dataclass
class _Copies:
    """Each user's own copies of the shared concepts their memories link to or their relations
    name, by (user, normalised name); and the users of each shared concept."""

    own: dict[tuple[str, str], Concept]
    users_of: dict[str, set[str]]
    count: int

    @classmethod
    def made(
        cls,
        memory: UniversalMemory,
        links: Sequence[LegacyLink],
        relations: Sequence[LegacyRelation],
        names: dict[str, str],
    ) -> _Copies:
        need: dict[str, set[str]] = defaultdict(set)  # user -> concept names they get
        users_of: dict[str, set[str]] = defaultdict(set)  # shared concept id -> users
        for link in links:
            need[link.user_id].add(names[link.concept_id])
            users_of[link.concept_id].add(link.user_id)
        for rel in relations:
            if rel.user_id:
                need[rel.user_id].update((rel.subject, rel.object))
        own: dict[tuple[str, str], Concept] = {}
        count = 0
        for user, wanted in need.items():
            made = memory.get_or_create_concepts(sorted(n for n in wanted if normalize_name(n)), user)
            own.update({(user, normalize_name(name)): concept for name, concept in made.items()})
            count += len({c.id for c in made.values()})
        return cls(own, users_of, count)

    def mine(self, user: str, name: str) -> Concept | None:
        return self.own.get((user, normalize_name(name)))


def _link_edges(
    copies: _Copies, links: Sequence[LegacyLink], names: dict[str, str], out: OwnerMigration
) -> list[Edge]:
    """Each memory's link to a shared concept, now to its user's copy."""
    edges: list[Edge] = []
    for link in links:
        target = copies.mine(link.user_id, names[link.concept_id])
        if target is not None:
            edges.append(_edge(link.src, target.id, link.type, link.props))
            out.links += 1
    return edges


def _relation_edges(copies: _Copies, relations: Sequence[LegacyRelation], out: OwnerMigration) -> list[Edge]:
    """Each relation a user's memory asserted, between that user's copies (a relation of no
    one's, or between one concept and itself, is dropped)."""
    edges: list[Edge] = []
    for rel in relations:
        owner = rel.user_id
        src = copies.mine(owner, rel.subject) if owner else None
        dst = copies.mine(owner, rel.object) if owner else None
        if owner is None or src is None or dst is None or src.id == dst.id:
            out.dropped_relations += 1
            continue
        edges.append(_edge(src.id, dst.id, rel.relation, rel.props, user_id=owner))
        out.relations += 1
    return edges


__all__ = ["OwnerMigration", "give_owners", "is_shared_concept"]
