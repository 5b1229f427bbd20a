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

from thea.memory.universal import UniversalMemory
from thea.models import CONCEPT_RELATIONS, Collection, Concept, Edge, EdgeType, normalize_name

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
    links = memory.graph.run("legacy_concept_links", ids=ids)
    relations = memory.graph.run(
        "legacy_concept_relations", ids=ids, relations=[r.value for r in CONCEPT_RELATIONS]
    )
    aliases: dict[str, list[str]] = defaultdict(list)
    for row in memory.graph.run("legacy_concept_aliases", ids=ids):
        aliases[str(row["cid"])].append(str(row["norm"]))

    need: dict[str, set[str]] = defaultdict(set)  # user -> concept names they get
    users_of: dict[str, set[str]] = defaultdict(set)  # shared concept id -> users
    for row in links:
        need[str(row["user_id"])].add(names[str(row["cid"])])
        users_of[str(row["cid"])].add(str(row["user_id"]))
    for row in relations:
        if row["user_id"]:
            need[str(row["user_id"])].update((str(row["subject"]), str(row["object"])))
    own: dict[tuple[str, str], Concept] = {}
    for user, wanted in need.items():
        made = memory.get_or_create_concepts(sorted(n for n in wanted if normalize_name(n)), user)
        own.update({(user, normalize_name(name)): concept for name, concept in made.items()})
        out.copies += len({c.id for c in made.values()})

    def mine(user: str, name: str) -> Concept | None:
        return own.get((user, normalize_name(name)))

    edges: list[Edge] = []
    for row in links:
        target = mine(str(row["user_id"]), names[str(row["cid"])])
        if target is not None:
            edges.append(_edge(str(row["src"]), target.id, str(row["type"]), row["props"]))
            out.links += 1
    for row in relations:
        user = row["user_id"]
        src = mine(str(user), str(row["subject"])) if user else None
        dst = mine(str(user), str(row["object"])) if user else None
        if src is None or dst is None or src.id == dst.id:
            out.dropped_relations += 1
            continue
        edges.append(_edge(src.id, dst.id, str(row["relation"]), row["props"], user_id=str(user)))
        out.relations += 1
    memory.link(edges)
    for cid, norms in aliases.items():
        for user in users_of.get(cid, ()):
            target = mine(user, names[cid])
            if target is not None:
                memory.graph.add_aliases(target.id, norms, user)

    memory.graph.run("delete_legacy_concepts", ids=ids)
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


__all__ = ["OwnerMigration", "give_owners", "is_shared_concept"]
