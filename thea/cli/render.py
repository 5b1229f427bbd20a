"""Rich renderings for the terminal, from the API's typed results.

Text that came from users or models is passed through :func:`safe` before it is printed:
control characters (an ESC sequence could reset or hijack the terminal) are shown visibly
instead of being sent raw, and rich markup is escaped.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from rich.markup import escape
from rich.tree import Tree

from thea.api.models import TraceView
from thea.models import TaskStatus

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """Control characters as visible escapes (``\\x1b``); tabs and newlines kept."""
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", text
    )


def safe(text: str) -> str:
    """User or model text, ready for rich: control characters visible, markup escaped."""
    return escape(visible(text))


def _short(text: str, n: int = 90) -> str:
    flat = " ".join(text.split())
    return safe(flat if len(flat) <= n else flat[: n - 1] + "…")


def when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


_STYLE = {
    TaskStatus.SUCCESS: ("green", "✓"),
    TaskStatus.FAILURE: ("bold red", "✗"),
    TaskStatus.PENDING: ("yellow", "…"),
    TaskStatus.CANCELLED: ("yellow", "⊘"),
}


def trace_tree(trace: TraceView) -> Tree:
    imp = trace.impulse
    root = Tree(
        f"[bold]impulse[/] {imp.id[:8]}  {when(imp.created_at)}  [dim]user={safe(imp.user_id or '-')}[/]"
    )
    root.add(f"[italic]{_short(imp.content, 140)}[/]")
    failed = trace.failed_steps
    total_ms = sum(s.report.duration_ms for s in trace.steps if s.report)
    summary = f"{len(trace.steps)} steps in {total_ms:.0f} ms"
    if failed:
        summary += f", [bold red]{len(failed)} failed: {safe(', '.join(failed))}[/]"
    root.add(f"[dim]{summary}[/]" if not failed else summary)
    for step in trace.steps:
        report = step.report
        colour, mark = _STYLE.get(step.status, ("yellow", "?"))
        timing = f"{report.duration_ms:.0f} ms" if report else "no report"
        tokens = f"  tokens {report.tokens_in}->{report.tokens_out}" if report and report.llm_calls else ""
        model = f"  [dim]{safe(report.model or '')} {safe(report.prompt_name or '')}" if report else ""
        if report and report.prompt_version:
            model += f" v{safe(report.prompt_version)}"
        if model:
            model += "[/]"
        branch = root.add(
            f"[bold]{safe(step.step)}[/] [{colour}]{mark} {step.status.value}[/] {timing}{tokens}{model}  "
            f"[dim]task {step.task.id[:8]}[/]"
        )
        if report and report.error:
            style = "red" if step.status is TaskStatus.FAILURE else "yellow"
            branch.add(f"[{style}]{_short(report.error, 160)}[/]")
        output = report.output if report else {}
        if step.step == "plan" and output:
            branch.add(f"queries: {safe(str(output.get('queries', [])))[:160]}")
            branch.add(f"concepts: {safe(str(output.get('concepts', [])))[:160]}")
            if output.get("time_from"):
                branch.add(
                    f"time window: {when(int(output['time_from']))} .. {when(int(output['time_to'] or 0))}"
                )
            if output.get("triple_pattern"):
                branch.add(f"triple: {safe(str(output['triple_pattern']))}")
        if step.step == "recall" and output:
            hits = output.get("hits", [])
            counts = output.get("stage_counts", {})
            hit_branch = branch.add(f"{len(hits)} memories recalled  [dim]{safe(str(counts))}[/]")
            for hit in hits[:10]:
                via = safe(",".join(hit["stages"]))
                hit_branch.add(f"{hit['id'][:8]} {safe(hit['type'])} score={hit['score']} via {via}")
        for node in step.outputs:
            branch.add(f"[cyan]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")
    for node in trace.related:
        root.add(f"[magenta]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")
    if imp.status is not None and imp.status.value == "cancelled":
        root.add("[bold yellow]cycle cancelled[/] by the user")
    elif not trace.complete:
        root.add("[bold yellow]cycle incomplete[/] (a step has no report)")
    return root
