"""``thea doctor``: check every configured backend and say clearly what is wrong; ``--fix``
repairs what a command can repair by itself (the data directory's permissions)."""

from __future__ import annotations

import typer
from rich.table import Table

from thea.cli.common import EXIT_UNAVAILABLE, client, console, err_console, friendly_errors, get_settings
from thea.cli.render import safe
from thea.client.errors import ServiceUnavailable
from thea.config import Settings
from thea.models import HealthStatus
from thea.private_files import loose_entries, tighten

#: how many loose entries the doctor names (the count says how many there are)
_NAMED = 3


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


def permissions(settings: Settings, *, fix: bool) -> HealthStatus:
    """Whether the data directory is the user's only (folders 0700, files 0600); with ``fix``
    it is made so first. Checked by the command itself: it needs no service."""
    root = settings.data_dir
    fixed = 0
    if fix:
        result = tighten(root)
        fixed = len(result.fixed)
        for entry, why in result.failed:
            err_console.print(f"could not repair {safe(entry.describe(root))}: {safe(why)}")
    loose = loose_entries(root)
    if loose:
        named = "; ".join(entry.describe(root) for entry in loose[:_NAMED])
        more = f" and {len(loose) - _NAMED} more" if len(loose) > _NAMED else ""
        hint = "" if fix else ": run `thea doctor --fix`"
        detail = f"{len(loose)} entries other users may read or enter ({named}{more}){hint}"
        return HealthStatus(component="data directory", backend="permissions", ok=False, detail=detail)
    done = f"repaired {fixed} entries; " if fixed else ""
    return HealthStatus(
        component="data directory",
        backend="permissions",
        ok=True,
        detail=f"{done}folders 0700, files 0600 (only this user)",
    )


def doctor(
    ctx: typer.Context,
    fix: bool = typer.Option(False, "--fix", help="repair the data directory's permissions (0700/0600)"),
) -> None:
    """Check every configured backend (through the service) and the data directory's
    permissions, and say what is wrong."""
    settings = get_settings(ctx)
    local = permissions(settings, fix=fix)
    api = client(ctx)
    with friendly_errors():
        try:
            statuses = api.doctor().statuses
        except ServiceUnavailable as exc:
            console.print(render(settings, [local]))
            err_console.print(f"[bold red]FAIL[/] thea service: {safe(str(exc))}")
            raise typer.Exit(EXIT_UNAVAILABLE) from exc
    statuses = [*statuses, local]
    console.print(render(settings, statuses))
    if not all(s.ok for s in statuses):
        raise typer.Exit(1)
