"""``thea trace``: the whole cycle of one impulse as a tree, JSON or a mermaid diagram; with
``--prompts`` also the exact prompt the model was asked with."""

from __future__ import annotations

from enum import StrEnum

import typer

from thea.api.models import TraceView
from thea.cli.common import client, console, friendly_errors, json_text
from thea.cli.render import print_prompt, trace_tree
from thea.models import FinalResponse, Step, TaskStatus
from thea.models.step_outputs import RecallOutput


class TraceFormat(StrEnum):
    TREE = "tree"
    JSON = "json"
    MERMAID = "mermaid"


def _mermaid_text(text: str, n: int = 60) -> str:
    flat = " ".join(text.split())[:n]
    return "".join(ch if ch.isalnum() or ch in " .,:?!-_'()" else " " for ch in flat)


def trace_mermaid(trace: TraceView) -> str:
    """A sequence diagram: user -> orchestrator -> each service -> memory."""
    lines = [
        "sequenceDiagram",
        "    actor User",
        "    participant O as Orchestrator",
        "    participant M as Memory",
        f"    User->>O: {_mermaid_text(trace.impulse.content)}",
        "    O->>M: record impulse",
    ]
    for step in trace.steps:
        name = step.step
        svc = f"S_{name}"
        lines.append(f"    participant {svc} as {name}")
        lines.append(f"    O->>{svc}: Task {step.task.id[:8]}")
        report = step.report
        if report is None:
            lines.append(f"    Note over {svc}: no report (incomplete)")
            continue
        arrow = "-->>" if report.status is TaskStatus.SUCCESS else "--x"
        label = f"{report.status.value} {report.duration_ms:.0f} ms"
        if report.llm_calls:
            label += f", {report.tokens_in}+{report.tokens_out} tokens"
        lines.append(f"    {svc}{arrow}O: {label}")
        if report.error:
            lines.append(f"    Note over {svc}: {_mermaid_text(report.error)}")
        if name == Step.RECALL:
            hits = RecallOutput.of(report.output).hits
            lines.append(f"    {svc}->>M: cascade query ({len(hits)} hits)")
    final = next((o for s in trace.steps for o in s.outputs if isinstance(o, FinalResponse)), None)
    if final is not None:
        lines.append(f"    O-->>User: {_mermaid_text(final.content)}")
    for node in trace.related:
        lines.append(f"    Note over M: {node.type.value} {node.id[:8]}")
    return "\n".join(lines)


def trace(
    ctx: typer.Context,
    impulse: str = typer.Argument("last", help="impulse id, id prefix, or 'last'"),
    fmt: TraceFormat = typer.Option(TraceFormat.TREE, "--format", "-f", help="tree, json or mermaid"),
    user: str = typer.Option(None, "--user", help="whose conversations (default: the local user)"),
    prompts: bool = typer.Option(
        False, "--prompts", help="also the exact prompt the model was asked with, every message"
    ),
) -> None:
    """Show the thought process behind one answer."""
    api = client(ctx, user=user, quiet=fmt is not TraceFormat.TREE)
    with friendly_errors():
        loaded = api.trace(impulse, prompts=prompts)
    if fmt is TraceFormat.JSON:
        typer.echo(json_text(loaded.model_dump(mode="json"), indent=2))
    elif fmt is TraceFormat.MERMAID:
        typer.echo(trace_mermaid(loaded))
    else:
        console.print(trace_tree(loaded))
        if prompts:
            print_prompt(console, loaded)
