"""What the answering model is given: the claims that match a message (current ones, earlier
ones marked with when they stopped being true, changes told ahead), as prompt lines with the
user's own dated words, and the recalled memories that fit the prompt's budget; and what is
added to a model's "I don't know" about something it was given."""

from __future__ import annotations

import re
from collections.abc import Sequence

from services.common.dates import resolve_relative, when_text
from services.common.statements import lower_first
from services.common.timeline import planned_line
from services.cycle.budget import pack
from services.cycle.fact_match import held_stems, match_claims
from services.cycle.from_facts import told_sentence
from services.prompts import BaseMessage, PromptSpec, ReferenceItem
from services.prompts import synthesis as prompt
from services.recall.types import RecallHit
from thea.models import Fact
from thea.models.step_outputs import PromptMessage, PromptRecord
from thea.tuning import RELATIVE_FLOOR

#: facts of record one answer is given at most (most related first; constraints come on top):
#: the 0.5B model mixes up people and values when given more (live-memory benchmark)
FACTS_SHOWN = 4


def reference_item(source_id: str, kind: str, text: str, when_ms: int) -> ReferenceItem:
    """One memory as the answering model sees it: dated when it happened ("on Monday 8 May
    2023"), its relative dates spelled out ("yesterday (7 May 2023)")."""
    if not when_ms:
        return ReferenceItem(source_id=source_id, kind=kind, text=text)
    return ReferenceItem(
        source_id=source_id,
        kind=kind,
        text=resolve_relative(text, when_ms),
        when=f"on {when_text(when_ms)}",
    )


def references_for(
    hits: list[RecallHit], budget_tokens: int, floor_share: float = RELATIVE_FLOOR
) -> list[ReferenceItem]:
    """Whole memories, most relevant first, as many as fit the budget; weak ones left out."""
    if hits:
        floor = max(h.score for h in hits) * floor_share
        hits = [h for h in hits if h.score >= floor]
    items = [reference_item(h.id, h.type, h.text, h.event_time or h.created_at) for h in hits]
    return pack(items, [i.text for i in items], budget_tokens)


#: an answer saying it does not know ("I don't know.", "No, I don't know.", "I'm not sure.")
NOT_KNOWN = re.compile(
    r"^\W*(?:no,?\s+)?(?:i\s+(?:don't|do\s+not|really\s+don't)\s+know|i'm\s+not\s+sure|i\s+am\s+not\s+sure"
    r"|i\s+have\s+no\s+(?:information|idea|answer)|i\s+(?:can't|cannot)\s+(?:tell|say))",
    re.IGNORECASE,
)
#: facts said before a request's answer or after a missed "I don't know", at most
TOLD_SHOWN = 2


def told_for(question: str, stored: Sequence[Fact], history: bool) -> list[Fact]:
    """The claims that plainly speak of what the message asks (about whom and of what): a word of
    the message names what the claim holds (its subject, attribute or value), not only a word
    of the sentence it was read from ("dinner ideas for this week" is not about "home: York",
    read from "got the keys … in York last week": seen live)."""
    if not question:
        return []
    wanted = [f for f in stored if (f.valid_until is not None) == history]
    return [m.fact for m in match_claims(question, wanted) if m.about and m.shared & held_stems(m.fact)][
        :TOLD_SHOWN
    ]


def missed(
    answer: str, question: str, stored: Sequence[Fact], history: bool, constraints: Sequence[Fact]
) -> str:
    """What to add to a model's "I don't know" about something it was given: the claims that
    speak of what was asked, or the constraints a question about food was given ("" otherwise)."""
    if not NOT_KNOWN.match(answer):
        return ""
    known = told_for(question, stored, history) or list(constraints[:TOLD_SHOWN])
    return " But you told me: " + lower_first(" ".join(told_sentence(f) for f in known)) if known else ""


def prompt_record(spec: PromptSpec, messages: Sequence[BaseMessage]) -> PromptRecord:
    """The prompt as the model got it, for the trace: its id, version and every message."""
    return PromptRecord(
        id=spec.name,
        version=spec.version,
        messages=[PromptMessage(role=m.type, content=str(m.content)) for m in messages],
    )


def fact_line(fact: Fact, line: str = "") -> prompt.FactLine:
    """A claim as the answering model sees it: its line ("Your car: Toyota Corolla."; ``line``
    instead when given), the user's own words, when it was told and, replaced, until when."""
    text = line or told_sentence(fact)
    # the user's words of a plain fact; a change's words name the old value too, which a small
    # model then gives as the answer ("from March 3 to March 17" -> "March 3")
    if fact.quote and fact.quote != fact.content and fact.change in (None, "new", "adds"):
        text += f' (the user said: "{resolve_relative(fact.quote, fact.created_at)}")'
    until = when_text(fact.valid_until) if fact.valid_until is not None else ""
    return prompt.FactLine(source_id=fact.id, text=text, told=when_text(fact.created_at), until=until)


def planned_fact_line(fact: Fact) -> prompt.FactLine:
    """A change told ahead as the answering model sees it: "From Monday 1 March 2027 (planned):
    Your home: York." with the user's words."""
    return fact_line(fact, planned_line(fact))


def planned_for(question: str, planned: Sequence[Fact], hits: Sequence[RecallHit]) -> list[Fact]:
    """The changes told ahead that speak of what the message asks (its words, whom it asks
    about, what recall found)."""
    if not question or not planned:
        return []
    return [m.fact for m in match_claims(question, planned, {h.id: h.score for h in hits})][:EARLIER_SHOWN]


#: earlier (superseded) claims a prompt shows beside the current ones when they match the question
EARLIER_SHOWN = 3


def select_facts(
    stored: Sequence[Fact],
    hits: Sequence[RecallHit],
    *,
    history: bool,
    request: bool,
    limit: int = FACTS_SHOWN,
    question: str = "",
) -> list[Fact]:
    """The claims a prompt shows, most related first (a small model confuses people and values
    when it is given every claim it knows): the current claims that match the message (its words,
    whom it asks about, what recall found), then the earlier ones that match, marked with when
    they stopped being true (first, when the message asks what was true before). A request for
    help also gets the constraints (an allergy bears on every dinner idea)."""
    recalled = {h.id: h.score for h in hits}
    matches = match_claims(question, stored, recalled) if question else []
    current = [m.fact for m in matches if m.fact.valid_until is None]
    earlier = [m.fact for m in matches if m.fact.valid_until is not None]
    if history:
        chosen = earlier[:limit] + current[:EARLIER_SHOWN]
    else:
        chosen = current[:limit] + earlier[:EARLIER_SHOWN]
    if request:
        chosen += [
            f for f in stored if f.category == "constraint" and f.valid_until is None and f not in chosen
        ]
    return list({f.id: f for f in chosen}.values())
