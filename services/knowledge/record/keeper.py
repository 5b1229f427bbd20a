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

from services.knowledge.record.extraction import DATE, Change, ExtractedFact, says_a_date
from services.knowledge.record.lists import without_item
from services.knowledge.record.rules import (
    ONE_ITEM,
    SINGLE_VALUED,
    SWITCHES,
    dropped_item,
    place_named,
    says_back,
    supersessions,
    switched_from,
)
from services.knowledge.record.slots import event_kinds, word_stems, words_of
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
from thea.words import is_content

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

    # what an end in the same message named ("sold my old bass"), even when it closed nothing
    gone_words = {stem(w) for told in extracted if told.change is Change.END for w in told.about}
    for item in superseded:
        if item.by in slots and by_id[item.by].change != Change.END.value:
            take(item.by, item.fact)
            value = word_stems(item.fact.value or "")
            if value & gone_words:  # "cancelled Center Parcs, ... camping instead": still "at half term"
                words[item.by] |= value - gone_words
    ended = [s for s in superseded if s.by in by_id and by_id[s.by].change == Change.END.value]
    for fact, told in zip(facts, extracted, strict=True):
        # "sold the Golf and got a Skoda", "I've left Boots, I'm now at the hospital pharmacy"
        if told.change is not Change.END and (told.verb in _ACQUIRE or told.change is Change.CHANGE):
            for item in ended:
                take(fact.id, item.fact)
                # "cancelled Center Parcs, going camping instead": still the plan "at half term"
                words[fact.id] |= word_stems(item.fact.value or "") - gone_words
            words[fact.id] |= gone_words
    out: list[Fact] = []
    for fact, told in zip(facts, extracted, strict=True):
        replaced = [s.fact for s in superseded if s.by == fact.id]
        update = (
            _correction(told, replaced)
            or _switched(told, replaced)
            or _moved_date(told, replaced)
            or _moved_place(told, replaced)
            or _alone_now(told, replaced)
        )
        if update:  # the words of what was said stay findable when the content became the old fact's
            words[fact.id] |= _content_stems(fact.content)
        content = str(update.get("content", fact.content))
        update |= {"slots": sorted(slots[fact.id]), "keywords": sorted(words[fact.id] - word_stems(content))}
        out.append(
            fact.model_copy(update=update)
            if update != {"slots": fact.slots, "keywords": fact.keywords}
            else fact
        )
    out = _switched_beside(out, extracted, superseded)
    return out + lists_left(out, extracted, superseded)


def _switched_beside(
    facts: list[Fact], extracted: Sequence[ExtractedFact], superseded: Sequence[Superseded]
) -> list[Fact]:
    """A switch that found its older fact already replaced by another fact of the same message
    changes that one: "the trip is to Brazil now so I've switched to Portuguese" makes "I'm
    learning Portuguese for a trip to Brazil in October" (the trip had taken "... Spanish ...")."""
    replacing = {s.by for s in superseded}
    for told, fact in zip(extracted, facts, strict=True):
        if fact.id in replacing:
            continue
        for index, other in enumerate(facts):
            if other.id not in replacing:
                continue
            patch = _switched(told, [other])
            if patch:
                facts[index] = other.model_copy(update={"content": patch["content"], "value": patch["value"]})
                break
    return facts


#: a place a plan goes to ("a trip to Mexico")
_TO_PLACE = re.compile(r"\bto\s+(?P<place>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)")


