"""``thea export``: the golden dataset as JSON lines (streamed from the service, with progress)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from thea.api.export import export_schema
from thea.cli.common import client, console, friendly_errors
from thea.cli.render import safe


def _since(value: str | None) -> int:
    if not value:
        return 0
    try:
        return int(datetime.fromisoformat(value).timestamp() * 1000)
    except ValueError as exc:
        raise typer.BadParameter("use an ISO date, e.g. 2026-11-01 or 2026-11-01T12:00") from exc


def export(
    ctx: typer.Context,
    out: Path = typer.Option(None, "--out", help="output .jsonl file"),
    since: str = typer.Option(None, "--since", help="only cycles from this ISO date/time on"),
    user: str = typer.Option(None, "--user", help="whose cycles (default: the local user)"),
    all_users: bool = typer.Option(False, "--all-users", help="every user's cycles (local service only)"),
    schema: bool = typer.Option(False, "--schema", help="print the JSON Schema of one line and exit"),
) -> None:
    """Export completed cycles (impulse, instinct, plan, recall, answer, feedback), one per line.

    The format is documented in docs/export.md (JSON Schema: ``thea export --schema``).
    """
    if schema:
        typer.echo(json.dumps(export_schema(), indent=2, ensure_ascii=False))
        return
    if out is None:
        raise typer.BadParameter("give --out FILE.jsonl (or --schema)", param_hint="--out")
    since_ms = _since(since)
    api = client(ctx, user=user)
    written = 0
    tmp = out.with_suffix(out.suffix + ".part")
    with friendly_errors():
        stream = api.export(since_ms=since_ms, all_users=all_users)
        columns = (TextColumn("exporting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        try:
            with tmp.open("w", encoding="utf-8") as fh, Progress(*columns, console=console) as progress:
                task = progress.add_task("export", total=stream.total_hint or None)
                for line in stream:
                    fh.write(line + "\n")
                    written += 1
                    progress.advance(task)
                progress.update(task, total=written)
            tmp.replace(out)
        finally:
            stream.close()
            tmp.unlink(missing_ok=True)
    console.print(f"wrote {written} cycles to {safe(str(out))}")
