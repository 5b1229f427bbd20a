"""``thea import FILE``: bring conversation history (LoCoMo JSON or JSONL) into a user's memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.history_formats import FORMATS, Format, ImportFormatError, parse_history
from services.importer import import_history
from thea.cli.common import console, err_console, friendly_errors, get_settings
from thea.memory.factory import open_memory


def _day(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d") if ms is not None else "?"


def import_history_file(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="LoCoMo-format .json or a .jsonl of messages"),
    user: str = typer.Option(None, "--user", help="whose memory it goes to (default: settings.user_id)"),
    fmt: str = typer.Option("auto", "--format", help="auto, locomo or jsonl"),
) -> None:
    """Import conversation history with its dates (validated whole before anything is written).

    JSONL: one message per line, {"speaker" or "role", "text" or "content", "time" (ISO 8601
    or epoch), "session" (optional)}. Importing the same file again adds nothing twice.
    """
    settings = get_settings(ctx)
    user_id = user or settings.user_id
    with friendly_errors():
        if fmt not in FORMATS:
            raise ImportFormatError(f"unknown --format {fmt!r} (use {', '.join(FORMATS)})")
        fmt_checked: Format = fmt
        # parse and validate everything before the stores open: a bad file starts nothing
        conversations = parse_history(file, fmt_checked, max_chars=settings.max_impulse_chars)
        memory = open_memory(settings)
        try:
            columns = (TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            with Progress(*columns, console=err_console, transient=True) as progress:
                task = progress.add_task("import", total=None)

                def show(done: int, total: int) -> None:
                    progress.update(task, completed=done, total=total)

                result = import_history(memory, conversations, user_id, progress=show)
        finally:
            memory.close()
    new = result.turns - result.already_present
    console.print(
        f"imported {result.turns} turns of {result.conversations} conversation(s) for user {user_id!r}"
        f" ({new} new, {result.already_present} already there), dated {_day(result.first_ms)}"
        f" to {_day(result.last_ms)}, in {result.seconds:.1f} s"
    )
    if result.undated:
        console.print(f"[yellow]{result.undated} turns had no date and are dated now[/yellow]")
    if result.skipped_empty:
        console.print(f"{result.skipped_empty} empty turns skipped")
