"""``thea memories``: what thea knows about you, and your hand on it: list (grouped by subject,
with a summary), show one fact, correct, outdate or forget it. Ids accept a unique prefix."""

from __future__ import annotations

from datetime import UTC, datetime

import typer
from pydantic import BaseModel
from rich.table import Table
from rich.tree import Tree

from thea.api.models import FactEditResult, FactOfRecordView, FactsOfRecordView
from thea.cli.common import client, console, friendly_errors, json_text, print_slow_loop
from thea.cli.render import safe
from thea.client import Client

memories_app = typer.Typer(
    help="What thea knows about you: list, show, correct, outdate or forget a fact.",
    invoke_without_command=True,
)

USER_HELP = "whose memories (default: the local user)"


def _date(ms: int | None) -> str:
    return "-" if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def _api(ctx: typer.Context, user: str | None, quiet: bool) -> Client:
    chosen = user or (ctx.obj or {}).get("user")
    return client(ctx, user=chosen, quiet=quiet)


def _print_json(value: BaseModel) -> None:
    typer.echo(json_text(value.model_dump(mode="json"), indent=2))


def render_list(view: FactsOfRecordView) -> None:
    console.print(
        f"[bold]What thea knows about you[/]  ({view.count} current fact{'s' if view.count != 1 else ''})"
    )
    console.print(safe(view.summary))
    for group in view.subjects:
        table = Table(title=safe(group.name), title_justify="left")
        for column in ("fact", "since", "from", "earlier values", "id"):
            table.add_column(column, overflow="fold")
        for fact in group.facts:
            earlier = "; ".join(f"{e.value or e.text} (until {_date(e.until)})" for e in fact.history)
            table.add_row(
                safe(fact.text),
                f"from {_date(fact.since)} (planned)" if fact.planned else _date(fact.since),
                safe(fact.source.label),
                safe(earlier) or "-",
                fact.id[:8],
            )
        console.print(table)


def detail_tree(fact: FactOfRecordView) -> Tree:
    state = "current" if fact.current else f"[dim]no longer holds since {_date(fact.until)}[/]"
    root = Tree(f"[bold]fact[/] {fact.id}  {safe(fact.subject)}  {state}")
    root.add(safe(fact.text))
    root.add(f"from {_date(fact.since)} (planned)" if fact.planned else f"since {_date(fact.since)}")
    root.add(f"from: {safe(fact.source.label)}")
    if fact.attribute or fact.value:
        root.add(f"attribute: {safe(fact.attribute)}  value: {safe(fact.value)}  ({safe(fact.category)})")
    if fact.superseded_by:
        root.add(f"replaced by {fact.superseded_by[:8]}")
    if fact.history:
        branch = root.add(f"earlier values ({len(fact.history)})")
        for e in fact.history:
            line = branch.add(f"{e.id[:8]}  {safe(e.text)}  {_date(e.since)} - {_date(e.until)}")
            line.add(f"from: {safe(e.source.label)}")
    else:
        root.add("earlier values: -")
    return root


def _done(result: FactEditResult, as_json: bool) -> None:
    if as_json:
        _print_json(result)
    else:
        console.print(safe(result.summary))


@memories_app.callback()
def list_cmd(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help=USER_HELP),
    history: bool = typer.Option(True, "--history/--no-history", help="each fact's earlier values"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List what thea knows about you, grouped by subject, with a short summary."""
    if ctx.invoked_subcommand is not None:
        ctx.ensure_object(dict)["user"] = user
        ctx.obj["history"], ctx.obj["json"] = history, as_json
        return
    _list(ctx, user, history, as_json)


@memories_app.command("list")
def list_named(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help=USER_HELP),
    history: bool = typer.Option(True, "--history/--no-history", help="each fact's earlier values"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """The same as ``thea memories``: what thea knows about you, grouped by subject."""
    given = ctx.obj or {}
    _list(ctx, user, history and given.get("history", True), as_json or given.get("json", False))


def _list(ctx: typer.Context, user: str | None, history: bool, as_json: bool) -> None:
    api = _api(ctx, user, as_json)
    with friendly_errors():
        view = api.memories(include_history=history)
    if as_json:
        _print_json(view)
    else:
        render_list(view)
        print_slow_loop(api)


@memories_app.command("show")
def show(
    ctx: typer.Context,
    fact_id: str = typer.Argument(..., help="id or id prefix"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """One fact: since when, the message it came from, its earlier values."""
    api = _api(ctx, None, as_json)
    with friendly_errors():
        fact = api.memory(fact_id)
    if as_json:
        _print_json(fact)
    else:
        console.print(detail_tree(fact))


@memories_app.command("correct")
def correct(
    ctx: typer.Context,
    fact_id: str = typer.Argument(..., help="id or id prefix"),
    text: str = typer.Argument(..., help='what is true instead, e.g. "I live in York."'),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Correct a fact: the correction replaces it (the old value stays in history)."""
    api = _api(ctx, None, as_json)
    with friendly_errors():
        result = api.correct_memory(fact_id, text)
    _done(result, as_json)


@memories_app.command("outdate")
def outdate(
    ctx: typer.Context,
    fact_id: str = typer.Argument(..., help="id or id prefix"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Mark a fact outdated: it no longer holds (kept in history)."""
    api = _api(ctx, None, as_json)
    with friendly_errors():
        result = api.outdate_memory(fact_id)
    _done(result, as_json)


@memories_app.command("forget")
def forget(
    ctx: typer.Context,
    fact_id: str | None = typer.Argument(None, help="id or id prefix of one fact"),
    about: str | None = typer.Option(None, "--about", help="forget everything about this subject"),
    conversation: str | None = typer.Option(None, "--conversation", help="forget this conversation (its id)"),
    everything: bool = typer.Option(False, "--everything", help="delete everything thea has of you"),
    yes: bool = typer.Option(False, "--yes", help="confirm --everything"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Forget for good: one fact, everything about a subject, a conversation, or everything.
    The words go from the messages, answers, traces, insights and files on disk too."""
    chosen = [x for x in (fact_id, about, conversation, everything or None) if x]
    if len(chosen) != 1:
        raise typer.BadParameter("give one of: a fact id, --about WORDS, --conversation ID, --everything")
    if everything and not yes:
        raise typer.BadParameter("--everything deletes all thea has of you: add --yes to confirm")
    api = _api(ctx, None, as_json)
    with friendly_errors():
        if fact_id:
            _done(api.forget_memory(fact_id), as_json)
            return
        if about:
            erased = api.forget_about(about)
        elif conversation:
            erased = api.forget_conversation(conversation)
        else:
            erased = api.forget_everything()
    if as_json:
        _print_json(erased)
    else:
        console.print(safe(erased.summary))
