"""Documents answered from their text (issue 38, item 3): a text is pasted into a chat, then
questions about it are asked in another conversation, with the real offline models.

Each file of ``benchmarks/scenarios/documents/`` is one text (a school letter, a timetable, a
recipe, terms ...) with six questions: five whose answer the text states (``expected``: the
strings a right answer holds, as the text writes them) and one it does not (right: the answer
says the text does not say, or that thea does not know). The files were written blind, by a
helper that never saw thea's code, before the code met them.

    python -m benchmarks.documents [--files doc01 doc02] [--out benchmarks/results]

Prints one line per question and the share right; writes a JSON report. A fresh data
directory per run; each text is told by its own user.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from thea.config import load_settings
from thea.runtime import build_runtime

SCENARIOS = Path(__file__).parent / "scenarios" / "documents"
RESULTS = Path(__file__).parent / "results"
#: what an answer that says the text does not state it holds (any of these)
NOT_SAID = re.compile(
    r"can't find|cannot find|doesn't say|does not say|don't know|do not know|not (?:mentioned|stated|say)",
    re.IGNORECASE,
)


def right(answer: str, expected: Sequence[str], stated: bool) -> bool:
    if not stated:
        return bool(NOT_SAID.search(answer))
    low = answer.lower()
    return all(e.lower() in low for e in expected) and not NOT_SAID.search(answer)


async def run(files: Sequence[Path], quiet: bool) -> dict[str, object]:
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="thea-docs-") as tmp:
        settings = load_settings("embedded", data_dir=Path(tmp) / "data")
        rt = build_runtime(settings)
        try:
            for path in files:
                doc = json.loads(path.read_text(encoding="utf-8"))
                user = path.stem
                await rt.orchestrator.handle_impulse(doc["document"], user, "pasted")
                for q in doc["questions"]:
                    started = time.perf_counter()
                    result = await rt.orchestrator.handle_impulse(q["q"], user, "asked")
                    ok = right(result.answer, q["expected"], q["stated"])
                    rows.append(
                        {
                            "file": path.stem,
                            "question": q["q"],
                            "stated": q["stated"],
                            "expected": q["expected"],
                            "answer": result.answer,
                            "right": ok,
                            "seconds": round(time.perf_counter() - started, 1),
                        }
                    )
                    if not quiet:
                        mark = "OK " if ok else "NO "
                        print(f"{mark} {path.stem} {q['q']!r} -> {result.answer!r}", flush=True)
        finally:
            rt.close()
    stated = [r for r in rows if r["stated"]]
    unstated = [r for r in rows if not r["stated"]]
    return {
        "questions": len(rows),
        "right": sum(1 for r in rows if r["right"]),
        "stated_right": f"{sum(1 for r in stated if r['right'])}/{len(stated)}",
        "not_stated_right": f"{sum(1 for r in unstated if r['right'])}/{len(unstated)}",
        "rows": rows,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", nargs="*", default=[], help="only these files (doc01 ...)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the report")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    files = sorted(SCENARIOS.glob("*.json"))
    if args.files:
        files = [f for f in files if f.stem in set(args.files)]
    report = asyncio.run(run(files, args.quiet))
    right, questions = int(str(report["right"])), int(str(report["questions"]))
    share = right / max(questions, 1)
    print(
        f"right: {report['right']}/{report['questions']} ({share:.0%}); stated {report['stated_right']}, "
        f"not stated {report['not_stated_right']}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"documents-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
