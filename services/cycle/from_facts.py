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
from services.knowledge.record.extraction import DATE, Change
from services.knowledge.record.reading import USER, with_article
from services.knowledge.record.rules import says_back
from services.knowledge.record.slots import (
    SINGLE_VALUED,
    Slot,
    event_kinds,
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
    # "Where will Kofi work?": "new job at HSBC" speaks of the job and the workplace, "Kofi is an
    # accountant" of the job only; recall's order alone must not choose the narrower one
    wider = [m for m in plain[1:] if m.slots > best.slots and m.score >= best.score * JOIN_SHARE]
    best = max(wider, key=lambda m: (len(m.slots), m.score)) if wider else best
    single = best.main & SINGLE_VALUED if not _WHO.match(question) else frozenset()
    if single:  # the newest fact whose main slot it is ("I just got promoted" over "I'm a developer")
        rivals = [
            m
            for m in plain
            # "What will my new job be?": an offer speaks of a job without being "my job is"
            if (m.main >= single or (_NEW_ONE.search(question) is not None and m.slots >= single))
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
    if _NOW.search(question):  # "What bass do I have now?": the newest fact that says as much
        newer = [m for m in plain if m.share >= best.share and m.fact.created_at > best.fact.created_at]
        # "Is my blood pressure still high?": "... is under control now" is newer and as close
        newer = newer or [
            m for m in matches
            if m.fact.created_at > best.fact.created_at
            and m.score >= best.score * JOIN_SHARE
            and best.slots
            and m.slots >= best.slots
        ]  # fmt: skip
        if newer:
            return [max(newer, key=lambda m: (m.fact.created_at, m.score))]
        if not _WHO.match(question):  # "Where is Per now?": not also the older "I live ... with Per"
            return [best]
    chosen = [best]
    for other in plain[1:]:
        if len(chosen) >= MAX_FACTS or other.score < best.score * JOIN_SHARE:
            break
        chosen.append(other)
    said = [m for m in chosen if not _NO_LONGER.search(m.fact.content)]
    return said or chosen  # "Your new manager is Kwame." without "Deborah's no longer your boss."


_NOW = re.compile(r"\b(?:now|still)\b", re.IGNORECASE)
#: a question about the next one of something: "What will my new job be?", "my next job"
_NEW_ONE = re.compile(r"\b(?:new|next)\b", re.IGNORECASE)
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


_DID = re.compile(r"\bdid\s+(?:i|we)\b", re.IGNORECASE)


def _in_the_past(
    question: str, chosen: Sequence[FactMatch], history: Sequence[Fact], people: Mapping[str, frozenset[str]]
) -> FactAnswer | None:
    """ "Where did I work on weekends?" after "I stopped working at Grind": a question in the past
    that an ended fact answers more fully than a current one ("I'm a PhD student ...") gets the
    ended one, with what ended it."""
    if not history or not _DID.search(question):
        return None
    before = _chosen(match_facts(question, history, people=people), question)
    if not before or max(m.share for m in before) <= max((m.share for m in chosen), default=0.0):
        return None
    return _with_what_ended(_answer(before, earlier=True), history)


#: a question of what was: "What was my job?", "What did I do for a living?"
_WAS = re.compile(r"\b(?:was|were)\s+(?:i|my|we|our)\b|\bdid\s+(?:i|we)\b|\bused\s+to\b", re.IGNORECASE)


def _before_retiring(
    question: str, chosen: Sequence[FactMatch], history: Sequence[Fact]
) -> FactAnswer | None:
    """ "What was my job?" when the answer of now is a retirement ("I fully retired as of Friday")
    that replaced the job: the retirement and the job before it (the answer was the retirement
    alone, never the accountant)."""
    if not chosen or not _WAS.search(question) or not _RETIRE.search(chosen[0].fact.content):
        return None
    retired = chosen[0].fact
    jobs = sorted((f for f in history if f.superseded_by == retired.id), key=lambda f: f.created_at)
    if not jobs:
        return None
    job = jobs[-1]
    return FactAnswer(
        text=f"{told_sentence(retired)} Before that you told me: {lower_first(told_sentence(job))}",
        facts=(retired, job),
        why={retired.id: "says you retired", job.id: "the job the retirement ended"},
    )


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


#: what a plan's doing says once it is done ("We've moved" after "We're moving ...")
_DONE = {
    "joining": "joined",
    "starting": "started",
    "moving": "moved",
    "leaving": "left",
    "switching": "switched",
}
#: a fact that tells of a plan: "I'm joining Ledgerly in April", "from next month I'll be working
#: for myself"
_PLANNED = re.compile(
    r"\b(?:will|shall)\s+be\b|['\u2019]ll\s+be\b"
    rf"|\b(?:am|are|I['\u2019]m|we['\u2019]re)\s+(?P<doing>{'|'.join(_DONE)})\b",
    re.IGNORECASE,
)


def _until_then(answer: FactAnswer, history: Sequence[Fact], now: Sequence[Fact]) -> FactAnswer:
    """A plan that replaced what is still true until it happens ("I'm joining Ledgerly in April"
    after "I'm an accountant at Deloitte") is said with that: "Until then: you're an accountant at
    Deloitte ..." (not once a later fact says it happened: "We've moved")."""
    plans = [
        f for f in answer.facts if (found := _PLANNED.search(f.content)) and not _happened(found, f, now)
    ]
    before = [
        f
        for f in history
        if f.superseded_by in {p.id for p in plans}
        and f.change != Change.END.value
        and not _PLANNED.search(f.content)
    ]
    if before:
        old = max(before, key=lambda f: f.created_at)
        return _added(
            answer,
            f"{answer.text} Until then: {lower_first(told_sentence(old))}",
            old,
            "true until the plan happens",
        )
    moves = [f for f in plans if (found := _PLANNED.search(f.content)) and found.group("doing") == "moving"]
    placed = _placed_earlier(moves, now) if moves else []
    if not placed:  # "We're moving to Leeds in the summer" for "Where do I live?": and until then?
        return answer
    return _added(
        answer,
        f"{answer.text} Until then, going by what you told me: {lower_first(told_sentence(placed[0]))}",
        placed[0],
        "places you until the move",
    )


def _added(answer: FactAnswer, text: str, fact: Fact, why: str) -> FactAnswer:
    """The answer said as ``text``, with one more fact and why it is there."""
    return FactAnswer(text=text, facts=(*answer.facts, fact), why={**answer.why, fact.id: why})


def _happened(plan: re.Match[str], fact: Fact, now: Sequence[Fact]) -> bool:
    """A later fact says the plan's doing is done ("We've moved" after "We're moving ...")."""
    doing = (plan.group("doing") or "").lower()
    if not doing:
        return False
    done = re.compile(rf"\b{_DONE[doing]}\b", re.IGNORECASE)
    return any(f.created_at > fact.created_at and done.search(f.content) for f in now)


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
    """The relation in the user's own word ("mum", "best friend"), else its plain name (the one
    asked when the user only said whom they married: "Your wife is called Sarah.")."""
    told = {said for said in (relation_said(n, facts) for n in names) if said}
    if len(told) > 1:  # "a lab called Barney and a terrier called Pip": dogs, in the word asked
        return relation
    said = next(iter(told), relation)
    return relation if said == "spouse" else said


def _said(facts: Sequence[Fact]) -> str:
    return " ".join(told_sentence(f) for f in facts)


def _earlier(facts: Sequence[Fact]) -> str:
    # an end is history from the day it was told ("I gave up the season ticket"): nothing changed it
    ended = [f.valid_until for f in facts if f.valid_until is not None and f.change != Change.END.value]
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
    if not earlier:
        found = _of_people(question, candidates, history, everyone, gone)
        if found is not None or _asks_unnamed_relative(
            question, people_of([*candidates, *history], gone_too=True)
        ):
            return found  # None: "What's my son's name?" when no son was named, not the daughter's fact
    ranked = match_facts(question, candidates, people=people, similarity=similarity, recall=recall)
    chosen = _chosen(ranked, question)
    ended = (
        None
        if earlier
        else _what_ended(question, chosen, history, people)
        or _in_the_past(question, chosen, history, people)
        or _before_retiring(question, chosen, history)
    )
    if ended is not None:
        return ended
    off = None if earlier else _named_and_called_off(question, history, candidates, chosen)
    if off is not None:
        return off
    if chosen:
        answer = _answer(chosen, earlier=earlier)
        return (
            _with_what_ended(answer, [*candidates, *current])
            if earlier
            else _until_then(_since_then(answer, history), history, candidates)
        )
    if earlier:
        return _only_now(question, current, candidates, people)
    return (
        _from_history(question, history, candidates, people, similarity)
        or _not_yet(question, candidates)
        or _not_married(question, candidates)
        or _not_told_of(question, candidates, people)
    )


#: "Do we have a dog?", "Do I own a car?": having something
_DO_I_HAVE = re.compile(
    r"^\s*(?:do|does)\s+(?:i|we)\s+(?:have|own|got)\s+(?:a|an|any)\s+(?P<thing>[a-z]+)", re.I
)
#: having it only in mind: "thinking of getting a dog", "want to buy a car"
_IN_MIND = re.compile(
    r"\b(?:thinking\s+(?:of|about)|want(?:ing)?\s+to|planning\s+(?:to|on)|hoping\s+to|might|considering|saving\s+(?:up\s+)?for)"
    r"\s+(?:get(?:ting)?|buy(?:ing)?|adopt(?:ing)?|a|an)\b",
    re.IGNORECASE,
)


_AM_I_MARRIED = re.compile(r"^\s*am\s+i\s+(?:still\s+)?married\b", re.IGNORECASE)
_UNMARRIED = re.compile(
    r"^I['\u2019]m\s+(?:a\s+)?(?:widow(?:er|ed)?|divorced|separated|single)\b", re.IGNORECASE
)


def _not_married(question: str, candidates: Sequence[Fact]) -> FactAnswer | None:
    """ "Am I married?" after "Widower." or "I'm divorced": no, with what was said (the model
    answered "Yes, you are married.")."""
    if not _AM_I_MARRIED.match(question):
        return None
    said = [f for f in candidates if f.subject_key == USER and _UNMARRIED.match(f.content)]
    return _newest_told("No", said, "says you are not married")


def _newest_told(answer: str, said: Sequence[Fact], why: str) -> FactAnswer | None:
    """A plain answer with the newest of the facts that give it ("No, going by what you told me:
    you're a widower."), or None when none does."""
    if not said:
        return None
    newest = max(said, key=lambda f: f.created_at)
    return FactAnswer(
        text=f"{answer}, going by what you told me: {lower_first(_said([newest]))}",
        facts=(newest,),
        why={newest.id: why},
    )


def _not_yet(question: str, candidates: Sequence[Fact]) -> FactAnswer | None:
    """ "Do we have a dog?" when the user only said "we're thinking of getting a dog": not yet,
    with what was said (the model read the wish as a dog)."""
    asked = _DO_I_HAVE.match(question)
    if asked is None:
        return None
    thing = asked.group("thing").lower().removesuffix("s")
    said = [
        f
        for f in candidates
        if f.subject_key == USER
        and _IN_MIND.search(f.content)
        and (thing in word_stems(f.content) or (thing == "pet" and Slot.PET.value in f.slots))
    ]
    return _newest_told("Not yet", said, "says it is only planned")


#: what a question about someone asks, as said back ("You haven't told me Dan's job.")
_ASKED_OF_SOMEONE: dict[Slot, str] = {
    Slot.JOB: "job",
    Slot.WORKPLACE: "workplace",
    Slot.AGE: "age",
    Slot.BIRTHDAY: "birthday",
    Slot.HOME: "home",
    Slot.STUDY: "studies",
    Slot.ORIGIN: "origin",
}


#: a question for a piece of someone's life ("What is Dan's job?"), not an opinion of it ("Is Sam
#: happy with the job?")
_ASKS_WHAT = re.compile(r"^\s*(?:what|where|which|when|how\s+old)\b", re.IGNORECASE)


def _not_told_of(
    question: str, candidates: Sequence[Fact], people: Mapping[str, frozenset[str]]
) -> FactAnswer | None:
    """ "What is Dan's job?" when nothing told of Dan says it: said so, with what was told of him
    (the model made a job up; a fact it could not match, "Dan drives a bus", is there to read)."""
    focus = focus_of(question, set(people))
    asked = [what for slot, what in _ASKED_OF_SOMEONE.items() if slot in question_slots(question)]
    if not _ASKS_WHAT.match(question) or focus.user or len(focus.names) != 1 or not asked:
        return None
    (name,) = focus.names
    if name not in people:
        return None
    said = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    theirs = [f for f in candidates if f.subject_key == name or said.search(f.content)]
    if not theirs:
        return None
    told = sorted(theirs, key=lambda f: -f.created_at)[:2]
    title = name.title()
    return FactAnswer(
        text=f"You haven't told me {title}'s {asked[0]}. What you told me of {title}: {_said(told)}",
        facts=tuple(told),
        why={f.id: f"told of {title}; none of it says their {asked[0]}" for f in told},
    )


def _died(name: str, told: Sequence[Fact]) -> bool:
    """A told fact says the person died ("... since my husband Frank died", "my late wife Ann")."""
    died = re.compile(
        rf"\b{re.escape(name)}\b(?:\s+\w+){{0,2}}?\s+(?:died|passed\s+away|passed\s+on)\b"
        rf"|\blate\s+(?:\w+\s+)?{re.escape(name)}\b",
        re.IGNORECASE,
    )
    return any(died.search(f.content) for f in told)


def _names_of(
    question: str,
    named: Sequence[str],
    people: Mapping[str, frozenset[str]],
    gone: frozenset[str],
    told: Sequence[Fact],
) -> FactAnswer:
    """ "Your husband is Karim.", "Your rabbit was called Biscuit. Biscuit passed away on Tuesday."."""
    focus = focus_of(question, set(people))
    relation = _number(_relation_as_told(sorted(focus.relations)[0], told, named), len(named))
    names = " and ".join(n.title() for n in named[:3])
    verb = "is called" if len(named) == 1 else "are called"
    if len(named) == 1 and _died(named[0], told):  # "since my husband Frank died"
        verb = "was called"
    naming = {f.id: f for n in named[:3] for f in naming_facts(n, told)}
    sources = sorted(naming.values(), key=lambda f: (f.valid_until is not None, -f.created_at))
    answer = FactAnswer(
        text=f"Your {relation} {verb} {names}.",
        facts=tuple(sources[:MAX_FACTS]),
        why={f.id: f"names your {relation}" for f in sources[:MAX_FACTS]},
    )
    end = _end_of(named[0], told) if len(named) == 1 and named[0] in gone else None
    return (
        answer if end is None else _added(answer, f"{answer.text} {told_sentence(end)}", end, "what ended it")
    )


def _of_people(
    question: str,
    candidates: Sequence[Fact],
    history: Sequence[Fact],
    everyone: Mapping[str, frozenset[str]],
    gone: frozenset[str],
) -> FactAnswer | None:
    """The questions of now that the people and pets the user told of answer: their names by
    relation ("What's my husband's name?"), how many are left, whether one is still there, who
    lives with the user, who someone is ("Who is Omar?"); and "Can I ...?" a told fact rules out."""
    people = {n: r for n, r in everyone.items() if n not in gone}
    told = [*candidates, *history]
    named = named_relatives(question, people) or _named_and_died(question, everyone, gone, told)
    if named:  # "What's my husband's name?" -> "Your husband is Karim."
        return _names_of(question, named, people, gone, told)
    found = (
        _count_without_the_gone(question, everyone, gone, told)
        or _still_there(question, everyone, gone, told)
        or _have_any_left(question, everyone, gone, told)
        or _how_is_the_gone(question, everyone, gone, told)
        or _who_lives_with(question, candidates, everyone, gone, told)
        or _ruled_out(question, candidates)
    )
    if found is not None:
        return found
    doing = _WHAT_DOING.match(question)
    if doing is not None:
        return _what_they_do(doing.group("name"), candidates)
    name = who_is(question)
    if not name:
        return None
    intro = _introduction(name, told)
    about = [m for m in match_facts(question, candidates, people=people) if m.plain][:2]
    if not (intro or about):
        return None
    said = " ".join([intro, _said([m.fact for m in about])]).strip()
    return FactAnswer(text=said, facts=tuple(m.fact for m in about), why={m.fact.id: m.why for m in about})


#: "What is Yusuf doing?", "What's Kate up to these days?"
_WHAT_DOING = re.compile(
    r"^\s*(?i:what)(?:['\u2019]s|\s+is|\s+are)\s+(?P<name>[A-Z][\w'-]+)\s+(?i:doing|up\s+to)"
    r"(?i:\s+(?:now|these\s+days|at\s+the\s+moment))?\s*\??\s*$"
)


def _what_they_do(name: str, facts: Sequence[Fact]) -> FactAnswer | None:
    """ "What is Yusuf doing?": the newest of what the user told of them (the model answered
    "You are Yusuf, a small bakery ..."), or None when nothing was told."""
    key = name.lower()
    about = sorted((f for f in facts if f.subject_key == key), key=lambda f: -f.created_at)[:2]
    if not about:
        return None
    return FactAnswer(
        text=_said(about), facts=tuple(about), why={f.id: f"the newest you told of {name}" for f in about}
    )


def _only_now(
    question: str,
    current: Sequence[Fact],
    earlier: Sequence[Fact],
    people: Mapping[str, frozenset[str]],
) -> FactAnswer | None:
    """A "before" question nothing earlier answers: said so, with what is true now (and an older
    fact, current or ``earlier``, that places the user elsewhere)."""
    now = _chosen(match_facts(question, current, people=people), question) if current else []
    if not now:
        return None
    said = _said([m.fact for m in now])
    retired = _RETIRED.search(said) if _RETIRE.search(question) else None
    if retired:  # "What did I do before I retired?" of "I'm a retired postman"
        return FactAnswer(
            text=f"Before you retired you were {with_article(retired.group('role'))}: {lower_first(said)}",
            facts=tuple(m.fact for m in now),
            why={m.fact.id: m.why + "; what a retired role was" for m in now},
        )
    asks_home = Slot.HOME in question_slots(question)
    placed = _placed_earlier([m.fact for m in now], [*current, *earlier]) if asks_home else []
    unknown = (
        f"You haven't told me where you lived before, but earlier you told me: {lower_first(_said(placed))}"
        if placed
        else "I don't know what it was before: you haven't told me."
    )
    now_said = _TRAILING_NOW.sub(r"\1", said)  # "Now: you live in Kreuzberg." (not "... now.")
    return FactAnswer(
        text=f"{unknown} Now: {lower_first(now_said)}",
        facts=tuple(m.fact for m in now) + tuple(placed),
        why={m.fact.id: m.why + "; nothing earlier told" for m in now}
        | {f.id: "an earlier fact that places you elsewhere" for f in placed},
    )


_RETIRE = re.compile(r"\bretir", re.IGNORECASE)
_RETIRED = re.compile(r"\bretired\s+(?P<role>[a-z][\w -]*?)(?=[,.;]|\s+(?:from|in|at|who|and)\b|$)")
_TRAILING_NOW = re.compile(r"[,\s]+now([.!]?)$", re.IGNORECASE)
#: a place a fact puts someone in ("at a fintech in Milan")
_IN_PLACE = re.compile(r"\bin\s+(?P<place>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")


def _places(text: str) -> set[str]:
    """The places ``text`` puts someone in ("in Milan"), not a time ("in March")."""
    found = {m.group("place") for m in _IN_PLACE.finditer(text)}
    return {place for place in found if not (DATE.fullmatch(place) or DATE.fullmatch(f"in {place}"))}


def _placed_earlier(now: Sequence[Fact], told: Sequence[Fact]) -> list[Fact]:
    """Where the user lived before was never told, but an older fact about them, still true or
    not, names another place ("I'm a backend developer at a fintech in Milan" before "We live in
    Kreuzberg now"; "I'm a UX designer at Spotify in Stockholm" that "I'm working remotely for
    Spotify now" replaced): the newest such fact, for the user to read as they will."""
    since = min(f.created_at for f in now)
    here = {place for f in now for place in _places(f.content)}
    older = [f for f in told if f.subject_key == USER and f.created_at < since]
    older = [f for f in older if _places(f.content) - here]
    return sorted(older, key=lambda f: f.created_at)[-1:]


def _from_history(
    question: str,
    history: Sequence[Fact],
    current: Sequence[Fact],
    people: Mapping[str, frozenset[str]],
    similarity: Mapping[str, float] | None,
) -> FactAnswer | None:
    """A question of now that only an earlier fact answers ("What was our cat called?"), with
    what ended it (an earlier or a ``current`` fact); "Not any more." first for a yes/no question."""
    before = _chosen(match_facts(question, history, people=people, similarity=similarity), question)
    if not before:
        return _event_called_off(question, history)
    answer = _with_what_ended(_answer(before, earlier=True), [*history, *current])
    if _ASKS_YES_NO.match(question):  # "Am I still in the choir?" when that ended: no
        return FactAnswer(text=f"Not any more. {answer.text}", facts=answer.facts, why=answer.why)
    return _the_end_first(answer)


_PARTED = re.compile(r"\b(?:broke\s+up|split\s+up|split|divorced|separated|dumped)\b", re.IGNORECASE)


def _the_end_first(answer: FactAnswer) -> FactAnswer:
    """ "When is my hearing test?" after "Hearing test got cancelled": what ended it is the answer of
    now ("Your hearing test got cancelled, they'll send a new date."), not "Earlier you told me: your
    hearing test is on 8 March. That changed ..."; the earlier fact stays among the answer's facts."""
    ended = [
        f for f in answer.facts if f.change == Change.END.value and answer.why.get(f.id) == "what ended it"
    ]
    if not ended or _PARTED.search(ended[-1].content):  # a break-up ends the couple, not her studies
        return answer
    end = ended[-1]
    return FactAnswer(text=told_sentence(end), facts=answer.facts, why=answer.why)


#: a name said inside a sentence ("Cornwall" of "Are we still going to Cornwall?")
_NAMED = re.compile(r"(?<=\w )[A-Z][\w'-]+")


def _event_called_off(question: str, history: Sequence[Fact]) -> FactAnswer | None:
    """ "Am I still getting married?" after "The wedding is off.": no, with what ended it (the
    question's words are not the fact's; the kind of event is)."""
    if not _ASKS_YES_NO.match(question):
        return None
    kinds, names = event_kinds(question), _NAMED.findall(question)
    ended = [
        f
        for f in history
        if f.change == Change.END.value
        and (
            kinds & event_kinds(f.content)
            or {n.lower() for n in names} & {n.lower() for n in _NAMED.findall(f.content)}
        )
    ]  # "Are we still going to Cornwall?" after "We cancelled Cornwall"
    if not ended:
        return None
    newest = max(ended, key=lambda f: f.created_at)
    why = {newest.id: "the event asked about was called off"}
    return FactAnswer(text=f"No. {_said([newest])}", facts=(newest,), why=why)


def _named_and_called_off(
    question: str, history: Sequence[Fact], now: Sequence[Fact], chosen: Sequence[FactMatch]
) -> FactAnswer | None:
    """ "Are we going to Center Parcs?" after "we cancelled Center Parcs and we're going camping in
    the Lake District instead": no, with what took its place (the answer was only the camping,
    which never said no). Only when no current fact names what was called off again."""
    names = {n.lower() for n in _NAMED.findall(question)}
    if not names or any(names & {n.lower() for n in _NAMED.findall(f.content)} for f in now):
        return None
    off = _event_called_off(question, history)
    if off is None or not names & {n.lower() for f in off.facts for n in _NAMED.findall(f.content)}:
        return None
    instead = [m.fact for m in chosen[:1]]
    if not instead:
        return off
    return _added(off, f"{off.text} {told_sentence(instead[0])}", instead[0], "what takes its place now")


_HOW_MANY = re.compile(r"^\s*how\s+many\b", re.IGNORECASE)
_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _count_without_the_gone(
    question: str, everyone: Mapping[str, frozenset[str]], gone: frozenset[str], facts: Sequence[Fact]
) -> FactAnswer | None:
    """ "How many guinea pigs do I have?" after "two guinea pigs, Peanut and Biscuit" and
    "Biscuit died": the ones still there, counted, with what ended the others (None when no one
    of that relation left: the fact that counts them answers)."""
    if not _HOW_MANY.match(question):
        return None
    focus = focus_of(question, set(everyone))
    if focus.names or not focus.relations:
        return None
    return _those_left(sorted(focus.relations), everyone, gone, facts)


def _those_left(
    relations: Sequence[str],
    everyone: Mapping[str, frozenset[str]],
    gone: frozenset[str],
    facts: Sequence[Fact],
) -> FactAnswer | None:
    """ "You have one guinea pig now: Peanut. Biscuit died last night.": those of the relations
    still there, counted, and what ended the others; None when none of them left."""
    asked = _having(relations, everyone)
    left = [n for n in asked if n in gone]
    if not left:
        return None
    staying = [n for n in asked if n not in gone]
    relation = _number(_relation_as_told(relations[0], facts, asked), len(staying) or 2)
    count = _COUNTS[len(staying)] if len(staying) < len(_COUNTS) else str(len(staying))
    names = " and ".join(n.title() for n in staying)
    said = f"You have {count} {relation} now" + (f": {names}." if names else ".")
    ends = [f for f in facts if f.change == Change.END.value and who_left(f) in left]
    ends.sort(key=lambda f: f.created_at)
    named = [f for n in staying for f in naming_facts(n, facts)]
    sources = list({f.id: f for f in [*named, *ends]}.values())[:MAX_FACTS]
    return FactAnswer(
        text=" ".join([said, *(told_sentence(f) for f in ends)]),
        facts=tuple(sources),
        why={f.id: "what ended it" if f in ends else f"names your {relation}" for f in sources},
    )


def _still_there(
    question: str, everyone: Mapping[str, frozenset[str]], gone: frozenset[str], facts: Sequence[Fact]
) -> FactAnswer | None:
    """ "Is my brother Frank still alive?", "Do I still have Biscuit?" after "my brother Frank
    passed away": no, with what ended it (never "Yes, Frank passed away"); "Do I still have
    Peanut?" when only Biscuit died: yes, with who is left."""
    if not (_ASKS_YES_NO.match(question) and _STILL.search(question)):
        return None
    names = focus_of(question, set(everyone)).names & set(everyone)
    ends = [end for name in names & gone if (end := _end_of(name, facts)) is not None]
    if ends:
        end = max(ends, key=lambda f: f.created_at)
        return FactAnswer(text=f"No. {told_sentence(end)}", facts=(end,), why={end.id: "what ended it"})
    relations = sorted({r for n in names for r in everyone[n]})
    left = _those_left(relations, everyone, gone, facts) if names and relations else None
    if left is None:
        return None
    return FactAnswer(text=f"Yes. {left.text}", facts=left.facts, why=left.why)


def _having(relations: Sequence[str], everyone: Mapping[str, frozenset[str]]) -> list[str]:
    """The people and pets told of in any of these relations to the user ("pet" covers Biscuit)."""
    return [n for n, told in everyone.items() if any(relation_covers(a, t) for a in relations for t in told)]


def _end_of(name: str, facts: Sequence[Fact]) -> Fact | None:
    """The newest told end of someone ("Biscuit passed away on Tuesday"), or None."""
    ends = [f for f in facts if f.change == Change.END.value and who_left(f) == name]
    return max(ends, key=lambda f: f.created_at) if ends else None


def _named_and_died(
    question: str, everyone: Mapping[str, frozenset[str]], gone: frozenset[str], told: Sequence[Fact]
) -> list[str]:
    """ "What's my rabbit called?" when the only rabbit told of has died: that one (said as "was
    called", with the death), not a fact that happened to name it once."""
    named = named_relatives(question, {n: r for n, r in everyone.items() if n in gone})
    return named if len(named) == 1 and _died(named[0], told) else []


def _have_any_left(
    question: str, everyone: Mapping[str, frozenset[str]], gone: frozenset[str], facts: Sequence[Fact]
) -> FactAnswer | None:
    """ "Do I have any pets?" after "our rabbit Biscuit" and "Biscuit passed away": not any more,
    with what ended it (an answer said the home fact that named the rabbit had been replaced by a
    move); with some still there, yes and who (``_those_left``); None when no one of it left."""
    if not _DO_I_HAVE.match(question):
        return None
    focus = focus_of(question, set(everyone))
    if focus.names or not focus.relations:
        return None
    asked = _having(sorted(focus.relations), everyone)
    if not asked or not set(asked) <= gone:
        left = _those_left(sorted(focus.relations), everyone, gone, facts)
        return None if left is None else FactAnswer(text=f"Yes. {left.text}", facts=left.facts, why=left.why)
    ends = sorted(filter(None, (_end_of(n, facts) for n in asked)), key=lambda f: f.created_at)[:MAX_FACTS]
    if not ends:
        return None
    said = " ".join(told_sentence(f) for f in ends)
    why = {f.id: "what ended it" for f in ends}
    return FactAnswer(text=f"Not any more. {said}", facts=tuple(ends), why=why)


#: "How is Biscuit?", "How's Nan doing?", "Is Biscuit OK?"
_HOW_IS = re.compile(
    r"^\s*(?i:how\s+is|how['\u2019]s|how\s+are|is|are)\s+(?P<name>[A-Z][\w'-]+)"
    r"(?:\s+(?i:doing|getting\s+on|keeping|ok|okay|alright|all\s+right|well|these\s+days|now))*\s*\??\s*$"
)


def _how_is_the_gone(
    question: str, everyone: Mapping[str, frozenset[str]], gone: frozenset[str], facts: Sequence[Fact]
) -> FactAnswer | None:
    """ "How is Biscuit?" / "Is Biscuit OK?" after "Biscuit passed away on Tuesday": what ended
    it, said plainly (an answer began "Not any more. Earlier you told me: Biscuit passed away ...")."""
    asked = _HOW_IS.match(question)
    name = asked.group("name").lower() if asked is not None else ""
    if name not in gone:
        return None
    end = _end_of(name, facts)
    if end is None:
        return None
    return FactAnswer(text=told_sentence(end), facts=(end,), why={end.id: "what ended it"})


#: "Can I play football this weekend?": what the user asks whether they may do
_MAY_I_DO = re.compile(r"^\s*(?:can|could|may|should|shall)\s+(?:i|we)\s+(?P<doing>[^?]+)", re.IGNORECASE)
#: "no football till March", "can't drive for six weeks": what a told fact rules out
_NO_MORE = re.compile(
    r"\b(?:not\s+(?:allowed|supposed)\s+to|banned\s+from|can['\u2019]t|cannot|mustn['\u2019]t|shouldn['\u2019]t|no|not)"
    r"\s+(?:\w+\s+){0,2}?(?P<thing>\w{3,})\b",
    re.IGNORECASE,
)


def _ruled_out(question: str, facts: Sequence[Fact]) -> FactAnswer | None:
    """ "Can I play football this weekend?" after "I've done my knee so no football till March":
    not yet, with the fact (a model answered "Yes, you can play football this weekend.")."""
    asked = _MAY_I_DO.match(question)
    if asked is None:
        return None
    doing = word_stems(asked.group("doing"))
    ruling = [
        f
        for f in facts
        if f.subject_key == USER
        and f.valid_until is None
        and any(word_stems(m.group("thing")) & doing for m in _NO_MORE.finditer(f.content))
    ]
    if not ruling:
        return None
    fact = max(ruling, key=lambda f: f.created_at)
    return FactAnswer(
        text=f"Better not, going by what you told me: {lower_first(told_sentence(fact))}",
        facts=(fact,),
        why={fact.id: "rules out what you asked about"},
    )


_WHO_LIVES_WITH = re.compile(
    r"^\s*who\s+(?:else\s+)?(?:(?:lives|live|is\s+living|stays|is\s+staying)\s+with\s+(?:us|me)"
    r"|do\s+(?:i|we)\s+(?:live|share\s+a\s+(?:flat|house))\s+with)\b",
    re.IGNORECASE,
)
#: a fact that someone lives with the user, or that the user lives with someone
_LIVES_WITH_USER = re.compile(
    r"\b(?:lives?|living|stays?|staying|moved\s+in)\s+with\s+(?:us|me)\b"
    r"|^(?:I|We)\b[^.]*\b(?:live|living|share)\b[^.]*\bwith\b",
    re.IGNORECASE,
)


_LIVES_ALONE = re.compile(
    r"^(?:I|We)\b[^.]*\b(?:live|living)\b[^.]*\b(?:on\s+my\s+own|alone|by\s+myself)\b", re.IGNORECASE
)


def _who_lives_with(
    question: str,
    facts: Sequence[Fact],
    everyone: Mapping[str, frozenset[str]],
    gone: frozenset[str],
    told: Sequence[Fact],
) -> FactAnswer | None:
    """ "Who lives with us?": the facts that say someone lives with the user ("My mum Grace lives
    with us now", "I live in Hull with my boyfriend Dario"), not where the user lives; the
    flatmates still there when one moved out."""
    if not _WHO_LIVES_WITH.match(question):
        return None
    found = sorted((f for f in facts if _LIVES_WITH_USER.search(f.content)), key=lambda f: -f.created_at)
    alone = sorted((f for f in facts if _LIVES_ALONE.search(f.content)), key=lambda f: -f.created_at)
    if alone and (not found or alone[0].created_at > found[0].created_at):
        found = alone[:1]  # "I live in Leicester on my own": no one, said as told
    if not found:
        return _those_left(["flatmate"], everyone, gone, told)
    answer = FactAnswer(
        text=_said(found[:MAX_FACTS]),
        facts=tuple(found[:MAX_FACTS]),
        why={f.id: "says who lives with you" for f in found[:MAX_FACTS]},
    )
    return _since_then(answer, [f for f in told if f.valid_until is not None])


def _without_the_gone(
    question: str, candidates: Sequence[Fact], gone: frozenset[str], people: Mapping[str, frozenset[str]]
) -> list[Fact]:
    """ "How many cats do I have?": what was said of a pet or person who has since left is no
    answer of now (unless the question names them: "What does Anke do?")."""
    if not gone or focus_of(question, set(people) | gone).names:
        return list(candidates)
    return [f for f in candidates if f.subject_key not in gone]


def _says_what_ended(old: Fact, new: Fact) -> bool:
    """The newer fact says what became of the older one: an end, a return, or the same thing of
    the same subject with another value (not a fact that only happened to replace it)."""
    same = new.subject_key == old.subject_key and (
        new.attribute == old.attribute or bool(set(new.slots) & set(old.slots))
    )
    return new.change == Change.END.value or says_back(new.content) or same


def _with_what_ended(answer: FactAnswer, history: Sequence[Fact]) -> FactAnswer:
    """An earlier fact said for a question of now, with what ended it when that was an end, a
    return or the same fact changed ("... That changed on Tuesday 6 January 2026: Fig had to be
    rehomed."; "...: Saffron came home."; "...: you're a nurse on days at Southmead.")."""
    by_id = {f.id: f for f in history}
    ends = [
        new
        for old, new in ((f, by_id.get(f.superseded_by or "")) for f in answer.facts)
        if new is not None and new not in answer.facts and _says_what_ended(old, new)
    ]
    if not ends or not answer.text.endswith("."):
        return answer
    end = max(ends, key=lambda f: f.created_at)
    return _added(answer, f"{answer.text[:-1]}: {lower_first(told_sentence(end))}", end, "what ended it")
