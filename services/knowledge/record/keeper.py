"""Recording facts of record: the new facts, the older ones they supersede, and the insights
that stated a superseded value.

One read (the user's current facts of record) and one batched write per message. A superseded
fact keeps everything it had and gets ``valid_until`` (when the newer fact was said) and
``superseded_by``; a SUPERSEDES edge goes from the newer fact to it; the concept relations it
asserted are closed. History is kept: "before" questions and the memory list read it.

Insights derived from the message that told a superseded value (and insights merged from
those) are superseded with it, so recall never hands out the old value as current.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from services.knowledge.record.extraction import Change, ExtractedFact
from services.knowledge.record.rules import SINGLE_VALUED, supersessions
from services.knowledge.record.slots import word_stems, words_of
from services.recall.lexical import stem
from thea.memory.operations import FactReads, KnowledgeWrites, NodePatch
from thea.models import (
    Edge,
    EdgeType,
    Fact,
    FactOrigin,
    KnowledgeCrystal,
    Node,
    Revision,
    now_ms,
    stable_id,
)
from thea.models.step_outputs import PlanOutput, RecordedFact, SupersededFact
from thea.words import STOPWORDS

log = logging.getLogger(__name__)

#: how many of a user's current facts a new statement is compared with (newest first)
CURRENT_LIMIT = 1000
#: how sure thea is of what the user told about their own life
TOLD_CONFIDENCE = 0.8
#: an insight stating a replaced value keeps at most this confidence (as contradicted ones do)
SUPERSEDED_CONFIDENCE = 0.2


class FactMemory(Protocol):
    """What recording facts needs of the memory."""

    @property
    def facts(self) -> FactReads: ...

    @property
    def knowledge(self) -> KnowledgeWrites: ...

    def record(self, nodes: Sequence[Node], links: Sequence[Edge] = ()) -> object: ...


@dataclass(frozen=True)
class Superseded:
    fact: Fact
    by: str
    reason: str


@dataclass
class RecordedFacts:
    """What one statement did to the user's facts of record."""

    facts: list[Fact] = field(default_factory=list)
    superseded: list[Superseded] = field(default_factory=list)
    #: insights superseded because they stated a replaced value
    insights: list[str] = field(default_factory=list)

    def as_output(self) -> PlanOutput:
        """For the trace (the plan step's report)."""
        return PlanOutput(
            facts_recorded=[
                RecordedFact(
                    id=f.id,
                    subject=f.subject,
                    attribute=f.attribute,
                    value=f.value,
                    text=f.content,
                    current=f.valid_until is None,
                )
                for f in self.facts
            ],
            superseded=[
                SupersededFact(id=s.fact.id, text=s.fact.content, by=s.by, reason=s.reason)
                for s in self.superseded
            ],
            insights_superseded=self.insights,
        )


def fact_id(source_id: str, index: int) -> str:
    """Facts of one message have ids derived from it: a retried message stores no duplicates."""
    return stable_id("fact-of-record", source_id, str(index))


def build_facts(
    extracted: Sequence[ExtractedFact],
    *,
    source_id: str,
    user_id: str,
    session_id: str | None,
    said_at: int,
    origin: FactOrigin,
) -> list[Fact]:
    """The fact nodes of one message (an end is history from the moment it is said)."""
    return [
        Fact(
            id=fact_id(source_id, index),
            content=item.text,
            confidence=TOLD_CONFIDENCE,
            source=user_id,
            source_message_id=source_id,
            valid_from=said_at,
            valid_until=None if item.is_current else said_at,
            subject_key=item.subject_key,
            subject=item.subject,
            attribute=item.attribute,
            value=item.value,
            change=item.change.value,
            category=item.category.value,
            origin=origin,
            slots=sorted(item.slots),
            keywords=list(item.context),
            created_at=said_at,
            user_id=user_id,
            session_id=session_id,
            correlation_id=source_id,
        )
        for index, item in enumerate(extracted)
    ]


