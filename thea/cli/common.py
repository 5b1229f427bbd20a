"""Helpers shared by CLI commands: settings, console, error display."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from thea.config import Settings, load_settings
from thea.errors import BackendUnavailable, ConfigError, InputError, TheaError
from thea.text import printable

console = Console()
err_console = Console(stderr=True)

T = TypeVar("T")


def safe(text: object) -> str:
    """Text from users, memories or errors, ready for ``console.print``: control and bidi
    characters shown visibly (``\\x1b``), rich markup escaped."""
    return escape(printable(str(text)))


def json_text(data: Any, indent: int | None = None) -> str:
    """JSON for the terminal: readable non-ASCII text, but control, bidi and other invisible
    characters written as ``\\uXXXX`` escapes (``json.dumps`` leaves C1 and U+202E raw)."""
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return "".join(_json_escape(ch) if printable(ch) != ch else ch for ch in text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def print_error(label: str, message: object, hint: str = "") -> None:
    """One line on stderr (never wrapped), user text inside it made visible."""
    err_console.print(f"[bold red]{label}:[/] {safe(message)}{hint}", soft_wrap=True)


def get_settings(ctx: typer.Context) -> Settings:
    settings = ctx.obj.get("settings") if ctx.obj else None
    if settings is None:
        profile = ctx.obj.get("profile") if ctx.obj else None
        with friendly_errors():
            settings = load_settings(profile)
        ctx.ensure_object(dict)["settings"] = settings
    return settings


class _SafeFormatter(logging.Formatter):
    """Log lines quote user text: show its control characters instead of sending them."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(_SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=getattr(logging, level.upper(), logging.WARNING), handlers=[handler])


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn thea errors into one readable line and a non-zero exit code."""
    try:
        yield
    except ConfigError as exc:
        print_error("configuration error", exc)
        raise typer.Exit(2) from exc
    except InputError as exc:
        print_error("error", exc)
        raise typer.Exit(2) from exc
    except BackendUnavailable as exc:
        print_error("unavailable", exc, "\n[dim]run `thea doctor` to check every backend[/]")
        raise typer.Exit(3) from exc
    except TheaError as exc:
        print_error("failed", exc)
        raise typer.Exit(1) from exc


def run_friendly(fn: Callable[[], T]) -> T:
    with friendly_errors():
        return fn()
