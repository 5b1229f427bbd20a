"""LLM verification of an insight's claims, for models strong enough to judge them.

``knowledge.verify_with_llm``: ``on``, ``off`` or ``auto`` (default: on for a configured remote
model, ``openai`` or ``ollama``; off for the offline 0.5B ``local`` model, which judges no
better than the lexical check, and for the ``fake`` one). The model sees the insight's evidence
only inside the marked reference block and the claims neutralised; one structured call per
insight gives one verdict per claim.

Its verdict can only make a claim **stricter**: a claim the lexical and embedding check
(services/reflection/grounding.py) rejected is never asked about and stays unsupported; a supported claim
the model calls unsupported becomes unsupported with the reason "the model found no support in
the evidence". When the model fails or answers with the wrong number of verdicts, the offline
verdict stands (logged).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from services.common.llm_calls import ask_structured
from services.prompts import verify_claims as prompt
from services.reflection.grounding import Verdict
from thea.models import Claim

log = logging.getLogger(__name__)

#: the reason a claim gets when the model finds no support for it
MODEL_REASON = "the model found no support in the evidence"
REMOTE_PROVIDERS = frozenset({"openai", "ollama"})


def verification_enabled(mode: str, provider: str) -> bool:
    """``on``/``off`` as said; ``auto`` is on for configured remote models only."""
    return mode == "on" or (mode == "auto" and provider in REMOTE_PROVIDERS)


def stricter(verdict: Verdict, judged: Sequence[Claim]) -> Verdict:
    """The verdict again from its (possibly stricter) claims: unsupported if any claim is."""
    weakest = min(judged, key=lambda c: (c.status == "supported", c.support), default=None)
    supported = bool(judged) and all(c.status == "supported" for c in judged)
    reason = "" if supported or weakest is None else weakest.reason
    support = min((c.support for c in judged), default=0.0)
    return Verdict(supported, support, reason, verdict.evidence, list(judged))


async def verify_with_model(llm: BaseChatModel, verdict: Verdict, *, timeout_s: float) -> Verdict:
    """Ask the model about the claims the offline check supported; only ever stricter."""
    asked = [c for c in verdict.claims if c.status == "supported"]
    if not asked or not verdict.evidence:
        return verdict
    evidence = [(e.source_id, e.kind, e.quote) for e in verdict.evidence]
    try:
        out, _ = await ask_structured(
            llm, prompt.VerifyOutput, prompt.build([c.text for c in asked], evidence), prompt.PROMPT,
            timeout_s=timeout_s,
        )  # fmt: skip
    except Exception as exc:  # any model or transport error: the step is optional
        log.warning("claim verification by the model failed (%s); the offline verdict stands", exc)
        return verdict
    if len(out.verdicts) != len(asked):
        log.warning("claim verification returned %d verdicts for %d claims", len(out.verdicts), len(asked))
        return verdict
    rejected = {id(c) for c, v in zip(asked, out.verdicts, strict=True) if v == "unsupported"}
    judged = [
        c.model_copy(update={"status": "unsupported", "reason": MODEL_REASON}) if id(c) in rejected else c
        for c in verdict.claims
    ]
    return stricter(verdict, judged) if rejected else verdict
