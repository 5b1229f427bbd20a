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
from services.common.llm_calls import ask_structured
from services.common.understanding import Act, understand
from services.cycle.reply import in_tone, reaction_shown, says_any
from services.prompts import reply as prompt
from thea.models import MessageKind

SCENARIOS = Path(__file__).parent / "scenarios" / "reactions.json"


def _shown(read: prompt.Reply, text: str) -> str:
    """What the user sees, as the synthesis step shows it (services/cycle/synthesis.py)."""
    understanding = understand(text)
    tells = understanding.kind is MessageKind.STATEMENT
    small_talk = " ".join(understanding.texts(Act.SMALL_TALK)) if tells else None
    shown = reaction_shown(read, text, "", small_talk)
    return shown.text if shown is not None else ""


#: words of sorrow: a plain fact or a correction of a slip never gets one (first contact set 11:
#: "I'm sorry to hear that." to a corrected date)
SORROW = ("sorry", "sad", "oh no")


def fits(shown: str, feeling: str) -> bool:
    """A reaction shown in a tone that fits how the message feels to its writer (labelled by
    hand): it does not cheer bad news, pity good news, nor offer sorrow for a neutral one."""
    if feeling == "neutral":
        return not says_any(shown, SORROW)
    return in_tone(shown, prompt.Feeling(feeling)) is not None


async def run(model_name: str, sets: list[str]) -> dict[str, object]:
    data = json.loads(SCENARIOS.read_text(encoding="utf-8"))
    feelings: dict[str, str] = data["feelings"]
    llm = build_model(model_name)
    rows: list[dict[str, object]] = []
    for name in sets:
        for text in data["sets"][name]:
            started = time.perf_counter()
            read, _ = await ask_structured(
                llm,
                prompt.Reply,
                prompt.build(text),
                prompt.PROMPT,
                timeout_s=120,
                max_tokens=prompt.MAX_TOKENS,
            )
            seconds = time.perf_counter() - started
            shown = _shown(read, text)
            row = {
                "set": name,
                "message": text,
                "feeling": read.feeling.value,
                "labelled": feelings[text],
                "raw": read.reply,
                "shown": shown,
                "fits": bool(shown) and fits(shown, feelings[text]),
                "seconds": round(seconds, 2),
            }
            rows.append(row)
            print(
                f"[{name}] {text}\n    model ({read.feeling.value}, labelled {feelings[text]}):"
                f" {read.reply!r}"
                f"\n    shown: {shown!r}  ({seconds:.1f} s)"
            )
    timings = sorted(float(str(r["seconds"])) for r in rows)
    summary = {
        "model": model_name,
        "prompt": f"{prompt.PROMPT.id.value}/{prompt.PROMPT.version}",
        "shown": sum(1 for r in rows if r["shown"]),
        "shown_in_a_fitting_tone": sum(1 for r in rows if r["fits"]),
        "feeling_as_labelled": sum(1 for r in rows if r["feeling"] == r["labelled"]),
        "messages": len(rows),
        "median_s": timings[len(timings) // 2] if timings else 0.0,
    }
    print(json.dumps(summary))
    return {"summary": summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1.5b", choices=["0.5b", "1.5b", "endpoint"])
    parser.add_argument(
        "--sets", nargs="*", default=["persona_a", "persona_b", "constraints", "changes", "endings"]
    )
    args = parser.parse_args()
    asyncio.run(run(args.model, args.sets))


if __name__ == "__main__":
    main()
