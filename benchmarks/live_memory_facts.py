"""The live-memory scenarios answered from the facts of record alone: no service, no model, seconds.

```bash
python -m benchmarks.live_memory_facts                                # the development file
python -m benchmarks.live_memory_facts benchmarks/scenarios/*.json    # every scenario file
```

Each persona's messages are read as thea reads them (statements only: questions and requests
tell nothing), one message a day: their facts of record are extracted, superseded facts closed
(`services/knowledge/record`), and each question is answered by `services/cycle/from_facts.py` as
the synthesis step would ("before" questions from the earlier facts). A question is **right** or
**wrong** by the scenario's expect/forbid phrases, or **to the model** when no fact answers it
plainly (the real cycle then asks the model with the facts in its prompt, or says "I don't
know"). It measures the reading, the supersession rules and the matching without the model's
noise; `benchmarks/live_memory.py` is the whole product through its API.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.live_memory import Persona, default_data, load_scenarios, score_answer
from services.common.understanding import asks_history, understand
from services.cycle.from_facts import answer_from_facts
from services.knowledge.record.extraction import extract_facts
from services.knowledge.record.keeper import build_facts, inherit_slots, superseded_by
from thea.models import Fact, FactOrigin

DAY_MS = 86_400_000
START_MS = 1_767_225_600_000  # 2026-01-01


@dataclass(frozen=True)
class Outcome:
    persona: str
    question: str
    #: "right", "wrong" or "model"
    verdict: str
    answer: str = ""


def replay(messages: Sequence[str], start_ms: int = START_MS) -> list[Fact]:
    """Every fact of record the messages leave, one message a day, superseded ones closed as
    the fact keeper closes them (``valid_until``: when the newer fact was said)."""
    facts: list[Fact] = []
    for day, message in enumerate(messages):
        said_at = start_ms + day * DAY_MS
        extracted = extract_facts(message)
        new = build_facts(
            extracted, source_id=f"m{day}", user_id="u", session_id="s", said_at=said_at,
            origin=FactOrigin.SAID,
        )  # fmt: skip
        closed = superseded_by(new, extracted, [f for f in facts if f.valid_until is None])
        new = inherit_slots(new, extracted, closed)
        by = {s.fact.id: s.by for s in closed}
        facts = [
            f.model_copy(update={"valid_until": said_at, "superseded_by": by[f.id]}) if f.id in by else f
            for f in facts
        ] + new
    return facts


def told_facts(persona: Persona) -> list[Fact]:
    """The facts of record the persona's messages leave, as the cycle reads them: the statements
    and fragments of each message (questions and requests tell nothing; "I'm vegan - can you
    suggest a dinner?" tells that the user is vegan)."""
    return replay([" ".join(understand(m.text).told) for m in persona.messages])


def answer_persona(persona: Persona) -> list[Outcome]:
    facts = told_facts(persona)
    now = [f for f in facts if f.valid_until is None]
    earlier = [f for f in facts if f.valid_until is not None]
    out: list[Outcome] = []
    for question in persona.questions:
        before = asks_history(question.q)
        found = answer_from_facts(
            question.q,
            [],
            earlier if before else now,
            earlier=before,
            history=[] if before else earlier,
            current=now if before else [],
        )
        if found is None:
            out.append(Outcome(persona.id, question.q, "model"))
            continue
        right = score_answer(found.text, question.expect, question.forbid).right
        out.append(Outcome(persona.id, question.q, "right" if right else "wrong", found.text))
    return out


def run(paths: Sequence[Path]) -> list[Outcome]:
    return [o for path in paths for p in load_scenarios(path).personas for o in answer_persona(p)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("files", nargs="*", type=Path, help="scenario files (default: the development file)")
    parser.add_argument("--all", action="store_true", help="list every question, not only the wrong ones")
    args = parser.parse_args(argv)
    outcomes = run(args.files or [default_data()])
    for o in outcomes:
        if args.all or o.verdict == "wrong":
            print(f"{o.verdict:5}  {o.persona:12}  {o.question}" + (f"  =>  {o.answer}" if o.answer else ""))
    counts = Counter(o.verdict for o in outcomes)
    print(
        f"{len(outcomes)} questions: {counts['right']} right and {counts['wrong']} wrong from the facts "
        f"alone, {counts['model']} left to the model"
    )
    return 1 if counts["wrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
