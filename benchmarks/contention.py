"""Foreground first: interactive questions while the slow loop has a backlog, with the offline model.

One process as the service runs it: the real offline model (Qwen2.5-Coder-0.5B via xllamacpp),
one in-process slow-loop worker, the real embedded engines. The memory holds 20 short
exchanges (seeded without the model). The same questions are asked twice, a short pause
between them as a user would leave:

* **idle**: the queue is empty (the baseline, measured in the same run);
* **backlog**: 20 crystallize jobs were queued and one is running when the first question
  arrives; the worker picks the next job up in every pause, so each question lands on a busy
  model.

For each question: time to the first answer token and to the full answer. Rows: the backlog's
p50 and p95 beside the idle ones (target: p50 ratio <= 1.3). ``--full`` adds the previous
design's behaviour (no gate: a question waits behind whatever the worker is generating) as a
third column.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentile, row, standalone_main
from thea.config import load_settings
from thea.llm.fake import StreamingFakeChatModel
from thea.runtime import Runtime, build_runtime
from thea.runtime.assembly import build_orchestrator
from workers.admin import queue_counts

USER = "bench"
FACTS = [
    "My name is Ana Duarte.",
    "I live in Lisbon, near the river.",
    "I work as a site reliability engineer.",
    "My team runs Redis clusters for the payments service.",
    "My cat is called Tom and he is nine years old.",
    "I play the cello on Sunday mornings.",
    "My sister Marta lives in Porto.",
    "I started running last spring; I run 5 km twice a week.",
    "We migrated the job queues from RabbitMQ to Redis streams in March.",
    "My favourite book is The Left Hand of Darkness.",
    "I am learning Japanese with a tutor on Tuesdays.",
    "The on-call rotation changes every Monday at 10:00.",
    "I drink my coffee black, no sugar.",
    "Our staging cluster has three nodes.",
    "I grew up in Coimbra.",
    "My bike is a blue steel touring bike.",
    "The payments service had an outage on 3 October caused by a full disk.",
    "I keep my notes in plain Markdown files.",
    "My partner Joao is a carpenter.",
    "I want to visit Kyoto next autumn.",
]
QUESTIONS = [
    "What is my cat called?",
    "Where do I live?",
    "What does my team run?",
    "Who is Marta?",
    "When does the on-call rotation change?",
    "What instrument do I play?",
    "What caused the payments outage?",
    "What am I learning?",
    "How do I take my coffee?",
    "What is my partner's job?",
    "Where did I grow up?",
    "What book do I like most?",
]


class NeverBusy:
    """The previous design: no gate (background work never yields)."""

    def enter(self, key: str) -> None: ...

    def leave(self, key: str) -> None: ...

    def busy(self) -> bool:
        return False

    def wait_quiet(self, timeout_s: float) -> bool:
        return True


def _seed(runtime: Runtime, session: str) -> list[str]:
    """20 exchanges written through the real cycle with a zero-latency model (no model time),
    not yet crystallized (so each one's crystallize job really uses the model)."""
    seeder = build_orchestrator(runtime.settings, runtime.memory, StreamingFakeChatModel.minimal(), jobs=None)

    async def main() -> list[str]:
        return [(await seeder.handle_impulse(f, USER, session)).impulse_id for f in FACTS]

    return asyncio.run(main())


def _crystallize_running(runtime: Runtime) -> int:
    return sum(c.started for c in queue_counts(runtime.jobs.connection) if c.name == "thea-crystallize")


def _finished(runtime: Runtime) -> int:
    return sum(c.finished for c in queue_counts(runtime.jobs.connection) if c.name == "thea-crystallize")


def _ask_all(
    runtime: Runtime, questions: list[str], pause_s: float, session: str
) -> list[tuple[float, float]]:
    """(seconds to first token, seconds to full answer) per question."""

    async def one(text: str) -> tuple[float, float]:
        started = time.perf_counter()
        first: list[float] = []

        def on_token(_piece: str) -> None:
            if not first:
                first.append(time.perf_counter() - started)

        await runtime.orchestrator.handle_impulse(text, USER, session, on_token=on_token)
        total = time.perf_counter() - started
        return (first[0] if first else total), total

    timings = []
    for text in questions:
        timings.append(asyncio.run(one(text)))
        time.sleep(pause_s)  # the user reads the answer: the slow loop gets the model meanwhile
    return timings


def _backlog(runtime: Runtime, impulses: list[str]) -> None:
    for impulse in impulses:
        runtime.jobs.enqueue_crystallize(impulse, USER, "seed")
    deadline = time.monotonic() + 120
    while _crystallize_running(runtime) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)


def _p(values: list[float], q: float) -> float:
    return percentile(values, q)


def measure(questions: int, pause_s: float, without_gate: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="thea-bench-contention-") as tmp:
        settings = load_settings("embedded", data_dir=Path(tmp) / "data", queue={"job_timeout_s": 900})
        runtime = build_runtime(settings)
        try:
            runtime.start_background_worker(1)
            impulses = _seed(runtime, "seed-1")
            _ask_all(runtime, QUESTIONS[:1], 0.0, "warm-up")  # loads the model
            asked = QUESTIONS[:questions]
            out: dict[str, Any] = {"idle": _ask_all(runtime, asked, pause_s, "idle")}
            before = _finished(runtime)
            _backlog(runtime, impulses)
            out["backlog"] = _ask_all(runtime, asked, pause_s, "backlog")
            out["jobs_done_meanwhile"] = _finished(runtime) - before
            if without_gate:
                runtime.orchestrator.gate = None
                for worker in runtime.workers:
                    worker.gate = None
                runtime.background_llm.gate = NeverBusy()  # type: ignore[attr-defined]
                _backlog(runtime, _seed(runtime, "seed-2"))
                out["no_gate"] = _ask_all(runtime, asked, pause_s, "no-gate")
            return out
        finally:
            runtime.close()


def run(quick: bool) -> dict[str, Any]:
    questions = 6 if quick else 12
    pause_s = 1.5
    m = measure(questions, pause_s, without_gate=not quick)
    idle, backlog = m["idle"], m["backlog"]
    rows = []
    for label, index in (("time to first token", 0), ("full answer", 1)):
        base = [t[index] * 1000 for t in idle]
        busy = [t[index] * 1000 for t in backlog]
        rows.append(row(f"{label} p50, 20-job backlog vs idle queue", _p(busy, 50), _p(base, 50), "ms"))
        rows.append(row(f"{label} p95, 20-job backlog vs idle queue", _p(busy, 95), _p(base, 95), "ms"))
        if "no_gate" in m:
            old = [t[index] * 1000 for t in m["no_gate"]]
            rows.append(
                row(
                    f"{label} p50 without foreground-first vs idle",
                    _p(old, 50),
                    _p(base, 50),
                    "ms",
                    "the previous design: questions wait behind the running job",
                )
            )
    rows.append(
        row(
            "crystallize jobs finished during the backlog questions",
            float(m["jobs_done_meanwhile"]),
            None,
            "jobs",
            f"{questions} questions, {pause_s:g} s pause after each",
        )
    )
    return {
        "name": "contention",
        "params": {"questions": questions, "pause_s": pause_s, "backlog": len(FACTS), "llm": "offline local"},
        "rows": rows,
    }


if __name__ == "__main__":
    standalone_main("contention", run, __doc__, "12 questions and the previous design's column")
