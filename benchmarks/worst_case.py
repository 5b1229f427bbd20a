"""Worst-case messages: what one adversarially shaped message costs, next to an ordinary
message of the same length measured in the same run.

Each message goes through ``handle_impulse`` and the crystallize job, then the same text is
told as a ``!fact`` (zero-latency fake model, real embedded engines and MiniLM). Shapes:
a ``~`` chain of 30,000 names, 15,000 ``a::b`` lines, 13,000 ``a -> b`` lines, distinct words, one
giant word, CJK text, a mix of all, and the 1,000-name ``!fact`` of 4.9 kB that wrote
over 500,000 edges before the per-message caps (services/common/limits.py). Every message runs in its own
process, so "peak memory growth" is that process's peak resident memory over what it used
after a warm-up message. The caps hold when every ratio stays near 1.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import string
import subprocess
import sys
import time
from typing import Any

from benchmarks.common import fresh_stack, row, standalone_main
from services.common.limits import (
    MAX_CRYSTAL_CONCEPTS,
    MAX_FACT_CONCEPTS,
    MAX_LINKED_CONCEPTS,
    MAX_NOTATION_TRIPLES,
)

LONG = 200_000
SHORT = 4_900


def _words(n: int, seed: int = 3) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(string.ascii_lowercase) for _ in range(7)) for _ in range(n)]


def ordinary(length: int) -> str:
    """Plain prose: no notation, a few capitalised names."""
    base = "I moved to Lisbon last spring and now I work on Redis queues with my team at Acme. "
    return (base * (length // len(base) + 1))[:length]


SHAPES: dict[str, tuple[int, Any]] = {
    "ordinary (baseline)": (LONG, lambda: ordinary(LONG)),
    "~ chain of 30,000 names": (LONG, lambda: "~".join(f"c{i}" for i in range(LONG // 4))),
    "mix of every shape": (
        LONG,
        lambda: "\n".join(
            [f"a{i}::b{i}" for i in range(4000)]
            + [f"x{i} -> y{i}" for i in range(4000)]
            + [" ".join(f"Word{i}x{j}" for j in range(40)) for i in range(100)]
            + ["Z" + "z" * 30_000, "中文" * 10_000]
            + [f"p{i}~q{i}~r{i}~s{i}~t{i}~u{i}~v{i}" for i in range(2000)]
        ),
    ),
    "15,000 a::b lines": (LONG, lambda: "\n".join(f"a{i}::b{i}" for i in range(20_000))),
    "a -> b lines": (LONG, lambda: "\n".join(f"x{i} -> y{i}" for i in range(20_000))),
    "distinct words": (LONG, lambda: " ".join(_words(LONG // 8))),
    "one giant word": (LONG, lambda: "W" + "w" * LONG),
    "CJK": (LONG, lambda: "".join(chr(0x4E00 + (i * 7919) % 20_000) for i in range(LONG))),
    "ordinary 4.9 kB (baseline)": (SHORT, lambda: ordinary(SHORT)),
    "1,000-name !fact of 4.9 kB": (SHORT, lambda: "~".join(f"n{i}" for i in range(1000))),
}
QUICK = ["ordinary (baseline)", "~ chain of 30,000 names", "mix of every shape"]
QUICK += ["ordinary 4.9 kB (baseline)", "1,000-name !fact of 4.9 kB"]


def _counts(memory: Any) -> tuple[int, int]:
    counts = memory.graph.count_by_type()
    return int(counts["edges"]), int(counts.get("Concept", 0))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(shape: str) -> dict[str, Any]:
    """One shape in this (fresh) process: cycle + crystallize, then the same text as a fact."""
    from thea.llm.fake import StreamingFakeChatModel
    from thea.runtime.assembly import build_crystallizer, build_fact_keeper, build_orchestrator

    length, make = SHAPES[shape]
    text = make()[:length]
    with fresh_stack(prefix="thea-bench-worst-") as (settings, memory):
        llm = StreamingFakeChatModel.minimal()
        orchestrator = build_orchestrator(settings, memory, llm, jobs=None)
        crystallizer = build_crystallizer(settings, memory, llm)
        facts = build_fact_keeper(settings, memory, llm)

        async def message(body: str, user: str) -> float:
            started = time.perf_counter()
            result = await orchestrator.handle_impulse(body, user, "s")
            await crystallizer.crystallize(result.impulse_id)
            return (time.perf_counter() - started) * 1000

        async def fact(body: str, user: str) -> float:
            started = time.perf_counter()
            await facts.add_fact(body, user)
            return (time.perf_counter() - started) * 1000

        asyncio.run(message("warm-up: I like tea -> calm, tea::drink.", "warm"))
        asyncio.run(fact("warm-up: coffee::drink", "warm"))
        rss0 = _rss_mb()
        e0, c0 = _counts(memory)
        cycle_ms = asyncio.run(message(text, "u-cycle"))
        e1, c1 = _counts(memory)
        fact_ms = asyncio.run(fact(" ".join(text.split())[:length], "u-fact"))
        e2, c2 = _counts(memory)
        return {
            "shape": shape,
            "chars": len(text),
            "cycle_ms": cycle_ms,
            "cycle_edges": e1 - e0,
            "cycle_concepts": c1 - c0,
            "fact_ms": fact_ms,
            "fact_edges": e2 - e1,
            "fact_concepts": c2 - c1,
            "rss_growth_mb": _rss_mb() - rss0,
        }


def _measure(shape: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.worst_case", "--child", shape],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(quick: bool) -> dict[str, Any]:
    shapes = QUICK if quick else list(SHAPES)
    measured = {shape: _measure(shape) for shape in shapes}
    rows: list[dict[str, Any]] = []
    for shape, m in measured.items():
        if "baseline" in shape:
            continue
        base = measured["ordinary (baseline)" if m["chars"] > SHORT else "ordinary 4.9 kB (baseline)"]
        label = f"{shape} ({m['chars']:,} chars)"
        rows += [
            row(
                f"cycle + crystallize ms: {label}",
                m["cycle_ms"],
                base["cycle_ms"],
                "ms",
                "raw = ordinary text",
            ),
            row(f"edges written by the cycle: {label}", m["cycle_edges"], base["cycle_edges"], "edges"),
            row(
                f"concepts made by the cycle: {label}",
                m["cycle_concepts"],
                base["cycle_concepts"],
                "nodes",
                f"cap {MAX_LINKED_CONCEPTS} (plan) + {MAX_CRYSTAL_CONCEPTS} (crystal)",
            ),
            row(
                f"!fact ms: {label}", m["fact_ms"], base["fact_ms"], "ms", "raw = the ordinary text as a fact"
            ),
            row(
                f"edges written by !fact: {label}",
                m["fact_edges"],
                base["fact_edges"],
                "edges",
                f"cap {MAX_NOTATION_TRIPLES} relations + {MAX_FACT_CONCEPTS} links",
            ),
            row(
                f"concepts made by !fact: {label}",
                m["fact_concepts"],
                base["fact_concepts"],
                "nodes",
                f"cap {MAX_FACT_CONCEPTS}",
            ),
            row(f"peak memory growth: {label}", m["rss_growth_mb"], base["rss_growth_mb"], "MB"),
        ]
    return {"name": "worst-case", "params": {"shapes": shapes}, "measured": measured, "rows": rows}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2])))
    else:
        standalone_main("worst-case", run, __doc__, "every shape (about 10 minutes)")
