"""``thea import FILE``: bring conversation history (LoCoMo JSON or JSONL) into a user's memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import typer

from thea.api.models import MAX_IMPORT_BYTES
from thea.cli.common import (
    EXIT_FAILED,
    client,
    console,
    err_console,
    friendly_errors,
    print_error,
    safe,
)
from thea.errors import ImportInterrupted, InputError

FORMATS = ("auto", "locomo", "jsonl")


def _day(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d") if ms is not None else "?"


def read_history_file(path: Path) -> str:
    """The file's text, or one line saying why it cannot be imported."""
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise InputError(f"{path}: is a directory, not a file")
        if size > MAX_IMPORT_BYTES:
            raise InputError(
                f"{path}: {size:,} bytes; one import takes at most {MAX_IMPORT_BYTES:,} (split the file)"
            )
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path.name}: not UTF-8 text (expected JSON or JSONL)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None


def import_history_file(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="LoCoMo-format .json or a .jsonl of messages"),
    user: str = typer.Option(None, "--user", help="whose memory it goes to (default: settings.user_id)"),
    fmt: str = typer.Option("auto", "--format", help="auto, locomo or jsonl"),
) -> None:
    """Import conversation history with its dates (validated whole before anything is written).

    JSONL: one message per line, {"speaker" or "role", "text" or "content", "time" (ISO 8601
    or epoch), "session" (optional)}. Importing the same file again adds nothing twice; an
    import that stopped (the service stopped, Ctrl-C) continues where it stopped.
    """
    with friendly_errors():
        if fmt not in FORMATS:
            raise InputError(f"unknown --format {fmt!r} (use {', '.join(FORMATS)})")
        text = read_history_file(file)  # a missing or unreadable file starts nothing
    api = client(ctx, user=user)
    with friendly_errors(), err_console.status("importing: reading the file...") as status:
        shown = [-1]  # the last tenth printed when stderr is no terminal (a log, a pipe)

        def progress(done: int, total: int) -> None:
            line = f"importing: {done:,} / {total:,} turns"
            status.update(line)
            tenth = done * 10 // max(total, 1)
            if not err_console.is_terminal and tenth > shown[0]:
                shown[0] = tenth
                err_console.print(line)

        try:
            result = api.import_history(text, fmt, file.name, progress=progress)
        except ImportInterrupted as exc:
            print_error("stopped", exc)
            raise typer.Exit(EXIT_FAILED) from exc
        finally:
            api.close()
    new = result.turns - result.already_present
    console.print(
        f"imported {result.turns} turns of {result.conversations} conversation(s)"
        f" for user {safe(repr(result.user_id))}"
        f" ({new} new, {result.already_present} already there), dated {_day(result.first_ms)}"
        f" to {_day(result.last_ms)}, in {result.seconds:.1f} s"
    )
    if result.vectors_pending:
        console.print(
            f"{result.vectors_pending:,} of them are found by their words now; the service computes their"
            " vectors in the background (`thea service status` shows how many still wait)"
        )
    if result.undated:
        console.print(f"[yellow]{result.undated} turns had no date and are dated now[/yellow]")
    if result.documents:
        console.print(
            f"{result.documents} message(s) longer than the turn limit stored as documents of chunks"
        )
    if result.skipped_empty:
        console.print(f"{result.skipped_empty} empty turns skipped")
