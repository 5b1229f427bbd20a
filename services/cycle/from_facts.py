"""The one answer given without the model: a question that names one subject and one attribute,
which exactly one current claim holds.

"What is my name?", "When is Tomás's birthday?", "What's my job?": every content word of the
question is the claim's subject, its attribute or a word that only frames a question, and no
other current claim of that subject has that attribute. The answer is rendered from the claim's
fields (never the user's clause turned round), with the day it was told. Everything else goes
to the model with the claims that match (services/cycle/synthesis.py): a wrong answer given
without the model is the worst outcome, so this path is narrow on purpose.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from services.common.dates import when_text
from services.common.pasted import is_pasted
from services.common.timeline import starts_at
from services.common.understanding import asks_history, understand
from services.cycle.fact_match import focus_of, question_stems, stems_of, subject_stems
from services.cycle.not_told import FRAME_WORDS
from services.knowledge.claims.render import claim_line, ended
from services.knowledge.claims.verify import plain
from services.recall.lexical import stem
from services.recall.types import RecallHit
from thea.models import Fact, NodeType

#: the words that open a question asking for a value (not yes/no, not how-to)
_WH = frozenset({"what", "whats", "when", "whens", "where", "wheres", "who", "whos", "which"})
_FRAME = frozenset(stem(w) for w in FRAME_WORDS)
#: a question with one of these asks for advice or a guess, not for what was told
_MODALS = frozenset({"should", "could", "would", "might", "shall", "will", "must", "ought"})
#: the longest quote an answer shows (characters)
QUOTE_SHOWN = 240


@dataclass
class FactAnswer:
    text: str
    facts: list[Fact] = field(default_factory=list)
    #: why each fact answers (by id), for the trace
    why: dict[str, str] = field(default_factory=dict)


def told_sentence(fact: Fact) -> str:
    """A claim as the user is told it: "Your car: Toyota Corolla.", "Rui (your brother), home:
    Lyon."; a fact told before claims existed, as it was stored."""
    if fact.attribute and fact.quote is not None:
        return claim_line(fact)
    return fact.content


def quote_of(fact: Fact, shown: set[str] | None = None, avoid: Collection[str] = ()) -> str:
    """The user's own words a claim was read from, when they say more than its line (the reading
    keeps one value; the words keep what it left out, and show where it came from), else "".
    ``shown``: quotes already said in this answer (each is said once); ``avoid``: values no
    longer true (words that name one are not said in an answer about what is true now)."""
    line = told_sentence(fact)
    quote = " ".join((fact.quote or "").split())
    if not quote or not stems_of(quote) - stems_of(line) or (shown is not None and quote in shown):
        return ""
    if fact.value and not stems_of(fact.value) & stems_of(quote):
        return ""  # words that say nothing of its value (the items a list kept, told by an end)
    folded = quote.casefold()
    if any(value.casefold() in folded for value in avoid if value.strip()):
        return ""
    if shown is not None:
        shown.add(quote)
    if len(quote) > QUOTE_SHOWN:
        quote = quote[: QUOTE_SHOWN - 1].rstrip() + "\u2026"
    return f"\u201c{quote}\u201d"


def with_quote(fact: Fact, shown: set[str] | None = None, avoid: Collection[str] = ()) -> str:
    """A claim's line with the user's words it was read from when they say more ("Kavya (your
    friend), engagement: engaged (you said: “Kavya got engaged to Nikhil”).")."""
    line = told_sentence(fact)
    quote = quote_of(fact, shown, avoid)
    return f"{line.rstrip('.')} (you said: {quote})." if quote else line


def earlier_values(stored: Sequence[Fact]) -> frozenset[str]:
    """The values of claims no longer true that no current claim holds, and their times as told
    that no current claim was told with (an answer about what is true now never says them, not
    even inside the user's words: first contact, set 7, "when is the concert now?" -> "19
    December", copied from the line that told it, after it was postponed to the 21st)."""
    current = {v.casefold() for f in stored if f.valid_until is None for v in (f.value, f.when) if v}
    closed = [f for f in stored if f.valid_until is not None]
    return frozenset(v for f in closed for v in (f.value, f.when) if v and v.casefold() not in current)


def ended_values(stored: Sequence[Fact]) -> frozenset[str]:
    """The values of claims telling that something stopped ("We leave Tallaght finally": home,
    Tallaght, ended) that no current claim of another kind holds: the user's words that say it
    never answer what is true now with it (first contact, set 10: "What part of Ireland is home
    for me at the moment?" -> "Tallaght", copied from that line before the new home was read)."""
    held = {f.value.casefold() for f in stored if f.valid_until is None and not ended(f) and f.value}
    return frozenset(f.value for f in stored if ended(f) and f.value and f.value.casefold() not in held)


