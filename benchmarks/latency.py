"""The fast loop's latency with the offline model: time to the first answer token and to the
full answer, model calls and tokens per impulse, idle and with a CPU-bound competitor.

One process as the service runs it (the real offline model, Qwen2.5-Coder-0.5B via xllamacpp,
and the real embedded engines), warm (the model is loaded and has answered once). The memory
holds a few hundred turns of one user's conversations (seeded without the model: facts about
the user among everyday small talk). Twenty fixed questions about those facts are asked, each
in a session of its own as ``thea ask`` does, twice:

* **idle**: nothing else runs (take the heavy-run lock);
* **competitor**: a CPU-bound process (a busy loop pinned to core 0) that this benchmark starts
  before the questions and stops right after them.

Each *design* is measured in the same run: the columns are the current cycle (``ours``) and the
previous design (``raw``: three model calls before the answer, llama.cpp's default busy-wait
polling), so the ratio says what the change bought. No slow-loop worker runs (the contention
benchmark measures that).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import percentile, row, standalone_main
from thea.config import Settings, load_settings
from thea.llm.fake import StreamingFakeChatModel
from thea.models import CYCLE_STEPS
from thea.runtime import Runtime, build_runtime
from thea.runtime.assembly import build_orchestrator

USER = "bench"

#: the user's facts, one turn each (the questions below ask about them)
FACTS = [
    "My name is Ines Carvalho and I am a hydrologist.",
    "I live in Braga, in a flat above a bakery.",
    "My dog is a grey whippet called Pixel.",
    "I measure river levels for the regional water authority.",
    "My brother Rui teaches chemistry in Aveiro.",
    "I swim at the municipal pool on Wednesday evenings.",
    "The flood sensor network I maintain has forty-two stations.",
    "My favourite film is Spirited Away.",
    "I am allergic to peanuts.",
    "We replaced the old telemetry radios with LoRa modems in February.",
    "My car is a red Renault Clio from 2014.",
    "I am learning to play the accordion.",
    "The station at Ponte de Lima failed in the storm because its battery froze.",
    "My partner Sofia works as a nurse at the hospital in Guimaraes.",
    "I write my reports in LaTeX.",
    "My grandmother grew up on a farm near Viana do Castelo.",
    "I drink green tea in the morning, never coffee.",
    "Our team stand-up is at 9:30 every weekday.",
    "I want to hike the Camino Portugues next spring.",
    "I keep bees in the garden of my parents' house.",
]
FILLER = [
    "The weather has been rainy all week.",
    "I watched a documentary about volcanoes last night.",
    "Traffic on the motorway was terrible this morning.",
    "I tried a new recipe for vegetable soup.",
    "My laptop needed a long update today.",
    "The bakery downstairs sold out of bread early.",
    "I read an article about electric bikes.",
    "We had a long meeting about the budget.",
    "I cleaned the windows on Saturday.",
    "A friend recommended a podcast about history.",
    "The train was ten minutes late.",
    "I bought new running shoes.",
    "There was a concert in the square on Friday.",
]
#: 20 questions written for this benchmark (none from any evaluation data set)
QUESTIONS = [
    "What is my dog called?",
    "Where do I live?",
    "What do I do for work?",
    "What does my brother teach?",
    "When do I go swimming?",
    "How many stations does the sensor network have?",
    "What is my favourite film?",
    "What am I allergic to?",
    "What did we replace the telemetry radios with?",
    "What car do I drive?",
    "Which instrument am I learning?",
    "Why did the Ponte de Lima station fail?",
    "Where does Sofia work?",
    "What do I write my reports in?",
    "Where did my grandmother grow up?",
    "What do I drink in the morning?",
    "When is the team stand-up?",
    "Which hike do I want to do?",
    "What do I keep in my parents' garden?",
    "What is my name?",
]
TURNS = 300


def seed_turns(count: int = TURNS) -> list[str]:
    """``count`` turns: the facts spread evenly among small talk (deterministic)."""
    turns: list[str] = []
    step = max(count // len(FACTS), 1)
    for index in range(count):
        if index % step == step // 2 and index // step < len(FACTS):
            turns.append(FACTS[index // step])
        else:
            turns.append(f"{FILLER[index % len(FILLER)]} (day {index // 10 + 1})")
    return turns


@dataclass
class Sample:
    ttft_s: float
    total_s: float
    calls: int
    tokens_in: int
    tokens_out: int
    failed: list[str] = field(default_factory=list)
    steps_ms: dict[str, float] = field(default_factory=dict)


@contextlib.contextmanager
def competitor() -> Iterator[subprocess.Popen[bytes]]:
    """A busy loop pinned to core 0 for as long as the block runs; always stopped after it."""
    code = "import os\nos.sched_setaffinity(0, {0})\nwhile True:\n    pass\n"
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        time.sleep(0.5)  # let it take its core
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _seed(settings: Settings) -> None:
    """A few hundred turns written through the real cycle with a zero-latency model."""
    runtime = build_runtime(settings, llm=StreamingFakeChatModel.minimal())
    try:
        seeder = build_orchestrator(settings, runtime.memory, StreamingFakeChatModel.minimal(), jobs=None)

        async def main() -> None:
            for index, text in enumerate(seed_turns()):
                await seeder.handle_impulse(text, USER, f"seed-{index // 20}")

        asyncio.run(main())
    finally:
        runtime.close()


def _ask(runtime: Runtime, questions: list[str], label: str) -> list[Sample]:
    async def one(index: int, text: str) -> Sample:
        started = time.perf_counter()
        first: list[float] = []

        def on_token(_piece: str) -> None:
            if not first:
                first.append(time.perf_counter() - started)

        result = await runtime.orchestrator.handle_impulse(text, USER, f"{label}-{index}", on_token=on_token)
        total = time.perf_counter() - started
        return Sample(
            ttft_s=first[0] if first else total,
            total_s=total,
            calls=result.usage.calls,
            tokens_in=result.usage.tokens_in,
            tokens_out=result.usage.tokens_out,
            failed=result.failed_steps,
            steps_ms={s.step: s.duration_ms for s in result.steps},
        )

    samples = []
    for index, text in enumerate(questions):
        samples.append(asyncio.run(one(index, text)))
        time.sleep(0.3)
    return samples


def measure_design(data_dir: Path, overrides: dict[str, Any], questions: list[str]) -> dict[str, Any]:
    """Idle and competitor samples of one design on the seeded memory."""
    settings = load_settings("embedded", data_dir=data_dir, **overrides)
    runtime = build_runtime(settings)
    try:
        _ask(runtime, ["Hello, how are you?"], "warm-up")  # loads the model
        idle = _ask(runtime, questions, "idle")
        with competitor():
            busy = _ask(runtime, questions, "competitor")
        return {"idle": idle, "competitor": busy}
    finally:
        runtime.close()


#: the designs this benchmark compares (load_settings overrides)
PREVIOUS: dict[str, Any] = {
    # llama.cpp's default busy-wait, threads fixed at load, no repetition penalty
    "llm": {"poll": 50, "adapt_threads": False, "repeat_penalty": 1.0},
    # an instinct call and a planner call, the instinct unbounded in practice, 120 s step timeouts
    "cycle": {"first_look": "separate", "instinct_tokens": 256, "step_timeout_s": 120},
}
CURRENT: dict[str, Any] = {}


def _col(samples: list[Sample], attr: str) -> list[float]:
    return [float(getattr(s, attr)) for s in samples]


def _step(samples: list[Sample], step: str) -> list[float]:
    return [s.steps_ms.get(step, 0.0) for s in samples]


def rows_for(ours: dict[str, list[Sample]], raw: dict[str, list[Sample]] | None) -> list[dict[str, Any]]:
    out = []
    for phase in ("idle", "competitor"):
        mine, old = ours[phase], (raw[phase] if raw else None)
        for label, attr in (("time to first token", "ttft_s"), ("full answer", "total_s")):
            for q in (50, 95):
                base = percentile([v * 1000 for v in _col(old, attr)], q) if old else None
                out.append(
                    row(
                        f"{phase}: {label} p{q}",
                        percentile([v * 1000 for v in _col(mine, attr)], q),
                        base,
                        "ms",
                    )
                )
        for step in CYCLE_STEPS:
            base = percentile(_step(old, step), 50) if old else None
            out.append(row(f"{phase}: {step} step p50", percentile(_step(mine, step), 50), base, "ms"))
        for label, attr in (
            ("LLM calls per impulse", "calls"),
            ("prompt tokens per impulse", "tokens_in"),
            ("completion tokens per impulse", "tokens_out"),
        ):
            base = sum(_col(old, attr)) / len(old) if old else None
            out.append(row(f"{phase}: {label}", sum(_col(mine, attr)) / len(mine), base, ""))
        failed = float(sum(len(s.failed) for s in mine))
        base_failed = float(sum(len(s.failed) for s in old)) if old else None
        out.append(row(f"{phase}: failed or timed-out steps", failed, base_failed, "steps"))
    idle_p50 = percentile(_col(ours["idle"], "ttft_s"), 50)
    busy_p50 = percentile(_col(ours["competitor"], "ttft_s"), 50)
    out.append(
        row(
            "time to first token p50: competitor vs idle (current design)",
            busy_p50 * 1000,
            idle_p50 * 1000,
            "ms",
            "target: ratio <= 2",
        )
    )
    return out


def run(quick: bool, *, baseline: bool = True) -> dict[str, Any]:
    questions = QUESTIONS[:8] if quick else QUESTIONS
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="thea-bench-latency-") as tmp:
        data_dir = Path(tmp) / "data"
        _seed(load_settings("embedded", data_dir=data_dir, llm={"provider": "fake"}))
        ours = measure_design(data_dir, CURRENT, questions)
        raw = measure_design(data_dir, PREVIOUS, questions) if baseline else None
    samples = {"ours": ours, **({"raw": raw} if raw else {})}
    return {
        "name": "latency",
        "params": {
            "questions": len(questions),
            "turns": TURNS,
            "llm": "offline local",
            "competitor": "busy loop pinned to core 0",
            "cores": os.cpu_count(),
            "current": CURRENT,
            "previous": PREVIOUS,
            "load_average_before_after": [list(load_before), list(os.getloadavg())],
        },
        "rows": rows_for(ours, raw),
        "samples": {
            design: {phase: [s.__dict__ for s in values] for phase, values in phases.items()}
            for design, phases in samples.items()
        },
    }


if __name__ == "__main__":
    standalone_main("latency", run, __doc__, "all 20 questions (default: 8)")
