"""Stress: N concurrent users against the embedded profile with a zero-latency fake LLM.

Runs for a bounded time, then drains the crystallization queue and checks that no
record was lost or duplicated: every impulse has exactly one final response and one
crystal (the grounded restatement stored beside an unsupported insight is not a duplicate),
and the graph, vector and chronicle layers agree (``thea memory check``).

    python -m benchmarks.stress --users 50 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import bench_settings, console, machine, percentile, result_table, row, write_json
from services.reflection.crystallizer import stated_id
from thea.llm.fake import StreamingFakeChatModel
from thea.memory.consistency import check
from thea.runtime import build_runtime

TOPICS = ["Redis queues", "Postgres invoices", "green tea", "the cat Miso", "FalkorDB graphs", "hiking"]


@dataclass
class StressResult:
    impulses: int = 0
    errors: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)


async def _user(rt: Any, user: str, deadline: float, out: StressResult, rng: random.Random) -> None:
    session = f"{user}-s"
    while time.monotonic() < deadline:
        text = f"{user} note {out.impulses}: I like {rng.choice(TOPICS)}. cache -> speed"
        started = time.perf_counter()
        try:
            await rt.orchestrator.handle_impulse(text, user, session)
            out.latencies_ms.append((time.perf_counter() - started) * 1000)
            out.impulses += 1
        except Exception as exc:  # count, keep going: this is what we measure
            out.errors.append(f"{type(exc).__name__}: {exc}")


def stress(users: int, seconds: float, data_dir: Path) -> dict[str, Any]:
    rt = build_runtime(bench_settings(data_dir), llm=StreamingFakeChatModel.minimal())
    try:
        out = StressResult()
        rng = random.Random(7)

        async def main() -> float:
            deadline = time.monotonic() + seconds
            started = time.perf_counter()
            await asyncio.gather(*(_user(rt, f"stress-{u}", deadline, out, rng) for u in range(users)))
            return time.perf_counter() - started

        wall = asyncio.run(main())
        drain_started = time.perf_counter()
        rt.run_jobs()
        drain_s = time.perf_counter() - drain_started
        rows = rt.memory.admin.cycle_outcomes("stress-")
        consistency = check(rt.memory, grace_ms=0)
        from workers.admin import failed_jobs

        failed = failed_jobs(rt.jobs.connection)
    finally:
        rt.close()
    # the grounded restatement stored beside an unsupported insight is no duplicate
    crystals = {r.impulse_id: [c for c in r.crystal_ids if c != stated_id(r.impulse_id)] for r in rows}
    lost = [r.impulse_id for r in rows if r.responses == 0 or not crystals[r.impulse_id]]
    duplicated = [r.impulse_id for r in rows if r.responses > 1 or len(crystals[r.impulse_id]) > 1]
    return {
        "users": users,
        "seconds": wall,
        "impulses": out.impulses,
        "stored_impulses": len(rows),
        "impulses_per_s": out.impulses / wall if wall else 0.0,
        "p50_ms": percentile(out.latencies_ms, 50),
        "p95_ms": percentile(out.latencies_ms, 95),
        "p99_ms": percentile(out.latencies_ms, 99),
        "errors": len(out.errors),
        "error_examples": out.errors[:3],
        "failed_jobs": len(failed),
        "drain_s": drain_s,
        "lost": lost,
        "duplicated": duplicated,
        "consistent": consistency.ok,
        "consistency": consistency.to_json(),
    }


def sequential_baseline(data_dir: Path, n: int = 20) -> float:
    """p50 latency of one user alone (same engine, same run): the no-contention figure."""
    rt = build_runtime(bench_settings(data_dir), llm=StreamingFakeChatModel.minimal())
    try:
        times = []
        for i in range(n):
            started = time.perf_counter()
            asyncio.run(rt.orchestrator.handle_impulse(f"solo note {i}: cache -> speed", "solo", "s"))
            times.append((time.perf_counter() - started) * 1000)
    finally:
        rt.close()
    return percentile(times, 50)


def run(quick: bool = True, users: int | None = None, seconds: float | None = None) -> dict[str, Any]:
    users = users or (10 if quick else 50)
    seconds = seconds or (15.0 if quick else 60.0)
    with tempfile.TemporaryDirectory(prefix="thea-bench-stress-") as tmp:
        solo_p50 = sequential_baseline(Path(tmp) / "solo")
        s = stress(users, seconds, Path(tmp) / "data")
    ok = s["consistent"] and not s["lost"] and not s["duplicated"] and s["errors"] == 0
    rows = [
        row(
            f"impulses/s ({users} users)",
            s["impulses_per_s"],
            1000 / solo_p50,
            "1/s",
            "raw = 1 user, back to back",
        ),
        row("p50 latency", s["p50_ms"], solo_p50, "ms", "raw = 1 user alone"),
        row("p95 latency", s["p95_ms"], None, "ms"),
        row("p99 latency", s["p99_ms"], None, "ms"),
        row("errors", s["errors"], None, "count", "; ".join(s["error_examples"])),
        row(
            "lost / duplicated records",
            len(s["lost"]) + len(s["duplicated"]),
            None,
            "count",
            f"{s['stored_impulses']} impulses checked after draining ({s['drain_s']:.1f} s)",
        ),
        row("layers consistent", 1.0 if s["consistent"] else 0.0, None, "bool"),
    ]
    return {"name": "stress", "quick": quick, "ok": ok, "machine": machine(), "rows": rows, "detail": s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    result = run(quick=False, users=args.users, seconds=args.seconds)
    console.print(result_table(result))
    console.print(f"results: {write_json(result, 'stress')}")
    console.print("[green]no lost or duplicated records[/]" if result["ok"] else "[red]PROBLEMS FOUND[/]")
    raise SystemExit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
