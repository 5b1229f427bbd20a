"""Seeded memories for tests and screenshots: an insight lineage worth looking at."""

from __future__ import annotations

from dataclasses import dataclass

from thea.memory.universal import UniversalMemory
from thea.models import Concept, Edge, EdgeType, KnowledgeCrystal, UserImpulse


@dataclass
class SeededInsights:
    concept: Concept
    first: KnowledgeCrystal
    second: KnowledgeCrystal
    merged: KnowledgeCrystal
    weak: KnowledgeCrystal


def seed_insights(memory: UniversalMemory, *, user_id: str = "ana", concept: str = "Redis") -> SeededInsights:
    """Two archived insights merged into a stronger active one, plus a weak unrelated one."""
    topic = memory.get_or_create_concepts([concept], user_id)[concept]
    other = memory.get_or_create_concepts(["Gardening"], user_id)["Gardening"]
    source = UserImpulse(
        content=f"I use {concept} streams for my job queue.", user_id=user_id, session_id="s0"
    )
    source.correlation_id = source.id
    first = KnowledgeCrystal(
        content=f"The user builds job queues on {concept} streams.",
        seed="job queues",
        strength=1.0,
        active=False,
        confidence=0.7,
        user_id=user_id,
        source_impulse_id=source.id,
    )
    second = KnowledgeCrystal(
        content=f"The user relies on {concept} consumer groups.",
        seed="consumer groups",
        strength=1.5,
        active=False,
        confidence=0.6,
        user_id=user_id,
    )
    merged = KnowledgeCrystal(
        content=f"The user runs their job queues on {concept} streams with consumer groups.",
        seed="queues",
        strength=2.5,
        active=True,
        confidence=0.8,
        tags=["work"],
        user_id=user_id,
    )
    weak = KnowledgeCrystal(
        content="The user mentioned tomatoes once.",
        strength=0.3,
        active=True,
        user_id=user_id,
    )
    links = [
        Edge(src=first.id, dst=source.id, type=EdgeType.DERIVED_FROM),
        Edge(src=merged.id, dst=first.id, type=EdgeType.MERGED_FROM),
        Edge(src=merged.id, dst=second.id, type=EdgeType.MERGED_FROM),
        Edge(src=weak.id, dst=other.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
        *(Edge(src=k.id, dst=topic.id, type=EdgeType.INSIGHT_FROM_CONCEPT) for k in (first, second, merged)),
    ]
    memory.record([source, first, second, merged, weak], links)
    return SeededInsights(concept=topic, first=first, second=second, merged=merged, weak=weak)
