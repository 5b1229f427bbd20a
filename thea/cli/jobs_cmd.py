"""``thea worker``, ``thea jobs`` and ``thea reflect``: the slow loop from the shell."""

from __future__ import annotations

import asyncio
import json
import logging

import typer
from rich.table import Table

from thea.cli.common import console, err_console, friendly_errors, get_settings, safe
from workers.admin import failed_jobs, queue_counts, retry_failed
from workers.queues import ALL_QUEUES
from workers.recovery import recover_abandoned_jobs

jobs_app = typer.Typer(help="Queued and failed slow-loop jobs.", invoke_without_command=True)
log = logging.getLogger(__name__)


def worker(
    ctx: typer.Context,
    burst: bool = typer.Option(False, "--burst", help="process what is queued now, then exit"),
    queue: list[str] = typer.Option(list(ALL_QUEUES), "--queue", "-q", help="queues to serve"),
) -> None:
    """Run an RQ worker for crystallize / distill / reflect jobs (Ctrl-C stops it).

    Embedded profile: the embedded vector store can be open in one process only, so
    run this when no chat is running (the chat runs its own background worker).
    """
    from thea.runtime import build_runtime
    from workers.worker import make_worker

    settings = get_settings(ctx)
    with friendly_errors():
        rt = build_runtime(settings)
        try:
            rt.install_worker_context()
            rt.start_schedule()
            w = make_worker(rt.jobs.connection, queue)
            console.print(
                f"[bold]thea worker[/] {w.name} on {', '.join(queue)}" + (" (burst)" if burst else "")
            )
            w.work(burst=burst, with_scheduler=True, logging_level="INFO")
        finally:
            rt.close()


@jobs_app.callback()
def jobs(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="machine-readable")) -> None:
    """Queue counts and failed jobs with their reasons."""
    if ctx.invoked_subcommand is not None:
        return
    from thea.runtime.app import queue_connection

    with friendly_errors():
        conn = queue_connection(get_settings(ctx))
        recovered = recover_abandoned_jobs(conn)
        counts, failed = queue_counts(conn), failed_jobs(conn)
    if as_json:
        console.print_json(
            json.dumps(
                {
                    "queues": [c.__dict__ for c in counts],
                    "failed": [f.__dict__ for f in failed],
                    "recovered": recovered,
                }
            )
        )
        return
    if recovered:
        console.print(
            f"[yellow]{len(recovered)} job(s) whose worker had died were handed back to the queue:[/] "
            + ", ".join(recovered)
        )
    table = Table(title="queues")
    for col in ("queue", "queued", "running", "scheduled", "failed", "finished"):
        table.add_column(col, justify="left" if col == "queue" else "right")
    for c in counts:
        table.add_row(
            c.name,
            str(c.queued),
            str(c.started),
            str(c.scheduled),
            f"[red]{c.failed}[/]" if c.failed else "0",
            str(c.finished),
        )
    console.print(table)
    if failed:
        ft = Table(title="failed jobs (retry with `thea jobs retry ID` or `--all`)")
        for col in ("job id", "queue", "ended", "reason"):
            ft.add_column(col)
        for f in failed:
            ft.add_row(safe(f.job_id), safe(f.queue), safe(f.ended_at), f"[red]{safe(f.reason)}[/]")
        console.print(ft)


@jobs_app.command("retry")
def retry(
    ctx: typer.Context,
    job_id: str = typer.Argument(None, help="failed job id or prefix"),
    all_jobs: bool = typer.Option(False, "--all", help="requeue every failed job"),
) -> None:
    """Requeue failed jobs."""
    from thea.errors import InputError
    from thea.runtime.app import queue_connection

    with friendly_errors():
        if job_id is None and not all_jobs:
            raise InputError("give a job id (see `thea jobs`) or --all")
        done = retry_failed(queue_connection(get_settings(ctx)), job_id)
    console.print(f"requeued {len(done)} job(s)" + (": " + safe(", ".join(done)) if done else ""))


def not_finished_message(data: dict[str, object], waited_s: float) -> str:
    """One line for a reflection that did not finish while ``thea reflect`` waited."""
    status = {"queued": "waiting for a worker", "started": "running", "scheduled": "waiting to be retried"}
    state = status.get(str(data.get("status", "")), str(data.get("status", "queued")))
    reason = f" (last attempt: {data['reason']})" if data.get("reason") else ""
    return (
        f"not finished: reflection job {data['queued']} is still {state} after {waited_s:.0f} s{reason}; "
        "it stays queued for the next worker: see `thea jobs`"
    )


def reflect(
    ctx: typer.Context,
    user: str = typer.Option("local", "--user", "-u", help="whose insights to merge"),
    wait: float = typer.Option(None, "--wait", help="seconds to wait for the job (default from settings)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Merge active insights about the same concepts (queued on RQ, run by a worker here)."""
    from thea.runtime import build_runtime

    settings = get_settings(ctx)
    with friendly_errors():
        rt = build_runtime(settings)
        try:
            rt.start_background_worker()
            with console.status("reflecting…"):
                data = asyncio.run(rt.reflect(user, wait_s=wait))
        finally:
            rt.close()
    if "queued" in data:
        err_console.print(
            safe(not_finished_message(data, wait or settings.queue.reflect_wait_s)), soft_wrap=True
        )
        raise typer.Exit(1)
    if as_json:
        console.print_json(json.dumps(data))
        return
    table = Table(title=f"reflection for {safe(user)}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in ("insights", "groups_found", "merged", "skipped", "archived"):
        table.add_row(key.replace("_", " "), str(data.get(key, 0)))
    table.add_row("time", f"{float(str(data.get('duration_ms', 0))):.0f} ms")
    console.print(table)
    for err in data.get("errors", []) or []:
        console.print(f"[yellow]warning:[/] {safe(err)}")
