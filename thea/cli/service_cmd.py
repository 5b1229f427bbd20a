"""``thea service start|stop|status|run``: the one service of a data directory."""

from __future__ import annotations

import os
import sys
import time

import typer
from rich.table import Table

from thea.cli.common import (
    EXIT_FAILED,
    client,
    console,
    err_console,
    friendly_errors,
    get_settings,
    slow_loop_line,
)
from thea.cli.render import safe
from thea.client.local import StopOutcome, service_pid, stop_service
from thea.locations import ServicePaths

service_app = typer.Typer(help="The thea service of this data directory (every command is its client).")


@service_app.command("start")
def start(ctx: typer.Context) -> None:
    """Start the service (if it is not running) and say where it listens."""
    settings = get_settings(ctx)
    api = client(ctx)
    with friendly_errors():
        health = api.health()
    console.print(
        f"thea service running (pid {health.pid}) for {safe(str(settings.data_dir))} on "
        f"{safe(str(ServicePaths.of(settings.data_dir).socket))}"
    )


@service_app.command("stop")
def stop(ctx: typer.Context) -> None:
    """Stop the service gracefully (running answers finish first)."""
    settings = get_settings(ctx)
    with friendly_errors():
        outcome = stop_service(settings)
    if outcome is StopOutcome.STOPPED:
        console.print("thea service stopped")
    elif outcome is StopOutcome.NOT_RUNNING:
        console.print("no thea service was running")
    elif outcome is StopOutcome.KILLED:
        err_console.print(
            "[yellow]thea service did not stop within 60 s and was killed[/] (its log: "
            f"{safe(str(ServicePaths.of(settings.data_dir).log_file))})"
        )
        raise typer.Exit(EXIT_FAILED)
    else:
        err_console.print("[bold red]thea service is still running[/]: it did not stop, even when killed")
        raise typer.Exit(EXIT_FAILED)


def _size(n: int) -> str:
    return f"{n / 1_048_576:.0f} MB"


@service_app.command("status")
def status(ctx: typer.Context) -> None:
    """pid, uptime, profile, model, queues, users (exit code 1 when no service runs)."""
    settings = get_settings(ctx)
    if service_pid(settings) is None:
        err_console.print(f"no thea service runs for {safe(str(settings.data_dir))}")
        raise typer.Exit(EXIT_FAILED)
    api = client(ctx)
    with friendly_errors():
        info = api.status()
    table = Table(title="thea service", show_header=False)
    table.add_column("what")
    table.add_column("value", overflow="fold")
    table.add_row("pid", str(info.pid))
    table.add_row("uptime", time.strftime("%H:%M:%S", time.gmtime(info.uptime_s)))
    table.add_row("version", f"{info.version} (API {info.api_version})")
    table.add_row("profile", info.profile)
    table.add_row("data dir", safe(info.data_dir))
    table.add_row("listening", safe(", ".join(info.listening)))
    loaded = "loaded" if info.model.loaded else "not loaded yet"
    table.add_row("model", f"{safe(info.model.name)} ({info.model.provider}, {loaded})")
    table.add_row("memory (RSS)", _size(info.rss_bytes))
    table.add_row("workers", str(info.workers))
    queues = ", ".join(
        f"{q.name.removeprefix('thea-')} {q.queued}+{q.started} running, {q.failed} failed"
        for q in info.queues
    )
    table.add_row("queues", queues)
    slow = slow_loop_line(api)
    if slow:
        table.add_row("slow loop", safe(slow))
    if info.vectors_pending:
        table.add_row(
            "vectors",
            f"{info.vectors_pending:,} imported memories wait for theirs (computed in the background)",
        )
    table.add_row("users", safe(", ".join(info.users) or "-"))
    table.add_row("sessions", str(info.sessions))
    idle = "never" if not info.idle_stop_s else f"after {info.idle_stop_s:.0f} s idle (not while serving TCP)"
    table.add_row("stops", idle)
    console.print(table)


@service_app.command("run")
def run(
    ctx: typer.Context,
    host: str = typer.Option(None, "--host", help="also listen on TCP at this address"),
    port: int = typer.Option(None, "--port"),
) -> None:
    """Run the service in this terminal (Ctrl-C stops it). The server profile's app does this."""
    settings = get_settings(ctx)
    command = [sys.executable, "-m", "thea.service", "run", "--data-dir", str(settings.data_dir)]
    command += ["--profile", settings.profile]
    if host:
        command += ["--host", host]
    if port:
        command += ["--port", str(port)]
    os.execv(sys.executable, command)
