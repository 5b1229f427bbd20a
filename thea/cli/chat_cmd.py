"""``thea chat`` (terminal chat) and ``thea ask`` (one-shot, scriptable): clients of the service.

Ctrl-C while an answer streams cancels that answer (the service records the cycle as
cancelled) and returns to the prompt; Ctrl-C at the prompt says how to leave, and a second one
in a row leaves (as does Ctrl-D or !quit). In ``thea ask`` it exits at once with one line.
"""

from __future__ import annotations

import io
import sys
import uuid
from collections.abc import Callable

import typer

from thea.api.models import AskResult, CommandResult
from thea.cli.common import EXIT_CANCELLED, client, console, err_console, friendly_errors, json_text
from thea.cli.paste import bracketed_paste, line_editing, read_message
from thea.cli.render import safe, trace_tree
from thea.client import Client, Command, Done, Token
from thea.client.specs import sendable_text
from thea.errors import InputError, TheaError


def _print_command(result: CommandResult) -> None:
    if result.trace is not None:
        console.print(trace_tree(result.trace))
    else:
        console.print(safe(result.text))


def _print_done(result: AskResult) -> None:
    if result.failed_steps:
        err_console.print(f"[yellow]steps failed: {safe(', '.join(result.failed_steps))} (see !trace)[/]")


def _line(api: Client, text: str, session_id: str) -> bool:
    """One chat line; returns False when the user asked to leave."""
    started = False
    events = api.chat(text, session_id)  # a generator: closing it closes the stream
    try:
        for event in events:
            if isinstance(event, Token):
                if not started:
                    console.print("[bold magenta]thea>[/] ", end="")
                    started = True
                console.print(safe(event.text), end="", soft_wrap=True)
            elif isinstance(event, Done):
                if started:
                    console.print()
                _print_done(event.result)
            elif isinstance(event, Command):
                _print_command(event.result)
                if event.result.quit:
                    return False
    except KeyboardInterrupt:
        events.close()  # closes the stream: the service cancels the cycle
        console.print(("\n" if started else "") + "[yellow](cancelled)[/]")
    return True


def chat(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help="user id (default: settings.user_id)"),
    session: str = typer.Option(None, "--session", help="session id (default: a new one)"),
) -> None:
    """Chat in the terminal. Type !help for commands."""
    api = client(ctx, user=user)
    session_id = session or uuid.uuid4().hex[:12]
    if isinstance(sys.stdin, io.TextIOWrapper):
        # bytes that are not UTF-8 become lone surrogates the line check names, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    with friendly_errors():
        health = api.health()
    console.print(
        f"[bold]thea[/] ready (profile {safe(health.profile)}, service pid {health.pid}). "
        "Type !help for commands, !quit to leave."
    )
    by_readline = line_editing(sys.stdout, sys.stdin)
    with bracketed_paste(sys.stdout, sys.stdin, by_readline=by_readline):  # a multi-line paste is one message
        _loop(api, session_id, _readline_input if by_readline else console.input)
    api.close()


#: what Ctrl-C at the prompt says (a second one in a row leaves)
LEAVE_HINT = "(Ctrl-C again, Ctrl-D or !quit to leave)"


#: the prompt as readline is given it: its colour codes between \001 and \002, so readline knows
#: the prompt's width and redraws a long paste after it, not over it
_READLINE_PROMPT = "\001\x1b[1;36m\002you>\001\x1b[0m\002 "


def _readline_input(prompt: str) -> str:
    """A line read by readline, which draws the prompt itself (``prompt``: rich markup, or ""
    for the lines of a paste that go on)."""
    return input(_READLINE_PROMPT if prompt else "")


def _loop(api: Client, session_id: str, read_line: Callable[[str], str]) -> None:
    warned = False
    while True:
        try:
            text = read_message(read_line, "[bold cyan]you>[/] ")
        except EOFError:
            console.print()
            break
        except KeyboardInterrupt:
            console.print()
            if warned:
                break
            console.print(f"[dim]{LEAVE_HINT}[/]")
            warned = True
            continue
        warned = False
        if not text.strip():
            continue
        try:
            if not _line(api, text, session_id):
                break
        except InputError as exc:
            err_console.print(f"[red]{safe(str(exc))}[/]", soft_wrap=True)
        except TheaError as exc:
            err_console.print(f"[bold red]{safe(str(exc))}[/] (run `thea doctor`)", soft_wrap=True)


def ask(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="the message"),
    user: str = typer.Option(None, "--user"),
    session: str = typer.Option("cli", "--session"),
    as_json: bool = typer.Option(False, "--json", help="print {answer, impulse_id, ...} as JSON"),
) -> None:
    """Ask one question and print the answer (for scripts). Returns when the answer is complete;
    the slow loop (crystallization) runs afterwards in the service."""
    with friendly_errors():
        if not text.strip():
            raise InputError("the message is empty")
        sendable_text(text, "the message")  # before a service is started for it
    api = client(ctx, user=user, quiet=as_json)
    started = False
    events = api.stream(text, session)  # a generator: closing it closes the stream
    with friendly_errors():
        try:
            for event in events:
                if isinstance(event, Token) and not as_json:
                    console.print(safe(event.text), end="", soft_wrap=True)
                    started = True
                elif isinstance(event, Done):
                    result = event.result
                    if as_json:
                        payload = {
                            "answer": result.answer,
                            "impulse_id": result.impulse_id,
                            "response_id": result.response_id,
                            "session_id": result.session_id,
                            "failed_steps": result.failed_steps,
                            "recalled_ids": result.recalled_ids,
                            "llm_calls": result.usage.llm_calls,
                            "tokens_in": result.usage.tokens_in,
                            "tokens_out": result.usage.tokens_out,
                        }
                        typer.echo(json_text(payload))
                    else:
                        if not started:
                            console.print(safe(result.answer), end="")
                        console.print()
                        _print_done(result)
        except KeyboardInterrupt:
            events.close()  # the service cancels the cycle now, not when this process ends
            if started:
                console.print()
            err_console.print("[yellow]cancelled: the answer was stopped[/]")
            raise typer.Exit(EXIT_CANCELLED) from None
        finally:
            api.close()