class FactRecorder:
    def __init__(self, memory: FactMemory, current_limit: int = CURRENT_LIMIT) -> None:
        self.memory = memory
        self.current_limit = current_limit

    def record(self, facts: Sequence[Fact], extracted: Sequence[ExtractedFact]) -> RecordedFacts:
        """Store ``facts`` (built from ``extracted`` by :func:`build_facts`) and supersede what
        they replace. Idempotent: a retried message finds its own facts and changes nothing."""
        outcome = RecordedFacts(facts=list(facts))
        if not facts:
            return outcome
        first = facts[0]
        user_id, source, said_at = first.user_id or "", first.source_message_id, first.created_at
        current = [
            f
            for f in self.memory.facts.facts_of_record(user_id, current_only=True, limit=self.current_limit)
            if f.source_message_id != source
        ]
        outcome.superseded = superseded_by(facts, extracted, current)
        facts = inherit_slots(facts, extracted, outcome.superseded)
        outcome.facts = list(facts)
        edges = [Edge(src=s.by, dst=s.fact.id, type=EdgeType.SUPERSEDES) for s in outcome.superseded]
        insights = self._insights_to_supersede(outcome.superseded, user_id, said_at)
        outcome.insights = [k.id for k in insights]
        edges += [Edge(src=first.id, dst=k.id, type=EdgeType.SUPERSEDES) for k in insights]
        self.memory.record([*facts, *insights], edges)
        if outcome.superseded:
            self.memory.knowledge.patch_nodes(
                [
                    NodePatch(s.fact.id, {"valid_until": said_at, "superseded_by": s.by})
                    for s in outcome.superseded
                ]
            )
            self.memory.knowledge.close_relations([s.fact.id for s in outcome.superseded], said_at)
            log.info(
                "facts of user %s: %d new, superseded %s",
                user_id,
                len(facts),
                ", ".join(f"{s.fact.id[:8]} ({s.reason})" for s in outcome.superseded),
            )
        return outcome

    def _insights_to_supersede(
        self, superseded: Sequence[Superseded], user_id: str, at: int
    ) -> list[KnowledgeCrystal]:
        sources = sorted({s.fact.source_message_id for s in superseded if s.fact.source_message_id})
        if not sources:
            return []
        reason = "; ".join(f"{s.fact.content!r} was replaced ({s.reason})" for s in superseded)[:400]
        by = sorted({s.by for s in superseded})
        out: list[KnowledgeCrystal] = []
        for insight in self.memory.facts.insights_resting_on(sources, user_id):
            revision = Revision(kind="superseded", at=at or now_ms(), reason=reason, evidence=by)
            out.append(
                insight.model_copy(
                    update={
                        "active": False,
                        "valid_until": at,
                        "confidence": round(min(insight.confidence, SUPERSEDED_CONFIDENCE), 3),
                        "revisions": [*insight.revisions, revision],
                    }
                )
            )
        return out


#: verbs of getting something that takes the place of what just ended ("sold the Golf and got a Skoda")
_ACQUIRE = frozenset({"buy", "get", "adopt", "rescue", "lease", "order", "pick"})


def superseded_by(
    facts: Sequence[Fact], extracted: Sequence[ExtractedFact], current: Sequence[Fact]
) -> list[Superseded]:
    """The current facts that ``facts`` (built from ``extracted``) replace, each once, with why."""
    closed: dict[str, Superseded] = {}
    for fact, item in zip(facts, extracted, strict=True):
        if item.change is Change.NONE and not item.old_value and not _maybe_single(item):
            continue
        for replacement in supersessions(item, [f for f in current if f.id not in closed]):
            old = next(f for f in current if f.id == replacement.old_id)
            closed[old.id] = Superseded(old, fact.id, replacement.reason)
    return list(closed.values())


