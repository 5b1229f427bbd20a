"""Tables and result files of the LoCoMo QA benchmark."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from benchmarks.common import console
from benchmarks.locomo_data import CATEGORIES


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "n": len(rows),
        "f1": _mean(r["f1"] for r in rows) or 0.0,
        "em": _mean(r["em"] for r in rows) or 0.0,
        "judge": _mean(r.get("judge") for r in rows),
        "evidence_in_prompt": _mean(r["evidence_in_prompt"] for r in rows),
        "s_per_answer": _mean(r["seconds"] for r in rows) or 0.0,
        "errors": sum(1 for r in rows if r.get("error")),
    }


def summarise(answers: list[dict[str, Any]], methods: Sequence[str]) -> dict[str, Any]:
    """Per method: overall means (over questions) and means per category."""
    out: dict[str, Any] = {}
    for method in methods:
        rows = [a for a in answers if a["method"] == method]
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            groups[row["category"]].append(row)
        out[method] = {
            "overall": _stats(rows),
            "by_category": {c: _stats(groups[c]) for c in CATEGORIES.values() if c in groups},
        }
    return out


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def markdown(summary: dict[str, Any]) -> str:
    categories = [c for c in CATEGORIES.values() if any(c in m["by_category"] for m in summary.values())]
    first = next(iter(summary.values()))
    counts = {c: first["by_category"].get(c, {}).get("n", 0) for c in categories}
    lines = [
        "| method | F1 | EM | J | evidence in prompt | s/answer | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, m in summary.items():
        o = m["overall"]
        lines.append(
            f"| {name} | {o['f1']:.3f} | {o['em']:.3f} | {_fmt(o['judge'])} | "
            f"{_fmt(o['evidence_in_prompt'])} | {o['s_per_answer']:.1f} | {o['errors']} |"
        )
    for metric, title in (("f1", "F1"), ("em", "exact match"), ("evidence_in_prompt", "evidence in prompt")):
        lines += ["", f"{title} by category (n = questions):", ""]
        lines.append("| method | " + " | ".join(f"{c} (n={counts[c]})" for c in categories) + " |")
        lines.append("| --- |" + " ---: |" * len(categories))
        for name, m in summary.items():
            cells = [_fmt(m["by_category"].get(c, {}).get(metric)) for c in categories]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rich_table(summary: dict[str, Any]) -> Table:
    categories = [c for c in CATEGORIES.values() if any(c in m["by_category"] for m in summary.values())]
    table = Table(title="LoCoMo answers: token F1 per category (overall EM, evidence in prompt)")
    table.add_column("method")
    for c in categories:
        table.add_column(c, justify="right")
    for header in ("F1", "EM", "J", "evid.", "s/answer"):
        table.add_column(header, justify="right")
    for name, m in summary.items():
        o = m["overall"]
        cells = [_fmt(m["by_category"].get(c, {}).get("f1")) for c in categories]
        table.add_row(
            name,
            *cells,
            f"[bold]{o['f1']:.3f}[/bold]",
            f"{o['em']:.3f}",
            _fmt(o["judge"]),
            _fmt(o["evidence_in_prompt"]),
            f"{o['s_per_answer']:.1f}",
        )
    return table


def write_results(result: dict[str, Any], answers: list[dict[str, Any]], out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / f"locomo_qa-{result['timestamp']}"
    result["files"] = [str(base.with_suffix(s)) for s in (".json", ".md", ".answers.jsonl")]
    base.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    base.with_suffix(".md").write_text(markdown(result["methods"]), encoding="utf-8")
    with base.with_suffix(".answers.jsonl").open("w", encoding="utf-8") as fh:
        for answer in answers:
            fh.write(json.dumps(answer, ensure_ascii=False) + "\n")


def print_report(result: dict[str, Any]) -> None:
    console.print(rich_table(result["methods"]))
    console.print(markdown(result["methods"]))
    console.print(
        f"{result['questions']} questions x {len(result['methods'])} methods, "
        f"{result['model']} model, in {result['elapsed_s']:.0f} s; results in {', '.join(result['files'])}"
    )
