"""Questions answered from the facts of record themselves, with no model.

The default model is small: given four facts and "What bike do I commute on now?" it can answer
with the fact about the user's wife, and given one fact it can still wander off. When the facts
of record answer a question plainly, the answer is made of those facts, turned to the user
("you"), their relative dates spelled out, so an answer can only say what the user told.

Which facts answer is decided by services/cycle/fact_match.py: about whom the question asks
(the user, a person by name or by relation) and what (the slot: home, job, pet, a dated
plan...; or its words). Then:

* a question of something one has one of at a time (where one lives, one's job, car) gets the
  newest fact that says it ("What's my job now?" -> the promotion, not the first job);
* other facts as plainly about the question and nearly as related (``JOIN_SHARE`` of the best
  one's score) join it, at most ``MAX_FACTS`` ("What are my children called?");
* "Who is Omar?" gets how the user knows them ("Omar is your best friend.") and what is known
  of them now;
* a question about what was true before gets the earlier values with the day they changed,
  and so does a question nothing current answers but an earlier fact does ("What was our
  cat called?" after the cat died).

Anything else (nothing plainly matches, a request for help, a mix) goes to the model with the
best-matching facts in its prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from services.common.dates import resolve_relative, when_text
from services.common.statements import lower_first, turn_round, upper_first
from services.cycle.fact_match import (
    DIED,
    REHOMED,
    FactMatch,
    focus_of,
    match_facts,
    named_relatives,
    naming_facts,
    naming_of,
    people_and_gone,
    people_of,
    relation_said,
    who_is,
    who_left,
)
from services.knowledge.record.extraction import Change
from services.knowledge.record.reading import USER
from services.knowledge.record.slots import (
    SINGLE_VALUED,
    Slot,
    question_slots,
    relation_covers,
    relation_word,
    word_stems,
)
from services.prompts.quoting import without_any_order
from thea.models import Fact
from thea.words import words as read_words

#: facts one answer is made of at most
MAX_FACTS = 3
#: share of the best fact's match score another plain fact needs to join the answer
JOIN_SHARE = 0.8
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\s*\.$")
#: how the user named someone: "my best friend Omar" -> ("best friend", "Omar")
_INTRODUCED = (
    r"\b(?:my|our)\s+(?P<relation>(?:(?:best|old|older|younger|little|big|new|eldest|youngest)\s+)?[\w'-]+)"
    r"\s*,?\s+{name}\b"
)


@dataclass(frozen=True)
class RankedFact:
    """A fact of record with recall's score for the question."""

    fact: Fact
    score: float


@dataclass(frozen=True)
class FactAnswer:
    text: str
    facts: tuple[Fact, ...]
    #: why each fact answers (by fact id), for the trace
    why: Mapping[str, str] = field(default_factory=dict)


def told_sentence(fact: Fact) -> str:
    """A fact as said back to the user: "you", its relative dates spelled out, a full stop,
    nothing invisible."""
    # invisible characters (tag smuggling), chat-template tokens ("[/INST]") and orders a
    # stored text may carry never come back
    content = without_any_order(fact.content)[0].strip()
    text = turn_round(content) if fact.subject_key is not None else content
    text = resolve_relative(upper_first(text), fact.created_at).strip()
    text = _DOUBLE_STOP.sub(".", text)  # ("red.<hidden>." read as "red..")
    return text if text.endswith((".", "!", "?")) else text + "."


#: a fact saying what is no longer so: not said beside one saying what is
_NO_LONGER = re.compile(r"\bno\s+longer\b|\b(?:not|n't)\b.*\b(?:anymore|any\s+more)\b", re.IGNORECASE)
#: "What should you call me?", "What do I go by?"; "I go by Ade"
_ASKS_CALLED = re.compile(r"\bcall\s+(?:me|you)\b|\bgo\s+by\b", re.IGNORECASE)
_GOES_BY = re.compile(r"\bgo(?:es)?\s+by\b|\bcalls?\s+(?:me|you)\b", re.IGNORECASE)
_ASKS_YES_NO = re.compile(r"^\s*(?:am|is|are|do|does|have|has)\b", re.IGNORECASE)
_WHO = re.compile(r"^\s*(?:who|whom)\b", re.IGNORECASE)


