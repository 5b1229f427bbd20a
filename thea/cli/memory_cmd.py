"""``thea memory ...``: inspect and maintain the memory layers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from thea.cli.common import client, console, err_console, friendly_errors
from thea.cli.render import safe

memory_app = typer.Typer(
    help="Inspect and maintain the memory layers (stores, indexes, repair). "
    "What thea knows about you is `thea memories`.",
    no_args_is_help=True,
)

_PHASES = {
    "graph": "graph nodes -> vectors, chronicle",
    "vectors": "vector points -> graph",
    "chronicle": "chronicle events -> graph",
}
_GRACE_HELP = "cycles younger than this may still be running and are not reported as incomplete"


@memory_app.command("stats")
def stats(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Counts per layer and per type."""
    api = client(ctx, quiet=as_json)
    with friendly_errors():
        data = api.memory_stats().model_dump()
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    table = Table(title="thea memory")
    table.add_column("layer")
    table.add_column("kind")
    table.add_column("count", justify="right")
    for layer, counts in data.items():
        if not counts:
            table.add_row(layer, "(empty)", "0")
        for kind, count in sorted(counts.items()):
            table.add_row(layer, kind, str(count))
    console.print(table)


ProgressFn = Callable[[str, int, int], None]


@contextmanager
def _progress_bar(show: bool, transient: bool) -> Iterator[ProgressFn]:
    """A progress bar per scan phase on stderr (stdout stays clean for --json)."""
    if not show:
        yield lambda phase, done, total: None
        return
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=transient,
    )
    tasks: dict[str, TaskID] = {}

    def update(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(_PHASES.get(phase, phase), total=total)
        bar.update(tasks[phase], completed=done, total=total)

    with bar:
        yield update


def _scan(
    ctx: typer.Context, kind: Literal["check", "repair"], grace_minutes: float, as_json: bool
) -> dict[str, Any]:
    api = client(ctx, quiet=as_json)
    with friendly_errors(), _progress_bar(not as_json, transient=kind == "check") as progress:
        return api.scan(kind, grace_minutes, progress)


def _print_damage(report: dict[str, Any]) -> None:
    for item in report.get("damaged", []):
        style = "bold red" if item.get("moved_to") is None else "yellow"
        label = "unreadable" if item.get("moved_to") is None else "rebuilt"
        console.print(f"[{style}]{label}:[/] {safe(item['description'])}", highlight=False, soft_wrap=True)


def _problems(n: int) -> str:
    return f"{n} problem" if n == 1 else f"{n} problems"


def _table(report: dict[str, Any], *, repaired: bool) -> Table:
    checked = report["checked"]
    title = (
        f"checked {checked['nodes']} graph nodes, {checked['points']} vector points, "
        f"{checked['events']} chronicle events"
    )
    table = Table(title=title)
    table.add_column("issue")
    table.add_column("meaning")
    table.add_column("found", justify="right")
    table.add_column(
        "repaired" if repaired else "examples (id prefixes)", justify="right" if repaired else "left"
    )
    for issue, found in report["found"].items():
        style = "bold red" if found and not repaired else ("green" if not found else "")
        cells = [
            issue,
            report.get("meaning", {}).get(issue, ""),
            f"[{style}]{found}[/]" if style else str(found),
        ]
        if repaired:
            cells.append(str(report["repaired"].get(issue, 0)))
        else:
            cells.append(" ".join(i[:8] for i in report["examples"].get(issue, [])[:5]))
        table.add_row(*cells)
    return table


def _print_pending(report: dict[str, Any]) -> None:
    if report.get("pending_vectors"):
        console.print(
            f"{report['pending_vectors']:,} imported memories wait for their vectors: the service "
            "computes them in the background (they are found by their words meanwhile)"
        )


@memory_app.command("check")
def check_cmd(
    ctx: typer.Context,
    grace_minutes: float = typer.Option(15.0, "--grace-minutes", min=0, help=_GRACE_HELP),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Compare the graph with the vector store and the chronicle; exit code 1 if they disagree."""
    report = _scan(ctx, "check", grace_minutes, as_json)
    unreadable = [d for d in report.get("damaged", []) if d.get("moved_to") is None]
    found = sum(report["found"].values()) + len(unreadable)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _print_damage(report)
        console.print(_table(report, repaired=False))
        if report.get("marked_incomplete"):
            console.print(f"[dim]{report['marked_incomplete']} cycles already marked incomplete[/]")
        _print_pending(report)
        if report["ok"]:
            console.print("[green]memory is consistent[/]")
        else:
            console.print(f"[bold red]{_problems(found)}[/]; run `thea memory repair` to fix them")
    if not report["ok"]:
        raise typer.Exit(1)


@memory_app.command("repair")
def repair_cmd(
    ctx: typer.Context,
    grace_minutes: float = typer.Option(15.0, "--grace-minutes", min=0, help=_GRACE_HELP),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Re-derive missing vectors and events from the graph, drop orphans, mark incomplete cycles."""
    report = _scan(ctx, "repair", grace_minutes, as_json)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    _print_damage(report)
    console.print(_table(report, repaired=True))
    _print_pending(report)
    found, fixed = sum(report["found"].values()), sum(report["repaired"].values())
    if found == 0:
        console.print("[green]nothing to repair: memory is consistent[/]")
    else:
        console.print(f"found {_problems(found)}, repaired {fixed}")


@memory_app.command("optimize")
def optimize_cmd(ctx: typer.Context) -> None:
    """Build the vector search index for everything written so far (after bulk imports).

    The embedded vector store has no background optimiser: until this runs, searches over
    newly written points are exact (fine for thousands of memories, slow for 100k).
    """
    api = client(ctx)
    with friendly_errors(), console.status("building vector indexes…"):
        done = api.optimize()
    console.print(f"vector indexes built in {done.seconds:.1f} s")
