"""Read insights (knowledge crystals) for inspectors: lists, details, lineage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from thea.errors import NotFoundError
from thea.memory.universal import UniversalMemory
from thea.models import KnowledgeCrystal, Node, normalize_name

#: ``archived``: merged into another insight; ``unverified``: its evidence does not support it
State = Literal["active", "archived", "unverified", "all"]


@dataclass
class InsightRow:
    insight: KnowledgeCrystal
    concepts: list[str]


@dataclass
class InsightDetail:
    insight: KnowledgeCrystal
    concepts: list[str]
    relations: list[dict[str, object]]
    merged_from: list[str] = field(default_factory=list)
    merged_into: list[str] = field(default_factory=list)
    source_impulses: list[Node] = field(default_factory=list)


def list_insights(
    memory: UniversalMemory,
    *,
    state: State = "active",
    concept: str | None = None,
    min_strength: float = 0.0,
    user_id: str | None = None,
    limit: int = 50,
) -> list[InsightRow]:
    active = {"active": True, "archived": False, "unverified": False, "all": None}[state]
    verification = {"unverified": "unverified", "archived": "archived"}.get(state)
    rows = memory.graph.run(
        "insights_list",
        active=active,
        verification=verification,
        user_id=user_id,
        min_strength=float(min_strength),
        concept=normalize_name(concept) if concept else None,
        limit=int(limit),
    )
    out = []
    for row in rows:
        node = Node.from_props(row["props"])
        if isinstance(node, KnowledgeCrystal):
            out.append(InsightRow(insight=node, concepts=sorted(c for c in row["concepts"] if c)))
    return out


def insight_detail(memory: UniversalMemory, insight_id: str) -> InsightDetail:
    rows = memory.graph.run("insight_lineage", id=insight_id)
    if not rows or rows[0]["props"] is None:
        raise NotFoundError(f"no insight with id {insight_id}")
    row = rows[0]
    node = Node.from_props(row["props"])
    if not isinstance(node, KnowledgeCrystal):
        raise NotFoundError(f"{insight_id} is not an insight")
    relations = memory.graph.run("relations_by_source", source=insight_id)
    # a merged insight has no impulse of its own: its sources' impulses are in its evidence
    cited = [e.source_id for e in node.evidence if e.kind == "UserImpulse"]
    impulses = memory.get(list(dict.fromkeys([*(i for i in row["source_impulses"] if i), *cited])))
    return InsightDetail(
        insight=node,
        concepts=sorted(c for c in row["concepts"] if c),
        relations=relations,
        merged_from=[i for i in row["merged_from"] if i],
        merged_into=[i for i in row["merged_into"] if i],
        source_impulses=impulses,
    )
