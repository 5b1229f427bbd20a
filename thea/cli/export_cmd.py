"""``thea export``: the golden dataset as JSON lines (streamed, with progress)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.export import count_impulses, export_schema, iter_export
from thea.cli.common import console, friendly_errors, get_settings, safe
from thea.memory.factory import open_memory


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
    user: str = typer.Option(None, "--user", help="only this user's cycles"),
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
    settings = get_settings(ctx)
    since_ms = _since(since)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            total = count_impulses(memory)
            written = 0
            tmp = out.with_suffix(out.suffix + ".part")
            columns = (TextColumn("exporting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            with tmp.open("w", encoding="utf-8") as fh, Progress(*columns, console=console) as progress:
                task = progress.add_task("export", total=total or None)
                for record in iter_export(memory, since_ms=since_ms, user_id=user):
                    fh.write(record.model_dump_json() + "\n")
                    written += 1
                    progress.advance(task)
            tmp.replace(out)
        finally:
            memory.close()
    console.print(f"wrote {written} cycles to {safe(out)}")
