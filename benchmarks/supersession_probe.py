"""The supersession judge on pairs of claims (services/prompts/supersession.py).

``benchmarks/claims_data/supersession_probe.json`` holds pairs of an earlier and a newer claim of
one attribute, each with the user's words, and the decision a careful reader makes (same,
replaces, adds, unrelated), written before the prompt it first measured. Each pair is asked
once with the product's prompt and model, as the claims keeper asks it; the score is per
decision. A wrong "replaces" hides a current truth from every answer about now; a wrong "adds"
leaves a stale value current.

``supersession_probe_attributes.json`` holds pairs under different attributes (a change's
candidates under a near attribute, which only the judge may close), written before prompt v4.
With ``--fits``, a pair under different attributes the judge calls replaced is closed only when
the newer quote, asked for the earlier attribute, answers the newer value (value_check.py), as
supersession does (services/knowledge/claims/supersession.py, ``_may_close``).

``python -m benchmarks.supersession_probe [--model 0.5b|1.5b|openai] [--data FILE] [--fits]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from benchmarks.claims import build_model
from services.common.llm_calls import ask_structured
from services.knowledge.claims.value_check import answers_its_label
from services.prompts import supersession as pairing
from services.prompts.extract_claims import ClaimKind, ClaimOut

DATA = Path(__file__).parent / "claims_data" / "supersession_probe.json"


class ProbePair(BaseModel):
    earlier: str
    earlier_quote: str
    newer: str
    newer_quote: str
    decision: pairing.PairDecision


def _label(claim: str) -> str:
    """The attribute of a claim line as shown ("Your job: nurse." -> "job")."""
    return claim.split(":", 1)[0].removeprefix("Your ").strip()


async def _fits(llm: BaseChatModel, p: ProbePair) -> bool:
    """The newer quote, asked for the earlier claim's attribute, answers the newer value."""
    value = p.newer.split(":", 1)[1].strip().rstrip(".")
    asked = ClaimOut(
        quote=p.newer_quote,
        subject="user",
        relation="self",
        attribute=_label(p.earlier),
        value=value,
        when="",
        kind=ClaimKind.REPLACES,
    )
    fits, _ = await answers_its_label(llm, asked, True, p.newer_quote, 120)
    return fits


async def run(model: str, data: Path = DATA, fits: bool = False) -> tuple[Counter[str], Counter[str]]:
    """(right per decision, pairs per decision)."""
    llm = build_model(model)
    pairs = [ProbePair(**p) for p in json.loads(data.read_text())["pairs"]]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for p in pairs:
        shown = pairing.pair_text(p.earlier, p.earlier_quote, "3 March", p.newer, p.newer_quote, "9 June")
        out, _ = await ask_structured(
            llm, pairing.PairOutput, pairing.build(shown), pairing.PROMPT, timeout_s=120, max_tokens=24
        )
        decision = out.decision
        if fits and decision is pairing.PairDecision.REPLACES and _label(p.earlier) != _label(p.newer):
            decision = decision if await _fits(llm, p) else pairing.PairDecision.UNRELATED
        total[p.decision.value] += 1
        ok = decision is p.decision
        right[p.decision.value] += ok
        print(f"{'ok' if ok else 'XX'} {p.decision.value:9} got {decision.value:9} | {p.newer_quote}")
    return right, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1.5b", help="0.5b, 1.5b or openai")
    parser.add_argument("--data", type=Path, default=DATA, help="the pairs (JSON)")
    parser.add_argument(
        "--fits", action="store_true", help="check a cross-attribute replace as the keeper does"
    )
    args = parser.parse_args()
    right, total = asyncio.run(run(args.model, args.data, args.fits))
    for decision in sorted(total):
        print(f"{decision:9} {right[decision]}/{total[decision]}")
    score = f"{sum(right.values())}/{sum(total.values())}"
    print(f"prompt {pairing.PROMPT.id.value} v{pairing.PROMPT.version}: {score}")


if __name__ == "__main__":
    main()
