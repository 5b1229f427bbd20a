"""Rich renderings for the terminal, from the API's typed results.

Text that came from users or models is passed through :func:`safe` before it is printed:
control characters (an ESC sequence could reset or hijack the terminal) are shown visibly
instead of being sent raw, and rich markup is escaped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule
from rich.text import Text
from rich.tree import Tree

from thea.api.models import TraceExplanation, TraceStepView, TraceView
from thea.models import Step, TaskStatus
from thea.models.step_outputs import PlanOutput, RecallOutput
from thea.text import printable


def safe(text: object) -> str:
    """User or model text, ready for rich: control, bidi and other invisible characters shown
    visibly (``\\x1b``, ``\\u202e``), markup escaped."""
    return escape(printable(str(text)))


def json_text(data: Any, indent: int | None = None) -> str:
    """JSON for the terminal: readable non-ASCII text, but control, bidi and other invisible
    characters written as ``\\uXXXX`` escapes (``json.dumps`` leaves C1 and U+202E raw)."""
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return "".join(_json_escape(ch) if printable(ch) != ch else ch for ch in text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


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


def number(value: float) -> str:
    """A score, short: 100, 7.2, 0.61."""
    return f"{value:.2f}".rstrip("0").rstrip(".") or "0"


def stage_scores(scores: dict[str, float]) -> str:
    """Each stage's own score, compactly: ``vectors 0.61 · keywords 7.2``."""
    return " · ".join(f"{safe(stage)} {number(score)}" for stage, score in scores.items())


#: how a recalled memory is marked: it reached the answering prompt, or recall found it only
IN_PROMPT = "[green]→ prompt [/]"
RECALLED_ONLY = "[dim]  recalled[/]"


def _explain_plan(branch: Tree, explained: TraceExplanation) -> None:
    if explained.act:
        branch.add(f"act: {safe(explained.act)}")
    if explained.facts_recorded:
        recorded = branch.add(f"facts recorded ({len(explained.facts_recorded)})")
        for fact in explained.facts_recorded:
            said = f"{fact.subject} · {fact.attribute} = {fact.value}" if fact.attribute else fact.text
            recorded.add(f"{fact.id[:8]} {_short(said, 120)}")
    for old in explained.superseded:
        why = "; ".join(x for x in (f"by {old.by[:8]}" if old.by else "", old.reason) if x)
        by = f" [dim]({safe(why)})[/]" if why else ""
        branch.add(f"[yellow]superseded[/] {old.id[:8]} {_short(old.text, 120)}{by}")


def _explain_recall(branch: Tree, explained: TraceExplanation, counts: object) -> None:
    memories = explained.recalled
    used = sum(m.in_prompt for m in memories)
    head = f"{len(memories)} memories recalled, {used} reached the prompt  [dim]{safe(str(counts))}[/]"
    hit_branch = branch.add(head)
    for memory in memories:
        mark = IN_PROMPT if memory.in_prompt else RECALLED_ONLY
        scores = stage_scores(memory.stage_scores) or safe(",".join(memory.stages))
        hit_branch.add(
            f"{mark} {memory.id[:8]} {safe(memory.type)} {number(memory.score)}  [dim]{scores}[/]  "
            f"{_short(memory.text, 100)}"
        )


def _explain_synthesis(branch: Tree, explained: TraceExplanation) -> None:
    prompt = explained.prompt
    if prompt is not None:
        line = f"prompt {safe(prompt.id)}"
        if prompt.version:
            line += f" v{safe(prompt.version)}"
        if prompt.message_count:
            line += f", {prompt.message_count} messages"
            line += " (below)" if prompt.messages is not None else "  [dim](--prompts shows them)[/]"
        branch.add(line)
    if explained.mode is not None and explained.mode != "model":
        branch.add(f"answer: {safe(explained.mode)} [dim](no model call)[/]")
    if explained.facts:
        facts = branch.add(f"facts of record used ({len(explained.facts)})")
        for fact in explained.facts:
            why = f"  [dim]({safe(fact.why)})[/]" if fact.why else ""
            facts.add(f"{fact.id[:8]} {_short(fact.text, 120)}{why}")


def print_prompt(console: Console, trace: TraceView) -> None:
    """The exact messages of the prompt the model was asked with, each under its role; or a
    line saying there was none (an answer no model wrote)."""
    explained = trace.explanation
    prompt = explained.prompt if explained is not None else None
    if prompt is None:
        mode = explained.mode if explained is not None else None
        if mode is not None and mode != "model":
            console.print(f"[dim]no prompt: no model wrote this answer ({safe(mode)})[/]")
        else:
            console.print("[dim]no prompt recorded for this answer[/]")
        return
    if not prompt.messages:
        console.print(f"[dim]prompt {safe(prompt.id)}: its messages were not recorded in this trace[/]")
        return
    version = f" v{prompt.version}" if prompt.version else ""
    for n, message in enumerate(prompt.messages, 1):
        title = f"prompt {prompt.id}{version} · message {n} of {len(prompt.messages)} · {message.role}"
        console.print(Rule(safe(title), align="left"))
        console.print(Text(printable(message.content)), soft_wrap=True)


