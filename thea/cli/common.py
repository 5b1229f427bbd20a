"""Helpers shared by CLI commands: settings, the service client, console, error display.

Every command is a client of the thea service (``thea.client``): it parses its arguments,
calls the API and renders the answer. None opens an engine or loads a model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console

from thea.cli.render import safe
from thea.client import Client
from thea.client.errors import AccessDenied, ServiceUnavailable
from thea.config import Settings, load_settings
from thea.errors import BackendUnavailable, ConfigError, InputError, TheaError

console = Console()
err_console = Console(stderr=True)

T = TypeVar("T")

EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_UNAVAILABLE = 3
EXIT_CANCELLED = 130


def get_settings(ctx: typer.Context) -> Settings:
    settings = ctx.obj.get("settings") if ctx.obj else None
    if settings is None:
        profile = ctx.obj.get("profile") if ctx.obj else None
        with friendly_errors():
            try:
                settings = load_settings(profile)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ()))
                raise ConfigError(f"invalid setting {where}: {first.get('msg')}") from None
        ctx.ensure_object(dict)["settings"] = settings
    return settings


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


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

        return made.connect(on_wait=waiting)


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn thea errors into one readable line and a non-zero exit code."""
    try:
        yield
    except ConfigError as exc:
        err_console.print(f"[bold red]configuration error:[/] {safe(str(exc))}")
        raise typer.Exit(EXIT_INPUT) from exc
    except InputError as exc:
        err_console.print(f"[bold red]error:[/] {safe(str(exc))}")
        raise typer.Exit(EXIT_INPUT) from exc
    except AccessDenied as exc:
        err_console.print(f"[bold red]denied:[/] {safe(str(exc))}")
        raise typer.Exit(EXIT_INPUT) from exc
    except ServiceUnavailable as exc:
        err_console.print(
            f"[bold red]unavailable:[/] {safe(str(exc))}\n"
            "[dim]`thea service status` shows the service; its log is in <data dir>/service/[/]"
        )
        raise typer.Exit(EXIT_UNAVAILABLE) from exc
    except BackendUnavailable as exc:
        err_console.print(f"[bold red]unavailable:[/] {safe(str(exc))}\n[dim]run `thea doctor`[/]")
        raise typer.Exit(EXIT_UNAVAILABLE) from exc
    except TheaError as exc:
        err_console.print(f"[bold red]failed:[/] {safe(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    except KeyboardInterrupt:
        err_console.print("[yellow]cancelled[/]")
        raise typer.Exit(EXIT_CANCELLED) from None


def run_friendly(fn: Callable[[], T]) -> T:
    with friendly_errors():
        return fn()
