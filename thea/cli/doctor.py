"""``thea doctor``: check every configured backend and say clearly what is wrong."""

from __future__ import annotations

import typer
from rich.table import Table

from thea.cli.common import EXIT_UNAVAILABLE, client, console, err_console, friendly_errors, get_settings
from thea.cli.render import safe
from thea.client.errors import ServiceUnavailable
from thea.config import Settings
from thea.models import HealthStatus


def render(settings: Settings, statuses: list[HealthStatus]) -> Table:
    table = Table(title=f"thea doctor: profile {settings.profile}, data in {safe(str(settings.data_dir))}")
    table.add_column("component")
    table.add_column("backend")
    table.add_column("status")
    table.add_column("latency", justify="right")
    table.add_column("detail", overflow="fold")
    for s in statuses:
        mark = "[green]ok[/]" if s.ok else "[bold red]FAIL[/]"
        latency = f"{s.latency_ms:.1f} ms" if s.latency_ms is not None else ""
        table.add_row(s.component, s.backend, mark, latency, safe(s.detail))
    return table


def doctor(ctx: typer.Context) -> None:
    """Check every configured backend (through the service) and say what is wrong."""
    settings = get_settings(ctx)
    try:
        api = client(ctx)
    except typer.Exit:
        raise
    with friendly_errors():
        try:
            statuses = api.doctor().statuses
        except ServiceUnavailable as exc:
            err_console.print(f"[bold red]FAIL[/] thea service: {safe(str(exc))}")
            raise typer.Exit(EXIT_UNAVAILABLE) from exc
    console.print(render(settings, statuses))
    if not all(s.ok for s in statuses):
        raise typer.Exit(1)
