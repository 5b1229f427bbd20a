"""Tables and the chart of the LoCoMo retrieval benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

METRICS = ("recall@5", "recall@10", "ndcg@10")


def summarise(scores: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, s in scores.items():
        means = s.agg.means()
        out[name] = {
            "overall": means.get("overall", {}),
            "by_category": {k: v for k, v in sorted(means.items()) if k != "overall"},
            "ms_per_query": 1000 * s.seconds / max(s.queries, 1),
            "build_s": s.build_s,
            "kind": s.kind,
        }
    return out


def markdown(summary: dict[str, Any]) -> str:
    categories = sorted({c for m in summary.values() for c in m["by_category"]})
    lines = [
        "| method | recall@5 | recall@10 | nDCG@10 | ms/query | index s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, m in summary.items():
        o = m["overall"]
        lines.append(
            f"| {name} | {o.get('recall@5', 0):.3f} | {o.get('recall@10', 0):.3f} | "
            f"{o.get('ndcg@10', 0):.3f} | {m['ms_per_query']:.1f} | {m['build_s']:.1f} |"
        )
    counts = {c: int(next(iter(summary.values()))["by_category"][c]["n"]) for c in categories}
    for metric, title in (("recall@5", "recall@5"), ("recall@10", "recall@10"), ("ndcg@10", "nDCG@10")):
        lines += ["", f"{title} by category (n = questions with evidence):", ""]
        lines.append("| method | " + " | ".join(f"{c} (n={counts[c]})" for c in categories) + " |")
        lines.append("| --- |" + " ---: |" * len(categories))
        for name, m in summary.items():
            cells = [f"{m['by_category'][c][metric]:.3f}" for c in categories]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rich_table(summary: dict[str, Any], label: str = "LoCoMo") -> Table:
    table = Table(title=f"{label} retrieval (evidence turns)")
    table.add_column("method")
    for header in ("recall@5", "recall@10", "nDCG@10", "ms/query", "index s"):
        table.add_column(header, justify="right")
    best = max(m["overall"].get("recall@10", 0.0) for m in summary.values())
    for name, m in summary.items():
        o = m["overall"]
        r10 = f"{o.get('recall@10', 0):.3f}"
        table.add_row(
            name,
            f"{o.get('recall@5', 0):.3f}",
            f"[bold]{r10}[/bold]" if o.get("recall@10", 0) == best else r10,
            f"{o.get('ndcg@10', 0):.3f}",
            f"{m['ms_per_query']:.1f}",
            f"{m['build_s']:.1f}",
        )
    return table


def chart(summary: dict[str, Any], path: Path, label: str = "LoCoMo") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    main = [n for n in summary if summary[n].get("kind") != "ablation"]
    ablations = [n for n in summary if summary[n].get("kind") != "baseline"]
    categories = [*sorted({c for m in summary.values() for c in m["by_category"]}), "overall"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / len(main)

    def recall10(name: str, category: str) -> float:
        m = summary[name]
        scores = m["overall"] if category == "overall" else m["by_category"].get(category, {})
        return float(scores.get("recall@10", 0.0))

    for i, name in enumerate(main):
        values = [recall10(name, c) for c in categories]
        left.bar(np.arange(len(categories)) + i * width, values, width, label=name)
    left.set_xticks(np.arange(len(categories)) + width * (len(main) - 1) / 2, categories)
    left.set_ylabel("recall@10 of evidence turns")
    left.set_ylim(0, 1)
    left.set_title("by question category")
    left.legend(fontsize=8)
    values = [summary[n]["overall"].get("recall@10", 0.0) for n in ablations]
    ndcg = [summary[n]["overall"].get("ndcg@10", 0.0) for n in ablations]
    x = np.arange(len(ablations))
    right.bar(x - 0.2, values, 0.4, label="recall@10")
    right.bar(x + 0.2, ndcg, 0.4, label="nDCG@10")
    right.set_xticks(x, [n.replace("thea ", "").strip("()") for n in ablations], rotation=30, ha="right")
    right.set_ylim(0, 1)
    right.set_title("cascade ablations (overall)")
    right.legend(fontsize=8)
    fig.suptitle(f"thea recall on {label}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