def _moved_place(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """A plan going elsewhere says only the place ("The trip is to Brazil now"); the fact it
    changed holds the rest ("I'm learning Spanish for a trip to Mexico in October"): it becomes
    that fact with the new place ("... a trip to Brazil in October")."""
    if told.change is Change.MOVE:
        return {} if says_a_date(told.value) else _event_moved(told, replaced)
    new = _TO_PLACE.search(told.text) if told.change is Change.CHANGE else None
    for old in replaced if new else ():
        was = _TO_PLACE.search(old.content)
        if (
            new
            and was
            and was.group("place") != new.group("place")
            and _about_the_same(told.text, old.content)
        ):
            patch = _rewritten(old, was.group("place"), new.group("place"))
            if patch:
                return patch
    return {}


#: what says nothing of its own but the corrected value: "It's the 14th of June, not the 12th",
#: "(Sorry, I meant) Rhodes, not Crete"
_BARE_SUBJECTS = frozenset({"it", "that", "this"})


#: living with no one: "on my own", "alone", "by myself"
_ALONE = re.compile(r"^(?:on\s+(?:my|our)\s+own|alone|by\s+myself)$", re.IGNORECASE)
#: whom one lives with, to the end of the clause ("with my flatmate Josh")
_WITH_WHOM = re.compile(r"\bwith\s+[^,.;]+")


def _alone_now(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """ "I live on my own now" after "I live in Leicester with my flatmate Josh" ends whom, not
    where: "I live in Leicester on my own"."""
    if told.attribute != stem("live") or not _ALONE.match(told.value):
        return {}
    for old in replaced:
        was = _WITH_WHOM.search(old.content)
        patch = _rewritten(old, was.group(), told.value) if was else {}
        if patch:
            return patch
    return {}


def _event_moved(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """An event moved to another place ("We've moved it to Harrogate, same date") becomes the fact
    it moved with the new place ("My sister Jen is getting married in Harrogate on 12 June")."""
    for old in replaced:
        was = place_named(old.content)
        if was and was.lower() != told.value.lower():
            patch = _rewritten(old, was, told.value)
            if patch:
                return patch | {"subject_key": old.subject_key, "subject": old.subject}
    return {}


def lists_left(
    facts: Sequence[Fact], extracted: Sequence[ExtractedFact], superseded: Sequence[Superseded]
) -> list[Fact]:
    """What a list is once an end took one item out of it: "I've stopped doing Thursdays at the
    shop" closes "I volunteer at the Oxfam shop on Tuesdays and Thursdays" (the end stays what the
    user said, in history) and leaves "I volunteer at the Oxfam shop on Tuesdays.", true from then
    on (was: the whole fact ended, and "Which days do I volunteer?" named both days)."""
    told = {f.id: (f, item) for f, item in zip(facts, extracted, strict=True)}
    out: list[Fact] = []
    for closed in superseded:
        if closed.by not in told or not closed.reason.startswith(ONE_ITEM):
            continue
        end, item = told[closed.by]
        dropped = dropped_item(item, closed.fact)
        content = without_item(closed.fact.content, dropped) if dropped else None
        if not (dropped and content):
            continue
        out.append(
            closed.fact.model_copy(
                update={
                    "id": stable_id("fact-of-record-left", end.id, closed.fact.id),
                    "content": content,
                    "value": without_item(closed.fact.value or "", dropped) or closed.fact.value,
                    "change": Change.CHANGE.value,
                    "valid_from": end.valid_from,
                    "valid_until": None,
                    "superseded_by": None,
                    "created_at": end.created_at,
                    "source_message_id": end.source_message_id,
                    "correlation_id": end.correlation_id,
                    "session_id": end.session_id,
                }
            )
        )
    return out


def _correction(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """A bare correction becomes the sentence it corrects with the new value in place of the old:
    "My wife Karin and I are going to Rhodes on September 9." (as told, "Rhodes, not Crete." said
    neither who goes nor when). Nothing when the correction says its own sentence."""
    if not told.old_value or (told.verb and told.attribute not in _BARE_SUBJECTS):
        return {}
    for old in replaced:
        patch = _rewritten(old, told.old_value, told.value)
        if patch:  # still of whom the corrected fact was ("Lewis is getting married in Crete")
            return patch | {"subject_key": old.subject_key, "subject": old.subject}
    return {}


def _rewritten(old: Fact, was: str, new: str) -> dict[str, object]:
    """The older fact with ``new`` in place of ``was`` (its content, value and attribute for the
    fact that replaces it), or nothing when ``was`` is not in it as said."""
    content = swapped(old.content, was, new)
    if content is None:
        return {}
    return {
        "content": content,
        "value": swapped(old.value or "", was, new) or new,
        "attribute": old.attribute,
    }


def _switched(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """A switch says only what changed; the fact it changed holds the rest ("Our son Callum is at
    uni in Aberdeen studying engineering"): it becomes that fact with the new thing in place of the
    old ("... studying architecture"), so what did not change is still known. Nothing when the
    old thing is not in it as said."""
    if told.verb not in SWITCHES | {"move"} or told.change is not Change.CHANGE:
        return {}
    new = re.sub(r"\s+now$", "", re.sub(r"^to\s+", "", told.value.split(",")[0].strip()))
    if told.verb == "move":  # "to the renal ward": the kind in place of the old one's kind
        new = re.sub(r"^(?:the|a|an)\s+", "", new, flags=re.IGNORECASE)
    for old in replaced:
        was = told.old_value or switched_from(told, old.content)
        patch = _rewritten(old, was, new) if new and was else {}
        if patch and str(patch["content"]).lower() != old.content.lower():
            return patch
    return {}


#: a new date said as one: "now due 15 May", "now on the 21st", "now booked for June"
_NOW_DUE = re.compile(r"\bnow\s+(?:due|on|set\s+for|booked\s+for)\s+\S", re.IGNORECASE)


def _moved_date(told: ExtractedFact, replaced: Sequence[Fact]) -> dict[str, object]:
    """A move (or switch) to another date says only the date; the fact it moved holds the rest ("Our
    granddaughter Elsa is getting married on 3 May in Stockholm"): it becomes that fact on the new
    date ("... on 7 June in Stockholm"), so where, who and what are still known after "The wedding
    has been moved to 7 June". Only a fact with one date in it; nothing when it has none or more."""
    switch = told.change is Change.CHANGE and told.verb in SWITCHES  # "switched my volunteering to Thursdays"
    # "No wait, the due date is 5 May": a correction whose value is only the date
    corrected = told.change is Change.CHANGE and _date_said(told.value) == told.value.strip()
    # "Flights changed, we now fly on 12 September": what changed named, and its new date;
    # "got an extension, dissertation now due 15 May"
    named = told.change is Change.CHANGE and (bool(told.about) or _NOW_DUE.search(told.text) is not None)
    new = _date_said(told.value) if told.change is Change.MOVE or switch or corrected or named else None
    for old in replaced if new else ():
        was = _date_said(old.content)
        if (
            was
            and new
            and len(_date_spans(old.content)) == 1
            and was.lower() != new.lower()
            and (told.refers_back or _about_the_same(told.text, old.content))
        ):
            patch = _rewritten(old, was, _as_said_before(was, new))
            if patch:
                return patch | {"subject_key": old.subject_key, "subject": old.subject}
    return {}


_PREPOSITION = re.compile(r"^(?:on|in|for|by|until|till|to|at|from)\s", re.IGNORECASE)


def _as_said_before(was: str, new: str) -> str:
    """The new date with a preposition where the old one had one: "pencilled in for June" moved to
    "14 May" is "pencilled in for 14 May" (not "pencilled in 14 May"), "in July" a day's "on"."""
    if _PREPOSITION.match(new) or not _PREPOSITION.match(was):
        return new
    if was.lower().startswith("for "):
        return f"for {new}"
    return f"on {new}" if re.search(r"\d", new) else new


#: what a move says besides what moved and where to
_MOVE_TEXT = (
    "move moved push pushed postpone postponed extend extended switch switched bring brought "
    "reschedule rescheduled change changed now got been"
)
_MOVE_WORDS = frozenset(stem(w) for w in _MOVE_TEXT.split())


def _about_the_same(said: str, old: str) -> bool:
    """The moved fact names what the move speaks of: the same kind of event ("wedding",
    "married") or a word of its own ("my food bank shifts", "helping at the food bank"), not only
    a day told beside it ("we meet on Thursdays" is no place to put "Pottery has moved to ...")."""
    if event_kinds(said) & event_kinds(old):
        return True
    mine = _content_stems(DATE.sub(" ", said)) - _MOVE_WORDS
    return bool(mine & _content_stems(DATE.sub(" ", old)))


def _content_stems(text: str) -> set[str]:
    """The stems of a text's words that carry meaning (no stopword, three letters or more)."""
    return {stem(w) for w in words_of(text) if is_content(w)}


def _date_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says a date, its words side by side taken as one ("Friday 9 October")."""
    spans: list[tuple[int, int]] = []
    for found in DATE.finditer(text):
        if spans and not text[spans[-1][1] : found.start()].strip(" ,"):
            spans[-1] = (spans[-1][0], found.end())
        else:
            spans.append((found.start(), found.end()))
    return spans


def _date_said(text: str) -> str | None:
    """The first date ``text`` says, as said."""
    spans = _date_spans(text)
    return text[spans[0][0] : spans[0][1]] if spans else None


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
    own = _content_stems(old.content)
    return (own | set(old.keywords)) - value


def _maybe_single(item: ExtractedFact) -> bool:
    """A plain statement can still replace a single-valued attribute ("My name is Anna") or say
    that someone is back ("Saffron came home" after "Saffron went missing")."""
    return item.attribute in SINGLE_VALUED or says_back(item.text)
