"""Read insights (knowledge crystals) for inspectors: lists, details, lineage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from thea.errors import NotFoundError
from thea.memory.operations import AssertedRelation, InsightFilter, Verification
from thea.memory.ports import InsightSource
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
    relations: list[AssertedRelation]
    merged_from: list[str] = field(default_factory=list)
    merged_into: list[str] = field(default_factory=list)
    source_impulses: list[Node] = field(default_factory=list)


def list_insights(
    memory: InsightSource,
    *,
    state: State = "active",
    concept: str | None = None,
    min_strength: float = 0.0,
    user_id: str | None = None,
    limit: int = 50,
) -> list[InsightRow]:
    active = {"active": True, "archived": False, "unverified": False, "all": None}[state]
    verifications: dict[State, Verification] = {"unverified": "unverified", "archived": "archived"}
    verification = verifications.get(state)
    flt = InsightFilter(
        active=active,
        verification=verification,
        user_id=user_id,
        min_strength=float(min_strength),
        concept=normalize_name(concept) if concept else None,
        limit=int(limit),
    )
    return [InsightRow(insight=r.insight, concepts=r.concepts) for r in memory.insight_views.matching(flt)]


def insight_detail(memory: InsightSource, insight_id: str) -> InsightDetail:
    lineage = memory.insight_views.lineage(insight_id)
    if lineage is None:
        raise NotFoundError(f"no insight with id {insight_id}")
    node = lineage.insight
    relations = memory.insight_views.relations_by_source(insight_id)
    # a merged insight has no impulse of its own: its sources' impulses are in its evidence
    cited = [e.source_id for e in node.evidence if e.kind == "UserImpulse"]
    impulses = memory.get(list(dict.fromkeys([*lineage.source_impulse_ids, *cited])))
    return InsightDetail(
        insight=node,
        concepts=lineage.concepts,
        relations=relations,
        merged_from=lineage.merged_from,
        merged_into=lineage.merged_into,
        source_impulses=impulses,
    )
