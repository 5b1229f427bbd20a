"""Rich renderings of traces and memories for the terminal."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.tree import Tree

from services.trace import Trace
from thea.cli.common import safe
from thea.models import TaskStatus


def _short(text: str, n: int = 90) -> str:
    flat = " ".join(text.split())
    return safe(flat if len(flat) <= n else flat[: n - 1] + "…")


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def trace_tree(trace: Trace) -> Tree:
    imp = trace.impulse
    root = Tree(
        f"[bold]impulse[/] {imp.id[:8]}  {_when(imp.created_at)}  [dim]user={safe(imp.user_id or '-')}[/]"
    )
    root.add(f"[italic]{_short(imp.content, 140)}[/]")
    failed = [s.task.step for s in trace.steps if s.status is TaskStatus.FAILURE]
    total_ms = sum(s.report.duration_ms for s in trace.steps if s.report)
    summary = f"{len(trace.steps)} steps in {total_ms:.0f} ms"
    if failed:
        summary += f", [bold red]{len(failed)} failed: {safe(', '.join(failed))}[/]"
    root.add(f"[dim]{summary}[/]" if not failed else summary)
    for step in trace.steps:
        report = step.report
        status = step.status
        colour = {"SUCCESS": "green", "FAILURE": "bold red", "PENDING": "yellow"}[status.value]
        mark = {"SUCCESS": "✓", "FAILURE": "✗", "PENDING": "…"}[status.value]
        timing = f"{report.duration_ms:.0f} ms" if report else "no report"
        tokens = f"  tokens {report.tokens_in}->{report.tokens_out}" if report and report.llm_calls else ""
        model = f"  [dim]{safe(report.model or '')} {safe(report.prompt_name or '')}" if report else ""
        if report and report.prompt_version:
            model += f" v{safe(report.prompt_version)}"
        if model:
            model += "[/]"
        branch = root.add(
            f"[bold]{safe(step.task.step)}[/] [{colour}]{mark} {status.value}[/] {timing}{tokens}{model}  "
            f"[dim]task {step.task.id[:8]}[/]"
        )
        if report and report.error:
            style = "red" if status is TaskStatus.FAILURE else "yellow"
            branch.add(f"[{style}]{_short(report.error, 160)}[/]")
        output = report.output if report else {}
        if step.task.step == "plan" and output:
            branch.add(f"queries: {safe(str(output.get('queries', [])))[:160]}")
            branch.add(f"concepts: {safe(str(output.get('concepts', [])))[:160]}")
            if output.get("time_from"):
                branch.add(
                    f"time window: {_when(int(output['time_from']))} .. {_when(int(output['time_to'] or 0))}"
                )
            if output.get("triple_pattern"):
                branch.add(f"triple: {safe(str(output['triple_pattern']))}")
        if step.task.step == "recall" and output:
            hits = output.get("hits", [])
            counts = output.get("stage_counts", {})
            hit_branch = branch.add(f"{len(hits)} memories recalled  [dim]{safe(str(counts))}[/]")
            for hit in hits[:10]:
                via = safe(",".join(hit["stages"]))
                hit_branch.add(f"{hit['id'][:8]} {safe(hit['type'])} score={hit['score']} via {via}")
        for node in step.outputs:
            branch.add(f"[cyan]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")
    for node in trace.others:
        root.add(f"[magenta]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")
    if not trace.complete:
        root.add("[bold yellow]cycle incomplete[/] (a step has no report)")
    return root
