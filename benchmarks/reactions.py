"""Reactions to statements and small talk (issue 38, item 1), with the real offline models.

Each message of ``benchmarks/scenarios/reactions.json`` is given to the reply prompt
(``services/prompts/reply.py``) and the model's reaction to the checks of
``services/cycle/reply.py``: shown (the share a user sees a reaction in the model's own
words), or the plain acknowledgement. Prints every message, the raw reaction and what is shown,
so the shown ones can be read as a user would.

    python -m benchmarks.reactions [--model 0.5b|1.5b] [--sets persona_a persona_b constraints]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from benchmarks.claims import build_model
from services.common.llm_calls import ask_text
from services.common.understanding import Act, understand
from services.cycle.reply import checked_reply
from services.prompts import reply as prompt
from thea.models import MessageKind

SCENARIOS = Path(__file__).parent / "scenarios" / "reactions.json"


async def run(model_name: str, sets: list[str]) -> dict[str, object]:
    data = json.loads(SCENARIOS.read_text(encoding="utf-8"))["sets"]
    llm = build_model(model_name)
    rows: list[dict[str, object]] = []
    for name in sets:
        for text in data[name]:
            understanding = understand(text)
            started = time.perf_counter()
            raw, _ = await ask_text(
                llm, prompt.build(text), prompt.PROMPT, timeout_s=120, max_tokens=prompt.MAX_TOKENS
            )
            seconds = time.perf_counter() - started
            tells = understanding.kind is MessageKind.STATEMENT
            small_talk = " ".join(understanding.texts(Act.SMALL_TALK)) if tells else None
            shown = checked_reply(raw, text, "", small_talk)
            rows.append(
                {"set": name, "message": text, "raw": raw, "shown": shown, "seconds": round(seconds, 2)}
            )
            print(f"[{name}] {text}\n    model: {raw!r}\n    shown: {shown!r}  ({seconds:.1f} s)")
    shown_count = sum(1 for r in rows if r["shown"])
    timings = sorted(float(str(r["seconds"])) for r in rows)
    summary = {
        "model": model_name,
        "prompt": f"{prompt.PROMPT.id.value}/{prompt.PROMPT.version}",
        "shown": shown_count,
        "messages": len(rows),
        "median_s": timings[len(timings) // 2] if timings else 0.0,
    }
    print(json.dumps(summary))
    return {"summary": summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1.5b", choices=["0.5b", "1.5b", "endpoint"])
    parser.add_argument("--sets", nargs="*", default=["persona_a", "persona_b", "constraints"])
    args = parser.parse_args()
    asyncio.run(run(args.model, args.sets))


if __name__ == "__main__":
    main()