def replaced_by(fact: Fact, shown: Sequence[Fact]) -> Fact | None:
    """The newest claim no longer true that ``fact`` (a current claim) took the place of: one it
    superseded, else one about the same subject and attribute (an ended one too: "I quit the
    Clifton Wanderers"); None for a claim no longer true itself."""
    if fact.valid_until is not None or ended(fact):
        return None
    earlier = [f for f in shown if f.id != fact.id and (f.valid_until is not None or ended(f))]
    for candidates in (
        [f for f in earlier if f.superseded_by == fact.id],
        [f for f in earlier if (f.subject_key, f.attribute) == (fact.subject_key, fact.attribute)],
    ):
        if candidates:
            return max(candidates, key=lambda f: (f.valid_until or 0, f.created_at))
    return None


def _asks_a_value(question: str) -> bool:
    words = plain(question).split()
    return bool(words) and words[0] in _WH and not _MODALS & set(words)


#: question words that ask for something other than who someone is ("who is Kluska?" is answered
#: by "Your cat: Kluska"; "what breed is Kluska?" is not)
_ASKS_OTHER_THAN_WHO = (_WH | {"how", "hows"}) - {"who", "whos"}


def _asks_other_than_who(question: str) -> bool:
    words = plain(question).split()
    return bool(words) and words[0] in _ASKS_OTHER_THAN_WHO


def restates(fact: Fact, question: str) -> bool:
    """The claim says nothing the question does not already say: its value (and its time) are
    all in the question, which asks what, when, where, which or how ("What does Ama do for a
    living?" -> "Your wife: Ama"; "What breed is Kluska?" -> "Your cat: Kluska"). Such a claim
    names whom the question is about; it is no answer."""
    if not _asks_other_than_who(question):
        return False
    said = stems_of(f"{fact.value or ''} {fact.when or ''}")
    return bool(said) and said <= stems_of(question)


def naming_only(fact: Fact, question: str) -> frozenset[str]:
    """The words of a claim's line that only name whom it is about (its subject's name and
    relation, not its value), when the question asks something other than who someone is: copied
    as the answer, they state nothing asked ("What was Moira's maiden name?" -> "your wife", of
    "Moira (your wife), death: four years ago this March", first contact set 23)."""
    if not _asks_other_than_who(question):
        return frozenset()
    return subject_stems(fact) - stems_of(fact.value or "")


def answer_from_claims(
    question: str, current: Sequence[Fact], avoid: Collection[str] = ()
) -> FactAnswer | None:
    """The answer when exactly one current claim holds what the question names, else None
    (``avoid``: values no longer true, never said in the words it quotes)."""
    if not _asks_a_value(question) or asks_history(question):
        return None
    focus = focus_of(question, current)
    if not focus:
        return None
    asked = question_stems(question)
    held = [
        f
        for f in current
        if (f.subject_key or "") in focus
        and f.valid_until is None
        and f.quote is not None
        and stems_of(f.attribute or "")
        and stems_of(f.attribute or "") <= asked
    ]
    if len(held) != 1 or ended(held[0]):
        return None
    fact = held[0]
    if len(focus) != 1 or asked - stems_of(fact.attribute or "") - subject_stems(fact) - _FRAME:
        return None  # the question says more than the claim's subject and attribute
    quote = quote_of(fact, avoid=avoid)
    told = f"You told me on {when_text(fact.created_at)}" + (f": {quote}" if quote else "")
    said = f"{told_sentence(fact)} ({told}.)"
    return FactAnswer(text=said, facts=[fact], why={fact.id: f"the one current claim of {fact.attribute}"})


def picked_answer(
    facts: Sequence[Fact], avoid: Collection[str] = (), planned: Collection[str] = ()
) -> FactAnswer:
    """The answer made of the claims the model picked: each as its line (an earlier one with
    until when it held), in the order picked, with the user's words where they say more
    (``avoid``: values no longer true, never said in those words); what ended ("Your packing
    list: hat (no longer)") after what holds; the ids ``planned`` are of claims told ahead, said
    after the others with the day they start ("From Friday 2 April 2027 (planned): ...")."""
    said: list[str] = []
    quoted: set[str] = set()
    for fact in sorted(facts, key=lambda f: (ended(f), f.id in planned)):
        line = with_quote(fact, quoted, avoid)
        if fact.valid_until is not None:
            line = f"Earlier: {line.rstrip('.')} (until {when_text(fact.valid_until)})."
        elif fact.id in planned:
            line = f"From {when_text(starts_at(fact) or fact.created_at)} (planned): {line}"
        said.append(line)
    why = {f.id: "picked by the model as the answer" for f in facts}
    return FactAnswer(text=" ".join(said), facts=list(facts), why=why)


