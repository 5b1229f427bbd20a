"""``python -m benchmarks [all | NAME ...] [--quick | --full] [--compare OLD.json]``.

Runs the registered benchmarks (benchmarks/registry.py), prints each as a table of
our figure, the raw baseline measured in the same run and their ratio, writes
``benchmarks/results/<name>-<timestamp>.json`` per benchmark plus
``all-<timestamp>.json`` with every result of the run, and with ``--compare``
prints how each figure changed against an earlier result file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from benchmarks.common import RESULTS_DIR, console, fmt, machine, result_table, stamp, write_json
from benchmarks.registry import BENCHMARKS, load, selected


def _rows_by_key(results: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["name"], line["metric"]): line for r in results for line in r.get("rows", [])}


def load_results(path: Path) -> list[dict[str, Any]]:
    """Results in a file written by this runner: one benchmark's, or a whole run's."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if "results" in data:
        return list(data["results"])
    return [data]


def compare(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> Table:
    """Change of each figure present in both runs (ours and the ratio to raw)."""
    before, after = _rows_by_key(old), _rows_by_key(new)
    table = Table(title="change against the earlier run")
    for header, justify in (
        ("benchmark", "left"),
        ("metric", "left"),
        ("before", "right"),
        ("now", "right"),
        ("change", "right"),
        ("ratio before", "right"),
        ("ratio now", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for key, now in after.items():
        then = before.get(key)
        if then is None or then.get("ours") is None or now.get("ours") is None:
            continue
        change = (now["ours"] - then["ours"]) / then["ours"] * 100 if then["ours"] else float("nan")
        rb, rn = then.get("ratio"), now.get("ratio")
        table.add_row(
            key[0],
            key[1],
            fmt(then["ours"]),
            fmt(now["ours"]),
            f"{change:+.1f}%",
            f"{rb:.2f}x" if rb is not None else "-",
            f"{rn:.2f}x" if rn is not None else "-",
        )
    missing = sorted(set(before) - set(after))
    if missing:
        table.caption = f"{len(missing)} earlier figures not measured in this run"
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=["all"], help="benchmarks to run (default: all)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small sizes (the default; under 5 minutes)")
    size.add_argument("--full", action="store_true", help="full sizes (e.g. 100k-node recall)")
    parser.add_argument("--compare", type=Path, help="an earlier result JSON to compare with")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for result files")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.list:
        for bench in BENCHMARKS:
            state = "available" if load(bench) else "not available yet"
            flag = "" if bench.in_all else " (not in 'all')"
            console.print(f"[bold]{bench.name}[/bold]{flag}: {bench.description} ({state})")
        return 0
    quick = not args.full
    try:
        benches = selected(args.names)
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    when = stamp()
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    for bench in benches:
        run = load(bench)
        if run is None:
            console.print(
                f"[yellow]{bench.name}: not available yet ({bench.module} missing), skipped[/yellow]"
            )
            continue
        console.rule(f"{bench.name} ({'quick' if quick else 'full'})")
        t0 = time.perf_counter()
        result = run(quick)
        result.setdefault("name", bench.name)
        result["quick"] = quick
        result["elapsed_s"] = round(time.perf_counter() - t0, 1)
        result["timestamp"] = when
        result.setdefault("machine", machine())
        if "files" not in result:  # a benchmark that wrote its own files keeps them
            result["file"] = str(write_json(result, bench.name, args.out, when))
        console.print(result_table(result))
        console.print(f"{bench.name}: {result['elapsed_s']} s")
        results.append(result)
    total = time.perf_counter() - started
    if len(results) > 1:
        path = write_json(
            {
                "timestamp": when,
                "quick": quick,
                "elapsed_s": round(total, 1),
                "machine": machine(),
                "results": results,
            },
            "all",
            args.out,
            when,
        )
        console.print(f"all results: {path}")
    console.print(f"total {total:.1f} s")
    if args.compare:
        console.print(compare(load_results(args.compare), results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
