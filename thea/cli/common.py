"""Helpers shared by CLI commands: settings, console, error display."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import typer
from rich.console import Console

from thea.config import Settings, load_settings
from thea.errors import BackendUnavailable, InputError, TheaError

console = Console()
err_console = Console(stderr=True)

T = TypeVar("T")


def get_settings(ctx: typer.Context) -> Settings:
    settings = ctx.obj.get("settings") if ctx.obj else None
    if settings is None:
        profile = ctx.obj.get("profile") if ctx.obj else None
        settings = load_settings(profile)
        ctx.ensure_object(dict)["settings"] = settings
    return settings


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn thea errors into one readable line and a non-zero exit code."""
    try:
        yield
    except InputError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    except BackendUnavailable as exc:
        err_console.print(
            f"[bold red]unavailable:[/] {exc}\n[dim]run `thea doctor` to check every backend[/]"
        )
        raise typer.Exit(3) from exc
    except TheaError as exc:
        err_console.print(f"[bold red]failed:[/] {exc}")
        raise typer.Exit(1) from exc


def run_friendly(fn: Callable[[], T]) -> T:
    with friendly_errors():
        return fn()