def label_of(fact: Fact) -> tuple[str | None, str]:
    """Whom a claim is about and its label, case aside: claims alike here hold one thing."""
    return fact.subject_key, (fact.attribute or "").casefold()


def without_ends_beside_current(chosen: Sequence[Fact]) -> list[Fact]:
    """The claims chosen to answer what is true now, less an end of something whose subject and
    label a current claim chosen holds (live: "where do I work now?" -> the new café, then "Your
    workplace: Anchor (no longer)"): what holds answers; what stopped is history. An end alone
    ("Your car: Golf (no longer)") is kept: it is all that is known."""
    held = {label_of(f) for f in chosen if f.valid_until is None and not ended(f)}
    return [f for f in chosen if not (ended(f) and label_of(f) in held)]


def same_label(chosen: Sequence[Fact], shown: Sequence[Fact]) -> list[Fact]:
    """The current claims shown beside those chosen that hold another value of a chosen current
    claim's subject and label ("diet: lactose intolerant" beside "diet: vegetarian"): both
    hold, so an answer of one may leave out the other. Ended claims are not among them."""
    labels = {label_of(f) for f in chosen if f.valid_until is None}
    picked = {f.id for f in chosen}
    return [
        f
        for f in shown
        if f.id not in picked and f.valid_until is None and not ended(f) and label_of(f) in labels
    ]


def candidate_line(fact: Fact) -> str:
    """A claim as the model choosing an answer sees it (an earlier one marked)."""
    line = told_sentence(fact)
    return f"EARLIER: {line}" if fact.valid_until is not None else line


#: newer words of the user said after an answer from claims, at most
NEWER_SHOWN = 2
#: characters of each shown
NEWER_CHARS = 240


@dataclass(frozen=True)
class SaidSince:
    """What the user told in one later message (its statements only), and when."""

    at: int
    text: str


def said_since(
    facts: Sequence[Fact],
    hits: Sequence[RecallHit],
    asking_id: str,
    question: str,
    read: Collection[str] = frozenset(),
) -> list[SaidSince]:
    """What the user told after every claim an answer says, in recalled messages of theirs whose
    told words share a word with the question (newest first): a change not read yet, or read
    otherwise ("the conference is on the 21st, not the 14th" a minute after "conference: 14
    January" was answered). Code cannot tell which is true: the answer shows both, dated. Only
    statements count: a request's or a question's words tell nothing ("any ideas for a present
    for Tom?" is not news about Tom). A message that shares only the name of whom the answer is
    about counts when no claim was read from it (``read``: the messages claims were read from): it
    may hold a change the reading missed ("Biscuit had his 8th birthday on Sunday", its "8" read
    into no claim); one read into claims says nothing more of what is asked (live: "how old is
    Femi?" -> "age: 9. Since then you said: “Femi's got football at 6”")."""
    said_at = max(f.created_at for f in facts) if facts else 0
    sources = {f.source_message_id for f in facts}
    asked = question_stems(question)
    named = {s for f in facts for s in subject_stems(f)}
    out: list[SaidSince] = []
    for hit in sorted(hits, key=lambda h: h.created_at, reverse=True):
        if (
            hit.type != NodeType.USER_IMPULSE.value
            or hit.id in (asking_id, *sources)
            or hit.created_at <= said_at
            or is_pasted(hit.text)
        ):
            continue
        told = " ".join(understand(hit.text).statements)
        shared = stems_of(told) & asked if told else frozenset()
        if shared and (hit.id not in read or shared - named):
            out.append(SaidSince(hit.created_at, told))
    return out[:NEWER_SHOWN]


def with_said_since(answer: str, newer: Sequence[SaidSince]) -> str:
    """The answer, then what the user said since, in their words and dated."""
    if not newer:
        return answer
    said = "; ".join(f"on {when_text(n.at)}: \u201c{_shown(n.text)}\u201d" for n in newer)
    return f"{answer} Since then you said {said}."


def _shown(text: str) -> str:
    """The user's words on one line, cut at :data:`NEWER_CHARS` with an ellipsis saying so."""
    flat = " ".join(text.split())
    return flat if len(flat) <= NEWER_CHARS else flat[:NEWER_CHARS].rstrip() + "\u2026"
