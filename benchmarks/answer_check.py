"""The answer check (services/prompts/answer_check.py) with the real offline models.

Each line of ``benchmarks/scenarios/answer_check.json`` is read with its question by the check
as the answer paths read it (services/cycle/answer_reading.py, ``AnswerReading.answers``) and
compared with whether it states what is asked (labelled by hand). A line that does not, read as
answering, is a confident wrong answer; a line that does, read as not, is an "I don't know".

    python -m benchmarks.answer_check [--model 0.5b|1.5b|endpoint]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from benchmarks.claims import build_model
from services.cycle.answer_reading import AnswerReading
from services.prompts import answer_check as prompt

SCENARIOS = Path(__file__).parent / "scenarios" / "answer_check.json"


async def run(model_name: str) -> dict[str, object]:
    cases = json.loads(SCENARIOS.read_text(encoding="utf-8"))["cases"]
    reading = AnswerReading(build_model(model_name), timeout_s=120)
    rows: list[dict[str, object]] = []
    for case in cases:
        started = time.perf_counter()
        says, _ = await reading.answers(case["question"], case["line"])
        seconds = time.perf_counter() - started
        right = says == case["answers"]
        rows.append({**case, "read_as_answering": says, "right": right, "seconds": round(seconds, 2)})
        print(f"{'ok   ' if right else 'WRONG'} {says!s:5} {case['question']} | {case['line'][:90]}")
    summary = {
        "model": model_name,
        "prompt": f"{prompt.PROMPT.id.value}/{prompt.PROMPT.version}",
        "right": sum(1 for r in rows if r["right"]),
        "lines": len(rows),
        "wrongly_answering": sum(1 for r in rows if r["read_as_answering"] and not r["answers"]),
        "wrongly_not_answering": sum(1 for r in rows if r["answers"] and not r["read_as_answering"]),
    }
    print(json.dumps(summary))
    return {"summary": summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1.5b", choices=["0.5b", "1.5b", "endpoint"])
    asyncio.run(run(parser.parse_args().model))


if __name__ == "__main__":
    main()
