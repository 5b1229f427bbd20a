"""``thea insights``: the insight inspector (table sorted by strength, details with lineage)."""

from __future__ import annotations

from datetime import UTC, datetime

import typer
from rich.table import Table
from rich.tree import Tree

from thea.api.models import EvidenceView, InsightDetailView, InsightSummary, LineageEntry
from thea.cli.common import client, console, friendly_errors, json_text, print_slow_loop
from thea.cli.render import safe

insights_app = typer.Typer(help="Inspect insights (knowledge crystals).", invoke_without_command=True)


def _date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


@insights_app.callback()
def list_cmd(
    ctx: typer.Context,
    state: str = typer.Option("active", "--state", help="active, archived, unverified or all"),
    concept: str = typer.Option(None, "--concept", help="only insights about this concept"),
    min_strength: float = typer.Option(0.0, "--min-strength"),
    user: str = typer.Option(None, "--user", help="whose insights (default: the local user)"),
    limit: int = typer.Option(50, "--limit"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List insights, strongest first."""
    if ctx.invoked_subcommand is not None:
        ctx.ensure_object(dict)["user"] = user
        return
    if state not in ("active", "archived", "unverified", "all"):
        raise typer.BadParameter("state must be active, archived, unverified or all")
    api = client(ctx, user=user, quiet=as_json)
    with friendly_errors():
        rows = api.insights(state=state, concept=concept, min_strength=min_strength, limit=limit)  # type: ignore[arg-type]
    if as_json:
        typer.echo(json_text([r.model_dump(mode="json") for r in rows], indent=2))
        return
    table = Table(title=f"insights ({state})")
    table.add_column("strength", justify="right")
    for column in ("insight", "concepts", "state", "created", "id"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            f"{row.strength:g}",
            safe(row.content),
            safe(", ".join(row.concepts)),
            _state(row),
            _date(row.created_at),
            row.id[:8],
        )
    console.print(table if rows else "[dim]no insights match[/]")
    print_slow_loop(api)


def _state(row: InsightSummary) -> str:
    """active, archived (merged), or unverified (its evidence does not support it)."""
    if row.valid_until is not None:
        return "[dim]superseded[/]"
    if row.verification == "unverified":
        return "[yellow]unverified[/]"
    return "active" if row.active else "[dim]archived[/]"


def _lineage(root: Tree, title: str, entries: list[LineageEntry]) -> None:
    if not entries:
        root.add(f"{title}: -")
        return
    branch = root.add(f"{title} ({len(entries)})")
    for entry in entries:
        if entry.strength is None:
            branch.add(entry.id[:8])
            continue
        state = "active" if entry.active else "[dim]archived[/]"
        branch.add(f"{entry.id[:8]}  {entry.strength:g}  {state}  {safe(entry.content[:120])}")


def detail_tree(d: InsightDetailView) -> Tree:
    state = _state(d)
    root = Tree(f"[bold]insight[/] {d.id}  strength {d.strength:g}  {state}  confidence {d.confidence:g}")
    root.add(safe(d.content))
    grounded = f"groundedness: {d.verification}, support {d.support:g}, {d.proofs} proof(s)"
    if d.verification_reason:
        grounded += f" ({safe(d.verification_reason)})"
    root.add(grounded)
    _evidence(root, d)
    _claims(root, d)
    _revisions(root, d)
    if d.seed and d.seed != d.content:
        root.add(f"seed: {safe(d.seed)}")
    if d.tags:
        root.add(f"tags: {safe(', '.join(d.tags))}")
    root.add(f"concepts: {safe(', '.join(d.concepts) or '-')}")
    _relations(root, d)
    _source_impulses(root, d)
    _lineage(root, "merged from", d.merged_from)
    _lineage(root, "merged into", d.merged_into)
    return root


def _quote(e: EvidenceView) -> str:
    return f"{e.source_id[:8]} {safe(e.kind)}: \u201c{safe(e.quote)}\u201d"


def _evidence(root: Tree, d: InsightDetailView) -> None:
    if not d.evidence:
        root.add("evidence: -")
        return
    ev = root.add(f"evidence ({len(d.evidence)})")
    for e in d.evidence:
        ev.add(_quote(e))


def _claims(root: Tree, d: InsightDetailView) -> None:
    if not d.claims:
        return
    branch = root.add(f"claims ({len(d.claims)})")
    for c in d.claims:
        mark = "[green]supported[/]" if c.status == "supported" else "[yellow]unsupported[/]"
        line = branch.add(f"{mark} {c.support:g}  {safe(c.text)}")
        if c.reason:
            line.add(f"why: {safe(c.reason)}")
        for e in c.evidence:
            line.add(_quote(e))


def _revisions(root: Tree, d: InsightDetailView) -> None:
    if not d.revisions:
        return
    history = root.add(f"revisions ({len(d.revisions)})")
    for rev in d.revisions:
        by = ", ".join(i[:8] for i in rev.evidence) or "-"
        history.add(f"{_date(rev.at)} {safe(rev.kind)} by {by}: {safe(rev.reason)}")


def _relations(root: Tree, d: InsightDetailView) -> None:
    if not d.relations:
        root.add("relations asserted: -")
        return
    rel = root.add("relations asserted")
    for r in d.relations:
        valid = "" if r.valid_until is None else " [dim](superseded)[/]"
        rel.add(safe(f"{r.subject} {r.relation} {r.object} ({r.confidence})") + valid)


def _source_impulses(root: Tree, d: InsightDetailView) -> None:
    if not d.source_impulses:
        root.add("source impulses: -")
        return
    src = root.add("source impulses")
    for node in d.source_impulses:
        src.add(f"{node.id[:8]} {safe(node.content[:120])}")


@insights_app.command("show")
def show(ctx: typer.Context, insight_id: str = typer.Argument(..., help="id or id prefix")) -> None:
    """Full text, concepts, triples, source impulse and merge lineage (both directions)."""
    user = (ctx.obj or {}).get("user")
    api = client(ctx, user=user)
    with friendly_errors():
        detail = api.insight(insight_id)
    console.print(detail_tree(detail))
