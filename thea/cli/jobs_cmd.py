"""``thea jobs``, ``thea reflect`` and ``thea worker``: the slow loop from the shell."""

from __future__ import annotations

import os
import sys

import typer
from rich.table import Table

from thea.cli.common import (
    EXIT_FAILED,
    client,
    console,
    err_console,
    friendly_errors,
    get_settings,
    json_text,
)
from thea.cli.render import safe

jobs_app = typer.Typer(help="Queued and failed slow-loop jobs.", invoke_without_command=True)


def worker(
    ctx: typer.Context,
    burst: bool = typer.Option(False, "--burst", help="process what is queued now, then exit"),
) -> None:
    """Run a slow-loop worker process (server profile: scale out with more of these).

    In the embedded profile the thea service runs the workers itself.
    """
    settings = get_settings(ctx)
    if settings.embedded_queue:
        console.print(
            "the thea service runs the slow loop for this data directory (`thea jobs` shows it); "
            "`thea worker` is for the server profile"
        )
        return
    command = [sys.executable, "-m", "thea.service", "worker", "--profile", settings.profile]
    os.execv(sys.executable, [*command, *(["--burst"] if burst else [])])


@jobs_app.callback()
def jobs(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="machine-readable")) -> None:
    """Queue counts and failed jobs with their reasons."""
    if ctx.invoked_subcommand is not None:
        return
    api = client(ctx, quiet=as_json)
    with friendly_errors():
        view = api.jobs()
    if as_json:
        typer.echo(json_text(view.model_dump(mode="json"), indent=2))
        return
    if view.recovered:
        console.print(
            f"[yellow]{len(view.recovered)} job(s) whose worker had died were handed back to the queue:[/] "
            + ", ".join(view.recovered)
        )
    table = Table(title="queues")
    for col in ("queue", "queued", "running", "scheduled", "failed", "finished"):
        table.add_column(col, justify="left" if col == "queue" else "right")
    for c in view.queues:
        table.add_row(
            c.name,
            str(c.queued),
            str(c.started),
            str(c.scheduled),
            f"[red]{c.failed}[/]" if c.failed else "0",
            str(c.finished),
        )
    console.print(table)
    if view.failed:
        ft = Table(title="failed jobs (retry with `thea jobs retry ID` or `--all`)")
        for col in ("job id", "queue", "ended", "reason"):
            ft.add_column(col)
        for f in view.failed:
            ft.add_row(f.job_id, f.queue, f.ended_at, f"[red]{safe(f.reason)}[/]")
        console.print(ft)


@jobs_app.command("retry")
def retry(
    ctx: typer.Context,
    job_id: str = typer.Argument(None, help="failed job id or prefix"),
    all_jobs: bool = typer.Option(False, "--all", help="requeue every failed job"),
) -> None:
    """Requeue failed jobs."""
    api = client(ctx)
    with friendly_errors():
        done = api.retry_jobs(job_id, all_jobs).retried
    console.print(f"requeued {len(done)} job(s)" + (": " + ", ".join(done) if done else ""))


def reflect(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", "-u", help="whose insights to merge (default: the local user)"),
    wait: float = typer.Option(None, "--wait", help="seconds to wait for the job (default from settings)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Merge active insights about the same concepts (a job the service's workers run)."""
    api = client(ctx, user=user, quiet=as_json)
    with friendly_errors(), console.status("reflecting…"):
        result = api.reflect(wait)
    if as_json:
        typer.echo(json_text(result.model_dump(mode="json")))
    if result.status == "queued":
        err_console.print(safe(result.summary), soft_wrap=True)
        raise typer.Exit(EXIT_FAILED)
    if as_json:
        return
    table = Table(title=f"reflection for {safe(result.user_id or '-')}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in ("insights", "groups_found", "merged", "skipped", "archived"):
        table.add_row(key.replace("_", " "), str(getattr(result, key)))
    table.add_row("time", f"{result.duration_ms:.0f} ms")
    console.print(table)
    for err in result.errors:
        console.print(f"[yellow]warning:[/] {safe(err)}")
