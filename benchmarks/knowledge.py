"""Knowledge quality: does thea remember what it was told, invent nothing, and admit what it never heard?

A scripted conversation written for this benchmark (a fictional person; no evaluation data):
statements about the person, their work, places and dates, then questions about them and
questions about things never said. It runs through the real cycle and the real slow loop
(crystallize jobs on an in-process worker) with the offline model (``--model fake``: a smoke
run without a model). Counts:

* **correct answers**: the answer names the expected word;
* **invented facts in acknowledgements**: an answer to a statement holding words the user did
  not say (the template's own words aside);
* **invented names in answers**: capitalised words in an answer to a question that occur in
  no statement and no question;
* **never-said questions answered "I don't know"**;
* **unsupported active insights**: active insights with a sentence whose content words are not
  (75 %) in the whole conversation: what recall would hand out as knowledge the user never gave;
* **evidence coverage**: insights that carry evidence, and insights stored unverified.

Targets: 0 unsupported active insights; 0 invented facts in acknowledgements.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import console, result_table, row, write_json
from services.common.statements import sentences
from services.reflection.grounding import content_terms
from services.views.insights import list_insights
from thea.config import load_settings
from thea.runtime import build_runtime
from thea.tuning import MIN_LEXICAL
from thea.words import lower_words
from thea.words import words as read_words

USER = "ines"
STATEMENTS = [
    "My name is Ines Okafor.",
    "I work as a hydrologist at the Lakeside Water Institute.",
    "I live in Tromso with my partner Jonas.",
    "My daughter Mira started school in August 2024.",
    "I am building a flood-warning app called Riverbell.",
    "Riverbell runs on a small computer next to the Tana river.",
    "I have a grey cat named Pepper.",
    "On Saturdays I go cross-country skiing.",
]
QUESTIONS = [
    ("What is my name?", ("ines", "okafor")),
    ("Where do I work?", ("lakeside",)),
    ("What is my partner called?", ("jonas",)),
    ("What is my cat called?", ("pepper",)),
    ("What is the app I am building called?", ("riverbell",)),
    ("Which river is Riverbell next to?", ("tana",)),
    ("Where do I live?", ("tromso",)),
    ("What do I do on Saturdays?", ("ski",)),
]
NEVER_SAID = [
    "What is my brother's name?",
    "Which car do I drive?",
    "What is my favourite band?",
    "Where did I go to university?",
]
TEMPLATE_WORDS = {"noted", "your", "you", "you're", "i'll", "remember", "that", "are", "were", "i"}
_NOT_KNOWING = re.compile(
    r"\b(don't|do not|doesn't|cannot|can't|not sure|no (information|record|memory|details?))\b"
    r"|\b(not|never) (mentioned|told|said|shared|know)\b|\bunknown\b|\bno idea\b",
    re.IGNORECASE,
)


def _words(text: str) -> set[str]:
    return set(lower_words(text))


def _names(text: str) -> set[str]:
    """Capitalised words not at a sentence start: the names an answer mentions."""
    out: set[str] = set()
    for sentence in sentences(text):
        words = read_words(sentence)
        out |= {w.lower() for w in words[1:] if w[:1].isupper() and w.lower() != "i"}
    return out


def _unsupported(text: str, said: set[str]) -> bool:
    for claim in sentences(text) or [text]:
        terms = content_terms(claim)
        if terms and sum(t in said for t in terms) / len(terms) < MIN_LEXICAL:
            return True
    return False


def measure(model: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="thea-bench-knowledge-") as tmp:
        settings = load_settings("embedded", data_dir=Path(tmp) / "data", llm={"provider": model})
        runtime = build_runtime(settings)
        log: list[dict[str, Any]] = []
        started = time.perf_counter()
        try:

            async def say(text: str, session: str) -> str:
                result = await runtime.orchestrator.handle_impulse(text, USER, session)
                log.append({"said": text, "answer": result.answer})
                return result.answer

            acks = [asyncio.run(say(s, "tell")) for s in STATEMENTS]
            runtime.run_jobs()  # the slow loop: crystallize every exchange
            answers = [asyncio.run(say(q, "ask")) for q, _ in QUESTIONS]
            unknown = [asyncio.run(say(q, "ask")) for q in NEVER_SAID]
            runtime.run_jobs()
            insights = [
                r.insight for r in list_insights(runtime.memory, user_id=USER, state="all", limit=1000)
            ]
        finally:
            runtime.close()
        seconds = time.perf_counter() - started
    told = " ".join(STATEMENTS)
    said_words = (
        _words(told)
        | {w for q, _ in QUESTIONS for w in _words(q)}
        | {w for q in NEVER_SAID for w in _words(q)}
    )
    said_terms = set(content_terms(told))
    invented_acks = [
        a for a, s in zip(acks, STATEMENTS, strict=True) if _words(a) - _words(s) - TEMPLATE_WORDS
    ]
    correct = [
        a
        for a, (_, expected) in zip(answers, QUESTIONS, strict=True)
        if any(e in a.lower() for e in expected)
    ]
    invented_names = sorted({n for a in answers + unknown for n in _names(a) - said_words})
    admitted = [a for a in unknown if _NOT_KNOWING.search(a)]
    active = [k for k in insights if k.active]
    unsupported = [k for k in active if _unsupported(k.content, said_terms)]
    with_evidence = [k for k in insights if k.evidence]
    unverified = [k for k in insights if k.verification == "unverified"]
    rows = [
        row(
            "correct answers",
            len(correct),
            float(len(QUESTIONS)),
            "answers",
            "of the questions about what was said",
        ),
        row(
            "invented facts in acknowledgements",
            len(invented_acks),
            float(len(STATEMENTS)),
            "answers",
            "target 0",
        ),
        row("invented names in answers", len(invented_names), None, "names", ", ".join(invented_names[:8])),
        row("never-said questions answered 'I don't know'", len(admitted), float(len(NEVER_SAID)), "answers"),
        row(
            "unsupported insights stored active", len(unsupported), float(len(active)), "insights", "target 0"
        ),
        row("insights with evidence", len(with_evidence), float(len(insights)), "insights"),
        row("insights stored unverified", len(unverified), float(len(insights)), "insights"),
        row("run time", seconds, None, "s", f"model {model}"),
    ]
    return {
        "name": "knowledge",
        "params": {
            "model": model,
            "statements": len(STATEMENTS),
            "questions": len(QUESTIONS) + len(NEVER_SAID),
        },
        "rows": rows,
        "log": log,
        "insights": [
            {
                "content": k.content,
                "active": k.active,
                "verification": k.verification,
                "reason": k.verification_reason,
            }
            for k in insights
        ],
    }


def run(quick: bool) -> dict[str, Any]:
    del quick  # one size: the conversation is short
    return measure("local")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "knowledge").splitlines()[0])
    parser.add_argument("--model", default="local", choices=["local", "fake"], help="fake: a smoke run")
    args = parser.parse_args()
    result = measure(args.model)
    console.print(result_table(result))
    for entry in result["log"]:
        console.print(f"[dim]{entry['said']}[/] -> {entry['answer']}", highlight=False, markup=False)
    console.print(json.dumps(result["insights"], indent=1, ensure_ascii=False), markup=False)
    console.print(f"results: {write_json(result, 'knowledge')}")


if __name__ == "__main__":
    main()