def _chosen(matches: Sequence[FactMatch], question: str = "") -> list[FactMatch]:
    """The facts that answer: the newest of a one-at-a-time slot, else the best plain ones
    (people: "Who works at my shop now?" are as many as the facts name)."""
    plain = [m for m in matches if m.plain]
    if not plain:
        return []
    asked = question_slots(question) & SINGLE_VALUED
    # "What's my name and how old am I?": each; not "What bike do I commute on?", which the best
    # fact answers whole (a bike ride told since is no answer to it)
    if len(asked) > 1 and not _WHO.match(question) and not asked <= plain[0].slots:
        each = [_newest([m for m in plain if slot in m.main]) for slot in Slot if slot in asked]
        found = list({m.fact.id: m for m in each if m is not None}.values())
        if len(found) > 1:
            return found
    best = plain[0]
    single = best.main & SINGLE_VALUED if not _WHO.match(question) else frozenset()
    if single:  # the newest fact whose main slot it is ("I just got promoted" over "I'm a developer")
        rivals = [
            m
            for m in plain
            if m.main >= single
            and m.slots >= best.slots
            and m.share >= best.share
            and m.score >= best.score * JOIN_SHARE
        ]
        # the newest; of one message's, the one that says most ("he's now head of X at Y" over
        # "Karim got a new job")
        # "Dev is a teacher" answers what Dev did before, not "Dev's not teaching anymore"
        said = [m for m in rivals if not _NO_LONGER.search(m.fact.content)] or rivals
        if _ASKS_CALLED.search(question):  # "What should you call me?": the name one goes by
            said = [m for m in said if _GOES_BY.search(m.fact.content)] or said
        newest = _newest(said) or best
        note = f"; the newest of {len(rivals)} facts of one value at a time" if len(rivals) > 1 else ""
        return [FactMatch(**{**newest.__dict__, "why": newest.why + note})]
    chosen = [best]
    for other in plain[1:]:
        if len(chosen) >= MAX_FACTS or other.score < best.score * JOIN_SHARE:
            break
        chosen.append(other)
    said = [m for m in chosen if not _NO_LONGER.search(m.fact.content)]
    return said or chosen  # "Your new manager is Kwame." without "Deborah's no longer your boss."


#: "What happened to my Brompton?": what ended is the answer
_WHAT_HAPPENED = re.compile(r"^\s*what\s+happened\s+(?:to|with)\b", re.IGNORECASE)
_STILL = re.compile(r"\bstill\b", re.IGNORECASE)


def _what_ended(
    question: str, chosen: Sequence[FactMatch], history: Sequence[Fact], people: Mapping[str, frozenset[str]]
) -> FactAnswer | None:
    """An ended fact answers "What happened to my Brompton?" ("Your Brompton got stolen last
    night."), and "Do I still work from home?" when it speaks of the question's words more than
    what is true now ("Not any more. Now: you've started working at an agency in town.")."""
    if not history or not (_WHAT_HAPPENED.match(question) or (_STILL.search(question) and chosen)):
        return None
    if _WHAT_HAPPENED.match(question):  # what ended it, else what it was
        ends = [f for f in history if f.change == Change.END.value]
        found = _chosen(match_facts(question, ends, people=people), question)
        found = found or _chosen(match_facts(question, history, people=people), question)
        return _answer(found, earlier=False) if found else None
    before = _chosen(match_facts(question, history, people=people), question)
    if not before or not _ASKS_YES_NO.match(question):
        return None
    asked = word_stems(question)
    if max(len(asked & word_stems(m.fact.content)) for m in before) <= max(
        len(asked & word_stems(m.fact.content)) for m in chosen
    ):
        return None
    now = _answer(chosen, earlier=False)
    return FactAnswer(text=f"Not any more. Now: {lower_first(now.text)}", facts=now.facts, why=now.why)


#: someone leaving a life: the news said beside an older fact that names them
_LEFT_OR_DIED = re.compile(rf"\b(?:{DIED}|{REHOMED}|moved\s+(?:out|away))\b", re.IGNORECASE)


