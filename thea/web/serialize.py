"""JSON shapes the web page consumes."""

from __future__ import annotations

from typing import Any

from thea.models import KnowledgeCrystal, Subgraph


def insight_json(insight: KnowledgeCrystal, concepts: list[str]) -> dict[str, Any]:
    return {
        "id": insight.id,
        "content": insight.content,
        "seed": insight.seed,
        "strength": insight.strength,
        "active": insight.active,
        "confidence": insight.confidence,
        "tags": insight.tags,
        "concepts": concepts,
        "created_at": insight.created_at,
    }


def graph_json(graph: Subgraph, start_id: str) -> dict[str, Any]:
    """Cytoscape elements: nodes with a short label and type, edges with their type."""
    nodes = [
        {
            "data": {
                "id": n.id,
                "label": (getattr(n, "name", None) or n.content or n.type.value)[:40],
                "type": n.type.value,
                "text": n.content[:500],
                "start": n.id == start_id,
            }
        }
        for n in graph.nodes
    ]
    ids = {n.id for n in graph.nodes}
    edges = [
        {
            "data": {
                "id": f"{e.src}-{e.type.value}-{e.dst}",
                "source": e.src,
                "target": e.dst,
                "label": e.type.value,
            }
        }
        for e in graph.edges
        if e.src in ids and e.dst in ids
    ]
    return {"nodes": nodes, "edges": edges, "start": start_id}
