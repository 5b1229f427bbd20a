"""JSON shapes the web page consumes."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from services.views.insights import InsightDetail
from thea.models import Concept, KnowledgeCrystal, Node, Report, Subgraph, Task


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
        "verification": insight.verification,
        "support": insight.support,
        "verification_reason": insight.verification_reason,
        "proofs": insight.proofs,
        "valid_until": insight.valid_until,
    }


def _lineage_entry(node_id: str, nodes: dict[str, Node]) -> dict[str, Any]:
    node = nodes.get(node_id)
    if isinstance(node, KnowledgeCrystal):
        return {"id": node_id, "content": node.content, "strength": node.strength, "active": node.active}
    return {"id": node_id, "content": node.content if node else "", "strength": None, "active": None}


def insight_detail_json(detail: InsightDetail, related: list[Node]) -> dict[str, Any]:
    """One insight with its relations, source impulses and merge lineage both ways."""
    nodes = {n.id: n for n in related}
    data = insight_json(detail.insight, detail.concepts)
    data.update(
        relations=[asdict(r) for r in detail.relations],
        merged_from=[_lineage_entry(i, nodes) for i in detail.merged_from],
        merged_into=[_lineage_entry(i, nodes) for i in detail.merged_into],
        evidence=[e.model_dump() for e in detail.insight.evidence],
        claims=[c.model_dump() for c in detail.insight.claims],
        revisions=[r.model_dump() for r in detail.insight.revisions],
        source_impulses=[
            {"id": n.id, "content": n.content, "created_at": n.created_at} for n in detail.source_impulses
        ],
    )
    return data


def node_label(node: Node, n: int = 40) -> str:
    """A short caption for a graph node."""
    if isinstance(node, Concept):
        text = node.name
    elif isinstance(node, Task):
        text = f"task: {node.step}"
    elif isinstance(node, Report):
        text = f"report: {node.step} {node.status.value}"
    else:
        text = " ".join(node.content.split()) or node.type.value
    return text if len(text) <= n else text[: n - 1] + "…"


def graph_json(graph: Subgraph, start_id: str) -> dict[str, Any]:
    """Cytoscape elements: nodes with a short label and type, edges with their type."""
    nodes = [
        {
            "data": {
                "id": n.id,
                "label": node_label(n),
                "type": n.type.value,
                "text": n.content[:500],
                "start": n.id == start_id,
                "archived": getattr(n, "active", True) is False,
                "status": n.status.value if isinstance(n, Report) else None,
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