def trace_tree(trace: TraceView) -> Tree:
    imp = trace.impulse
    root = Tree(
        f"[bold]impulse[/] {imp.id[:8]}  {when(imp.created_at)}  [dim]user={safe(imp.user_id or '-')}[/]"
    )
    root.add(f"[italic]{_short(imp.content, 140)}[/]")
    root.add(_steps_summary(trace))
    for step in trace.steps:
        _add_step(root, step, trace.explanation)
    for node in trace.related:
        root.add(f"[magenta]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")
    ending = _cycle_ending(trace)
    if ending:
        root.add(ending)
    return root


def _steps_summary(trace: TraceView) -> str:
    """How many steps ran in how long, and which failed."""
    failed = trace.failed_steps
    total_ms = sum(s.report.duration_ms for s in trace.steps if s.report)
    summary = f"{len(trace.steps)} steps in {total_ms:.0f} ms"
    if not failed:
        return f"[dim]{summary}[/]"
    return summary + f", [bold red]{len(failed)} failed: {safe(', '.join(failed))}[/]"


def _step_line(step: TraceStepView) -> str:
    """A step's head line: its status, time, tokens, model and prompt, and its task."""
    report = step.report
    colour, mark = _STYLE.get(step.status, ("yellow", "?"))
    timing = f"{report.duration_ms:.0f} ms" if report else "no report"
    tokens = f"  tokens {report.tokens_in}->{report.tokens_out}" if report and report.llm_calls else ""
    model = f"  [dim]{safe(report.model or '')} {safe(report.prompt_name or '')}" if report else ""
    if report and report.prompt_version:
        model += f" v{safe(report.prompt_version)}"
    if model:
        model += "[/]"
    return (
        f"[bold]{safe(step.step)}[/] [{colour}]{mark} {step.status.value}[/] {timing}{tokens}{model}  "
        f"[dim]task {step.task.id[:8]}[/]"
    )


def _add_step(root: Tree, step: TraceStepView, explained: TraceExplanation | None) -> None:
    report = step.report
    branch = root.add(_step_line(step))
    if report and report.error:
        style = "red" if step.status is TaskStatus.FAILURE else "yellow"
        branch.add(f"[{style}]{_short(report.error, 160)}[/]")
    output = report.output if report else {}
    if step.step == Step.PLAN:
        if output:
            _plan_output(branch, PlanOutput.of(output))
        if explained is not None:
            _explain_plan(branch, explained)
    if step.step == Step.RECALL and output:
        _recall_output(branch, RecallOutput.of(output), explained)
    if step.step == Step.SYNTHESIS and explained is not None and report is not None:
        _explain_synthesis(branch, explained)
    for node in step.outputs:
        branch.add(f"[cyan]{node.type.value}[/] {node.id[:8]}: {_short(node.content)}")


def _plan_output(branch: Tree, output: PlanOutput) -> None:
    branch.add(f"queries: {safe(str(output.queries))[:160]}")
    branch.add(f"concepts: {safe(str(output.concepts))[:160]}")
    if output.time_from:
        branch.add(f"time window: {when(output.time_from)} .. {when(output.time_to or 0)}")
    if output.triple_pattern:
        branch.add(f"triple: {safe(str(output.triple_pattern))}")


def _recall_output(branch: Tree, output: RecallOutput, explained: TraceExplanation | None) -> None:
    counts = output.stage_counts
    if explained is not None:
        _explain_recall(branch, explained, counts)
        return
    # a service older than the explanation
    hit_branch = branch.add(f"{len(output.hits)} memories recalled  [dim]{safe(str(counts))}[/]")
    for hit in output.hits[:10]:
        via = safe(",".join(hit.stages))
        hit_branch.add(f"{hit.id[:8]} {safe(hit.type)} score={hit.score:g} via {via}")


def _cycle_ending(trace: TraceView) -> str | None:
    """A cancelled or incomplete cycle says so. The cancelled step's report is written before
    the impulse is marked: a trace read between the two (`!trace` right after Ctrl-C) knows
    from the report alone."""
    imp = trace.impulse
    cancelled = any(step.status is TaskStatus.CANCELLED for step in trace.steps)
    if cancelled or (imp.status is not None and imp.status.value == "cancelled"):
        return "[bold yellow]cycle cancelled[/] by the user"
    if not trace.complete:
        return "[bold yellow]cycle incomplete[/] (a step has no report)"
    return None
