"""``thea trace``: the whole cycle of one impulse as a tree, JSON or a mermaid diagram."""

from __future__ import annotations

from enum import StrEnum

import typer

from services.trace import Trace, latest_impulse_id, load_trace, trace_json
from thea.cli.common import console, friendly_errors, get_settings, json_text
from thea.cli.render import trace_tree
from thea.errors import NotFoundError
from thea.memory.factory import open_memory


class TraceFormat(StrEnum):
    TREE = "tree"
    JSON = "json"
    MERMAID = "mermaid"


def _mermaid_text(text: str, n: int = 60) -> str:
    flat = " ".join(text.split())[:n]
    return "".join(ch if ch.isalnum() or ch in " .,:?!-_'()" else " " for ch in flat)


def trace_mermaid(trace: Trace) -> str:
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
        name = step.task.step
        svc = f"S_{name}"
        lines.append(f"    participant {svc} as {name}")
        lines.append(f"    O->>{svc}: Task {step.task.id[:8]}")
        report = step.report
        if report is None:
            lines.append(f"    Note over {svc}: no report (incomplete)")
            continue
        arrow = "-->>" if report.status.value == "SUCCESS" else "--x"
        label = f"{report.status.value} {report.duration_ms:.0f} ms"
        if report.llm_calls:
            label += f", {report.tokens_in}+{report.tokens_out} tokens"
        lines.append(f"    {svc}{arrow}O: {label}")
        if report.error:
            lines.append(f"    Note over {svc}: {_mermaid_text(report.error)}")
        if name == "recall":
            hits = report.output.get("hits", []) if isinstance(report.output, dict) else []
            lines.append(f"    {svc}->>M: cascade query ({len(hits)} hits)")
    final = next((o for s in trace.steps for o in s.outputs if o.type.value == "FinalResponse"), None)
    if final is not None:
        lines.append(f"    O-->>User: {_mermaid_text(final.content)}")
    for node in trace.others:
        lines.append(f"    Note over M: {node.type.value} {node.id[:8]}")
    return "\n".join(lines)


def trace(
    ctx: typer.Context,
    impulse: str = typer.Argument("last", help="impulse id, id prefix, or 'last'"),
    fmt: TraceFormat = typer.Option(TraceFormat.TREE, "--format", "-f", help="tree, json or mermaid"),
    user: str = typer.Option(None, "--user", help="with 'last': the latest impulse of this user"),
) -> None:
    """Show the thought process behind one answer."""
    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            if impulse == "last":
                impulse_id = latest_impulse_id(memory, user)
                if impulse_id is None:
                    raise NotFoundError("no impulse recorded yet")
            else:
                impulse_id = memory.resolve_id(impulse)
            loaded = load_trace(memory, impulse_id)
        finally:
            memory.close()
    if fmt is TraceFormat.JSON:
        typer.echo(json_text(trace_json(loaded), indent=2))
    elif fmt is TraceFormat.MERMAID:
        typer.echo(trace_mermaid(loaded))
    else:
        console.print(trace_tree(loaded))
