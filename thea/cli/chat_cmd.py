"""``thea chat`` (terminal chat) and ``thea ask`` (one-shot, scriptable)."""

from __future__ import annotations

import asyncio
import uuid

import typer

from thea.cli.common import console, err_console, friendly_errors, get_settings, json_text, safe
from thea.cli.render import trace_tree
from thea.errors import InputError, TheaError
from thea.runtime import Runtime, build_runtime
from thea.runtime.commands import ChatSession, CommandResult, is_command, run_command
from workers.worker import run_burst


def _print_result(result: CommandResult) -> None:
    if result.trace is not None:
        console.print(trace_tree(result.trace))
    else:
        console.print(safe(result.text))


async def _turn(rt: Runtime, chat: ChatSession, text: str, stream: bool) -> None:
    def sink(piece: str) -> None:
        console.print(safe(piece), end="", soft_wrap=True)

    result = await rt.orchestrator.handle_impulse(
        text, chat.user_id, chat.session_id, on_token=sink if stream else None
    )
    if stream:
        console.print()
    else:
        console.print(safe(result.answer))
    if result.failed_steps:
        err_console.print(f"[yellow]steps failed: {', '.join(result.failed_steps)} (see !trace)[/]")
    chat.last_impulse_id = result.impulse_id
    chat.last_response_id = result.response_id


def chat(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help="user id (default: settings.user_id)"),
    session: str = typer.Option(None, "--session", help="session id (default: a new one)"),
    worker: bool = typer.Option(
        True, "--worker/--no-worker", help="run the reflection worker in the background"
    ),
) -> None:
    """Chat in the terminal. Type !help for commands."""
    settings = get_settings(ctx)
    with friendly_errors():
        console.print("[dim]thea is waking up (first start assembles the offline model)...[/]")
        rt = build_runtime(settings)
    chat_state = ChatSession(user_id=user or settings.user_id, session_id=session or uuid.uuid4().hex[:12])
    try:
        if worker:
            rt.start_background_worker()
        console.print(
            f"[bold]thea[/] ready (profile {settings.profile}). Type !help for commands, !quit to leave."
        )
        with asyncio.Runner() as runner:
            while True:
                try:
                    text = console.input("[bold cyan]you>[/] ")
                except (EOFError, KeyboardInterrupt):
                    console.print()
                    break
                if not text.strip():
                    continue
                try:
                    if is_command(text):
                        result = runner.run(run_command(rt, chat_state, text))
                        _print_result(result)
                        if result.quit:
                            break
                    else:
                        console.print("[bold magenta]thea>[/] ", end="")
                        runner.run(_turn(rt, chat_state, text, stream=True))
                except InputError as exc:
                    err_console.print(f"[red]{safe(exc)}[/]", soft_wrap=True)
                except TheaError as exc:
                    err_console.print(f"[bold red]{safe(exc)}[/] (run `thea doctor`)", soft_wrap=True)
    finally:
        rt.close()


def ask(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="the message"),
    user: str = typer.Option(None, "--user"),
    session: str = typer.Option("cli", "--session"),
    as_json: bool = typer.Option(False, "--json", help="print {answer, impulse_id, ...} as JSON"),
    process_jobs: bool = typer.Option(
        None,
        "--process-jobs/--no-process-jobs",
        help="run queued reflection jobs before exiting (embedded default)",
    ),
) -> None:
    """Ask one question and print the answer (for scripts)."""
    settings = get_settings(ctx)
    with friendly_errors():
        rt = build_runtime(settings)
        try:
            result = asyncio.run(rt.orchestrator.handle_impulse(text, user or settings.user_id, session))
            if as_json:
                payload = {
                    "answer": result.answer,
                    "impulse_id": result.impulse_id,
                    "response_id": result.response_id,
                    "failed_steps": result.failed_steps,
                    "recalled_ids": result.recalled_ids,
                    "llm_calls": result.usage.calls,
                    "tokens_in": result.usage.tokens_in,
                    "tokens_out": result.usage.tokens_out,
                }
                typer.echo(json_text(payload))
            else:
                console.print(safe(result.answer))
            run_jobs = settings.embedded_queue if process_jobs is None else process_jobs
            if run_jobs:
                rt.install_worker_context()
                run_burst(rt.jobs.connection)
        finally:
            rt.close()