def _since_then(answer: FactAnswer, history: Sequence[Fact]) -> FactAnswer:
    """A current fact naming someone who later left or died is said with that news ("You share a
    flat with Kit and Jonas. Since then: Jonas moved out."): the fact still holds in part, and
    saying it alone would count the one who left as still there."""
    named = {w.lower() for f in answer.facts for w in read_words(f.content)}
    told = max((f.created_at for f in answer.facts), default=0)
    news = [
        f
        for f in history
        if f.change == Change.END.value
        and f.created_at > told
        and (
            (f.subject_key not in (None, USER) and f.subject_key in named and _LEFT_OR_DIED.search(f.content))
            or who_left(f) in named  # "Olivier and I split up"
        )
    ]
    if not news:
        return answer
    news.sort(key=lambda f: f.created_at)
    return FactAnswer(
        text=f"{answer.text} Since then: {lower_first(_said(news[:MAX_FACTS]))}",
        facts=(*answer.facts, *news[:MAX_FACTS]),
        why={**answer.why, **{f.id: f"later news of {f.subject_key}" for f in news[:MAX_FACTS]}},
    )


def _newest(matches: Sequence[FactMatch]) -> FactMatch | None:
    return max(matches, key=lambda m: (m.fact.created_at, len(m.fact.content))) if matches else None


def _answer(matches: Sequence[FactMatch], *, earlier: bool) -> FactAnswer:
    facts = [m.fact for m in matches]
    return FactAnswer(
        text=_earlier(facts) if earlier else _said(facts),
        facts=tuple(facts),
        why={m.fact.id: m.why for m in matches},
    )


def _introduction(name: str, facts: Sequence[Fact]) -> str:
    """How the user introduced someone ("Omar is your best friend.", "Mark is Claire's
    husband."), or ""."""
    naming = naming_of(name, facts)
    return naming.introduction if naming else ""


def _number(relation: str, count: int) -> str:
    """ "twin boy" said of two, "springer spaniels" of one: the relation in the right number."""
    plural = relation.endswith("s") and not relation.endswith("ss")
    if count > 1 and not plural:
        return relation + "s"
    if count == 1 and plural and relation_word(relation.split()[-1][:-1]):
        return relation[:-1]
    return relation


def _relation_as_told(relation: str, facts: Sequence[Fact], names: Sequence[str]) -> str:
    """The relation in the user's own word ("mum", "best friend"), else its plain name."""
    return next((said for said in (relation_said(n, facts) for n in names) if said), relation)


def _said(facts: Sequence[Fact]) -> str:
    return " ".join(told_sentence(f) for f in facts)


def _earlier(facts: Sequence[Fact]) -> str:
    ended = [f.valid_until for f in facts if f.valid_until is not None]
    changed = f" That changed on {when_text(max(ended))}." if ended else ""
    return f"Earlier you told me: {lower_first(_said(facts))}{changed}"


def _asks_unnamed_relative(question: str, people: Mapping[str, frozenset[str]]) -> bool:
    """The question asks the name of a relative by relation and no one ever named has it."""
    focus = focus_of(question, set(people))
    if not focus.relations or focus.names or Slot.NAME not in question_slots(question):
        return False
    told = {relation for relations in people.values() for relation in relations}
    return not any(relation_covers(asked, t) for asked in focus.relations for t in told)


def may_answer(question: str, known: Sequence[Fact]) -> bool:
    """Some fact of ``known`` could answer the question plainly (no recall needed: the instinct
    step asks this to spare the model call when the answer will be the facts themselves)."""
    return any(m.plain for m in match_facts(question, known))


