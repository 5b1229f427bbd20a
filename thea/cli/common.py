"""Helpers shared by CLI commands: settings, the service client, console, error display.

Every command is a client of the thea service (``thea.client``): it parses its arguments,
calls the API and renders the answer. None opens an engine or loads a model.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from thea.cli.render import json_text as json_text  # re-exported for the commands
from thea.cli.render import safe as safe
from thea.client import Client
from thea.client.errors import AccessDenied, ServiceUnavailable
from thea.config import Settings, load_settings
from thea.errors import BackendUnavailable, ConfigError, InputError, TheaError
from thea.text import printable

console = Console()
err_console = Console(stderr=True)

EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_UNAVAILABLE = 3
EXIT_CANCELLED = 130


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


def print_error(label: str, message: object, hint: str = "") -> None:
    """One line on stderr (never wrapped), user text inside it made visible."""
    err_console.print(f"[bold red]{label}:[/] {safe(message)}{hint}", soft_wrap=True)


def client(ctx: typer.Context, *, user: str | None = None, quiet: bool = False) -> Client:
    """A client of this data directory's service (or of ``THEA_URL``), connected: the local
    service is started first when none runs."""
    settings = get_settings(ctx)
    with friendly_errors():
        made = Client(settings=settings, user=user)

        def waiting() -> None:
            if not quiet:
                err_console.print(
                    f"[dim]starting the thea service for {safe(str(settings.data_dir))} "
                    "(the first start assembles the offline model)...[/]"
                )

        def status(line: str) -> None:
            if not quiet:
                err_console.print(f"[dim]starting the thea service: {safe(line)}...[/]")

        return made.connect(on_wait=waiting, on_status=status)


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn thea errors into one readable line and a non-zero exit code."""
    try:
        yield
    except ConfigError as exc:
        print_error("configuration error", exc)
        raise typer.Exit(EXIT_INPUT) from exc
    except InputError as exc:
        print_error("error", exc)
        raise typer.Exit(EXIT_INPUT) from exc
    except AccessDenied as exc:
        print_error("denied", exc)
        raise typer.Exit(EXIT_INPUT) from exc
    except ServiceUnavailable as exc:
        print_error(
            "unavailable",
            exc,
            "\n[dim]`thea service status` shows the service; its log is in <data dir>/service/[/]",
        )
        raise typer.Exit(EXIT_UNAVAILABLE) from exc
    except BackendUnavailable as exc:
        print_error("unavailable", exc, "\n[dim]run `thea doctor`[/]")
        raise typer.Exit(EXIT_UNAVAILABLE) from exc
    except TheaError as exc:
        print_error("failed", exc)
        raise typer.Exit(EXIT_FAILED) from exc
    except KeyboardInterrupt:
        err_console.print("[yellow]cancelled[/]")
        raise typer.Exit(EXIT_CANCELLED) from None


def slow_loop_line(api: Client) -> str:
    """The line saying what the slow loop still has to do ("" when nothing waits or the service
    cannot tell)."""
    try:
        return api.slow_loop().summary
    except TheaError:
        return ""


def print_slow_loop(api: Client) -> None:
    """That line under a list that may look empty or behind because of it."""
    summary = slow_loop_line(api)
    if summary:
        console.print(f"[dim]{safe(summary)}[/]")
