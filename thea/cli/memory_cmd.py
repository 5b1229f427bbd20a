"""``thea memory ...``: inspect and maintain the memory layers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from thea.cli.common import console, err_console, friendly_errors, get_settings
from thea.memory.consistency import ISSUE_HELP, ConsistencyReport, Issue, ProgressFn, check, repair
from thea.memory.factory import open_for_maintenance, open_memory

memory_app = typer.Typer(help="Inspect and maintain the memory layers.", no_args_is_help=True)

_PHASES = {
    "graph": "graph nodes -> vectors, chronicle",
    "vectors": "vector points -> graph",
    "chronicle": "chronicle events -> graph",
}
_GRACE_HELP = "cycles younger than this may still be running and are not reported as incomplete"


@memory_app.command("stats")
def stats(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Counts per layer and per type."""
    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            data = memory.stats()
        finally:
            memory.close()
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
    ctx: typer.Context,
    fix: bool,
    grace_minutes: float,
    show_progress: bool,
    keep_progress: bool,
) -> ConsistencyReport:
    settings = get_settings(ctx)
    with friendly_errors():
        memory, damage = open_for_maintenance(settings, fix=fix)
        run = repair if fix else check
        try:
            with _progress_bar(show_progress, transient=not keep_progress) as progress:
                return run(memory, grace_ms=int(grace_minutes * 60_000), progress=progress, damage=damage)
        finally:
            memory.close()


def _print_damage(report: ConsistencyReport) -> None:
    for item in report.damaged:
        style = "bold red" if item.moved_to is None else "yellow"
        label = "unreadable" if item.moved_to is None else "rebuilt"
        console.print(f"[{style}]{label}:[/] {item.describe()}", highlight=False, soft_wrap=True)


def _problems(n: int) -> str:
    return f"{n} problem" if n == 1 else f"{n} problems"


def _table(report: ConsistencyReport, *, repaired: bool) -> Table:
    title = (
        f"checked {report.checked_nodes} graph nodes, {report.checked_points} vector points, "
        f"{report.checked_events} chronicle events"
    )
    table = Table(title=title)
    table.add_column("issue")
    table.add_column("meaning")
    table.add_column("found", justify="right")
    if repaired:
        table.add_column("repaired", justify="right")
    else:
        table.add_column("examples (id prefixes)")
    for issue in Issue:
        found = report.found[issue]
        style = "bold red" if found and not repaired else ("green" if not found else "")
        cells = [issue.value, ISSUE_HELP[issue], f"[{style}]{found}[/]" if style else str(found)]
        if repaired:
            cells.append(str(report.repaired[issue]))
        else:
            cells.append(" ".join(i[:8] for i in report.examples[issue][:5]))
        table.add_row(*cells)
    return table


@memory_app.command("check")
def check_cmd(
    ctx: typer.Context,
    grace_minutes: float = typer.Option(15.0, "--grace-minutes", min=0, help=_GRACE_HELP),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Compare the graph with the vector store and the chronicle; exit code 1 if they disagree."""
    report = _scan(ctx, False, grace_minutes, show_progress=not as_json, keep_progress=False)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        _print_damage(report)
        console.print(_table(report, repaired=False))
        if report.marked_incomplete:
            console.print(f"[dim]{report.marked_incomplete} cycles already marked incomplete[/]")
        if report.ok:
            console.print("[green]memory is consistent[/]")
        else:
            found = report.total_found + len(report.unreadable)
            console.print(f"[bold red]{_problems(found)}[/]; run `thea memory repair` to fix them")
    if not report.ok:
        raise typer.Exit(1)


@memory_app.command("repair")
def repair_cmd(
    ctx: typer.Context,
    grace_minutes: float = typer.Option(15.0, "--grace-minutes", min=0, help=_GRACE_HELP),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Re-derive missing vectors and events from the graph, drop orphans, mark incomplete cycles."""
    report = _scan(ctx, True, grace_minutes, show_progress=not as_json, keep_progress=True)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
        return
    _print_damage(report)
    console.print(_table(report, repaired=True))
    if report.total_found == 0 and not report.damaged:
        console.print("[green]nothing to repair: memory is consistent[/]")
    else:
        found, moved = report.total_found + len(report.damaged), len(report.damaged)
        console.print(f"found {_problems(found)}, repaired {report.total_repaired + moved}")


@memory_app.command("optimize")
def optimize_cmd(ctx: typer.Context) -> None:
    """Build the vector search index for everything written so far (after bulk imports).

    The embedded vector store has no background optimiser: until this runs, searches over
    newly written points are exact (fine for thousands of memories, slow for 100k).
    """
    import time

    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            started = time.perf_counter()
            with console.status("building vector indexes…"):
                memory.vectors.optimize()
            console.print(f"vector indexes built in {time.perf_counter() - started:.1f} s")
        finally:
            memory.close()