def answer_from_facts(
    question: str,
    facts: Sequence[RankedFact],
    known: Sequence[Fact],
    *,
    earlier: bool,
    history: Sequence[Fact] = (),
    similarity: Mapping[str, float] | None = None,
    current: Sequence[Fact] = (),
) -> FactAnswer | None:
    """The answer made of the facts that plainly answer the question, or None (the model answers).
    ``facts`` are the facts recall found, best first, ``known`` the user's facts of record (the
    current ones; the earlier ones when ``earlier``), ``history`` the earlier ones when ``known``
    is current (asked when nothing current answers), ``current`` the current ones when ``known``
    is earlier (a "before" question nothing earlier answers is told so, with what is true now)."""
    candidates = list({f.id: f for f in [*known, *(r.fact for r in facts)]}.values())
    everyone, gone = people_and_gone([*candidates, *history])
    people = {n: r for n, r in everyone.items() if n not in gone}
    if not earlier:
        candidates = _without_the_gone(question, candidates, gone, people)
    recall = {r.fact.id: r.score for r in facts}
    named = named_relatives(question, people) if not earlier else []
    if named:  # "What's my husband's name?" -> "Your husband is Karim."
        focus = focus_of(question, set(people))
        relation = _number(
            _relation_as_told(sorted(focus.relations)[0], [*candidates, *history], named), len(named)
        )
        names = " and ".join(n.title() for n in named[:3])
        verb = "is called" if len(named) == 1 else "are called"
        told = {f.id: f for n in named[:3] for f in naming_facts(n, [*candidates, *history])}
        sources = sorted(told.values(), key=lambda f: (f.valid_until is not None, -f.created_at))
        return FactAnswer(
            text=f"Your {relation} {verb} {names}.",
            facts=tuple(sources[:MAX_FACTS]),
            why={f.id: f"names your {relation}" for f in sources[:MAX_FACTS]},
        )
    if not earlier and _asks_unnamed_relative(question, people_of([*candidates, *history], gone_too=True)):
        return None  # "What's my son's name?" when no son was named: not the daughter's fact
    name = who_is(question)
    if name and not earlier:
        intro = _introduction(name, [*candidates, *history])
        about = [m for m in match_facts(question, candidates, people=people) if m.plain][:2]
        if intro or about:
            said = " ".join([intro, _said([m.fact for m in about])]).strip()
            return FactAnswer(
                text=said, facts=tuple(m.fact for m in about), why={m.fact.id: m.why for m in about}
            )
    ranked = match_facts(question, candidates, people=people, similarity=similarity, recall=recall)
    chosen = _chosen(ranked, question)
    ended = _what_ended(question, chosen, history, people) if not earlier else None
    if ended is not None:
        return ended
    if chosen:
        answer = _answer(chosen, earlier=earlier)
        return _with_what_ended(answer, candidates) if earlier else _since_then(answer, history)
    if earlier and current:
        now = _chosen(match_facts(question, current, people=people), question)
        if now:
            said = _said([m.fact for m in now])
            return FactAnswer(
                text=f"I don't know what it was before: you haven't told me. Now: {lower_first(said)}",
                facts=tuple(m.fact for m in now),
                why={m.fact.id: m.why + "; nothing earlier told" for m in now},
            )
    return None if earlier else _from_history(question, history, people, similarity)


def _from_history(
    question: str,
    history: Sequence[Fact],
    people: Mapping[str, frozenset[str]],
    similarity: Mapping[str, float] | None,
) -> FactAnswer | None:
    """A question of now that only an earlier fact answers ("What was our cat called?"), with
    what ended it; "Not any more." first for a yes/no question."""
    before = _chosen(match_facts(question, history, people=people, similarity=similarity), question)
    if not before:
        return None
    answer = _with_what_ended(_answer(before, earlier=True), history)
    if _ASKS_YES_NO.match(question):  # "Am I still in the choir?" when that ended: no
        return FactAnswer(text=f"Not any more. {answer.text}", facts=answer.facts, why=answer.why)
    return answer


def _without_the_gone(
    question: str, candidates: Sequence[Fact], gone: frozenset[str], people: Mapping[str, frozenset[str]]
) -> list[Fact]:
    """ "How many cats do I have?": what was said of a pet or person who has since left is no
    answer of now (unless the question names them: "What does Anke do?")."""
    if not gone or focus_of(question, set(people) | gone).names:
        return list(candidates)
    return [f for f in candidates if f.subject_key not in gone]


def _with_what_ended(answer: FactAnswer, history: Sequence[Fact]) -> FactAnswer:
    """An earlier fact said for a question of now, with what ended it when that was an end ("...
    That changed on Tuesday 6 January 2026: Fig had to be rehomed.")."""
    by_id = {f.id: f for f in history}
    ends = [by_id[f.superseded_by] for f in answer.facts if f.superseded_by in by_id]
    ends = [f for f in ends if f.change == Change.END.value and f not in answer.facts]
    if not ends or not answer.text.endswith("."):
        return answer
    end = max(ends, key=lambda f: f.created_at)
    return FactAnswer(
        text=f"{answer.text[:-1]}: {lower_first(told_sentence(end))}",
        facts=(*answer.facts, end),
        why={**answer.why, end.id: "what ended it"},
    )
