"""``thea insights``: the insight inspector (table sorted by strength, details with lineage)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast

import typer
from rich.table import Table
from rich.tree import Tree

from services.insights import InsightDetail, State, insight_detail, list_insights
from thea.cli.common import console, friendly_errors, get_settings, json_text, safe
from thea.memory.factory import open_memory
from thea.models import KnowledgeCrystal, Node

insights_app = typer.Typer(help="Inspect insights (knowledge crystals).", invoke_without_command=True)


def _date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


@insights_app.callback()
def list_cmd(
    ctx: typer.Context,
    state: str = typer.Option("active", "--state", help="active, archived or all"),
    concept: str = typer.Option(None, "--concept", help="only insights about this concept"),
    min_strength: float = typer.Option(0.0, "--min-strength"),
    user: str = typer.Option(None, "--user"),
    limit: int = typer.Option(50, "--limit"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List insights, strongest first."""
    if ctx.invoked_subcommand is not None:
        return
    if state not in ("active", "archived", "all"):
        raise typer.BadParameter("state must be active, archived or all")
    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            rows = list_insights(
                memory,
                state=cast(State, state),
                concept=concept,
                min_strength=min_strength,
                user_id=user,
                limit=limit,
            )
        finally:
            memory.close()
    if as_json:
        out = [{**r.insight.model_dump(mode="json"), "concepts": r.concepts} for r in rows]
        typer.echo(json_text(out, indent=2))
        return
    table = Table(title=f"insights ({state})")
    table.add_column("strength", justify="right")
    for column in ("insight", "concepts", "state", "created", "id"):
        table.add_column(column, overflow="fold")
    for row in rows:
        ins = row.insight
        table.add_row(
            f"{ins.strength:g}",
            safe(ins.content),
            safe(", ".join(row.concepts)),
            "active" if ins.active else "[dim]archived[/]",
            _date(ins.created_at),
            ins.id[:8],
        )
    console.print(table if rows else "[dim]no insights match[/]")


def _lineage(root: Tree, title: str, ids: list[str], nodes: dict[str, Node]) -> None:
    if not ids:
        root.add(f"{title}: -")
        return
    branch = root.add(f"{title} ({len(ids)})")
    for node_id in ids:
        node = nodes.get(node_id)
        if isinstance(node, KnowledgeCrystal):
            state = "active" if node.active else "[dim]archived[/]"
            branch.add(f"{node_id[:8]}  {node.strength:g}  {state}  {safe(node.content[:120])}")
        else:
            branch.add(node_id[:8])


def _detail_tree(d: InsightDetail, related: Sequence[Node] = ()) -> Tree:
    ins = d.insight
    state = "active" if ins.active else "archived"
    root = Tree(
        f"[bold]insight[/] {ins.id}  strength {ins.strength:g}  {state}  confidence {ins.confidence:g}"
    )
    root.add(safe(ins.content))
    if ins.seed and ins.seed != ins.content:
        root.add(f"seed: {safe(ins.seed)}")
    if ins.tags:
        root.add(f"tags: {safe(', '.join(ins.tags))}")
    root.add(f"concepts: {safe(', '.join(d.concepts) or '-')}")
    if d.relations:
        rel = root.add("relations asserted")
        for r in d.relations:
            valid = "" if r.get("valid_until") is None else " [dim](superseded)[/]"
            rel.add(safe(f"{r['subject']} {r['relation']} {r['object']} ({r['confidence']})") + valid)
    else:
        root.add("relations asserted: -")
    if d.source_impulses:
        src = root.add("source impulses")
        for node in d.source_impulses:
            src.add(f"{node.id[:8]} {safe(node.content[:120])}")
    else:
        root.add("source impulses: -")
    nodes = {n.id: n for n in related}
    _lineage(root, "merged from", d.merged_from, nodes)
    _lineage(root, "merged into", d.merged_into, nodes)
    return root


@insights_app.command("show")
def show(ctx: typer.Context, insight_id: str = typer.Argument(..., help="id or id prefix")) -> None:
    """Full text, concepts, triples, source impulse and merge lineage (both directions)."""
    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            detail = insight_detail(memory, memory.resolve_id(insight_id))
            related = memory.get(detail.merged_from + detail.merged_into)
        finally:
            memory.close()
    console.print(_detail_tree(detail, related))


__all__ = ["State", "insights_app"]