def inherit_slots(
    facts: Sequence[Fact], extracted: Sequence[ExtractedFact], superseded: Sequence[Superseded]
) -> list[Fact]:
    """A fact that replaced another speaks of what it replaced: "I bought a Canyon Grail" after
    "I sold the Cannondale" (which closed "My bike is a Cannondale") is the user's bike, so "What
    bike do I ride now?" finds it; "The renovation got pushed to October 18" is still the kitchen
    renovation that starts. The slots, and the words of the replaced fact without its value, pass
    to the fact that superseded it, and from what an end closed to what was got in its place in
    the same message."""
    by_id = {f.id: f for f in facts}
    slots: dict[str, set[str]] = {f.id: set(f.slots) for f in facts}
    words: dict[str, set[str]] = {f.id: set(f.keywords) for f in facts}

    def take(fact_id: str, old: Fact) -> None:
        slots[fact_id] |= set(old.slots)
        words[fact_id] |= inherited_words(old)

    for item in superseded:
        if item.by in slots and by_id[item.by].change != Change.END.value:
            take(item.by, item.fact)
    ended = [s for s in superseded if s.by in by_id and by_id[s.by].change == Change.END.value]
    for fact, told in zip(facts, extracted, strict=True):
        if told.change is not Change.END and told.verb in _ACQUIRE:
            for item in ended:
                take(fact.id, item.fact)
    out: list[Fact] = []
    for fact, told in zip(facts, extracted, strict=True):
        update: dict[str, object] = {
            "slots": sorted(slots[fact.id]),
            "keywords": sorted(words[fact.id] - word_stems(fact.content)),
        }
        replaced = [s.fact for s in superseded if s.by == fact.id]
        update |= _correction(told, replaced)
        out.append(
            fact.model_copy(update=update)
            if update != {"slots": fact.slots, "keywords": fact.keywords}
            else fact
        )
    return out


#: what says nothing of its own but the corrected value: "It's the 14th of June, not the 12th",
#: "(Sorry, I meant) Rhodes, not Crete"
_BARE_SUBJECTS = frozenset({"it", "that", "this"})


def _correction(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """A bare correction becomes the sentence it corrects with the new value in place of the old:
    "My wife Karin and I are going to Rhodes on September 9." (as told, "Rhodes, not Crete." said
    neither who goes nor when). Nothing when the correction says its own sentence."""
    if not told.old_value or (told.verb and told.attribute not in _BARE_SUBJECTS):
        return {}
    for old in replaced:
        content = swapped(old.content, told.old_value, told.value)
        if content is not None:
            value = swapped(old.value or "", told.old_value, told.value)
            return {"content": content, "value": value or told.value, "attribute": old.attribute}
    return {}


def swapped(text: str, old_value: str, new_value: str) -> str | None:
    """``text`` with ``old_value`` replaced by ``new_value``, the words after it that the new value
    repeats taken too ("on the 12th of June" -> "on the 14th of June" for "the 14th of June"), or
    None when ``old_value`` is not in it."""
    found = re.search(rf"\b{re.escape(old_value)}\b", text, re.IGNORECASE)
    if found is None:
        return None
    after = text[found.end() :]
    tail_words = after.split()
    taken = 0
    for count in range(len(tail_words), 0, -1):
        tail = [w.rstrip(".!,;") for w in tail_words[:count]]
        if new_value.lower().endswith(" " + " ".join(tail).lower()):
            pattern = r"\s+" + r"\s+".join(re.escape(w) for w in tail)
            repeated = re.match(pattern, after)
            taken = repeated.end() if repeated else 0
            break
    return text[: found.start()] + new_value + after[taken:]


def inherited_words(old: Fact) -> set[str]:
    """The stems of what a replaced fact was about: its words without its value and stopwords
    ("Our kitchen renovation starts on October 4" -> kitchen, renovation, start)."""
    value = word_stems(old.value or "")
    own = {stem(w) for w in words_of(old.content) if w not in STOPWORDS and len(w) > 2}
    return (own | set(old.keywords)) - value


def _maybe_single(item: ExtractedFact) -> bool:
    """A plain statement can still replace a single-valued attribute ("My name is Anna")."""
    return item.attribute in SINGLE_VALUED
