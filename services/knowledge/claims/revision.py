"""Revision: the user's earlier claims a new message changes, read beside them.

The claims reader reads a message alone and a small model misses many changes told in everyday
words, above all corrections ("I told you Dale past in 2021 but it was 2022"). So the message is
read again beside its **neighbours**: the user's current claims whose words it says (the
subject's name, the value, the attribute; not the words of the quote a claim came from, which
share some word with any message), a claim about someone else only when the message names them
or its value. The claims model reads the message
beside one neighbour at a time (services/prompts/revise_claims.py); code keeps a change only
when

* a new value is the user's words (in the message), not the old value, and the quote kept is
  the message's sentence that holds it (the model often copies the fact's words as its quote);
* an end's quote is a run of the message's words;
* a claim of the user's is not changed by a sentence naming someone else of the record ("Nia got
  the head of year job" is Nia's news, not the user's job), nor someone else's by a sentence
  that speaks only of the writer ("my slot is moved to 13 January" is not the cousin's wedding);
* nothing in the quote gives orders;
* the message, asked for the claim's attribute alone, answers the new value
  (services/knowledge/claims/value_check.py: "Keisha, age: silly mistake" is not kept).

A change becomes a claim under the old claim's subject and attribute that closes that claim
(and only it); nothing is deleted.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from services.common.held import numbers
from services.common.llm_calls import ask_structured
from services.knowledge.claims.render import names_subject, told_claim
from services.knowledge.claims.supersession import (
    content_stems,
    dateless_beside_a_day,
    items_left,
    list_items,
    names_itself,
)
from services.knowledge.claims.value_check import answers_its_label
from services.knowledge.claims.verify import (
    hostile,
    plain,
    quoted_in,
    sentence_holding,
    sentence_of,
    speaks_of_someone,
    tidy,
    within,
)
from services.prompts import revise_claims as revising
from services.prompts.extract_claims import ClaimKind, ClaimOut, is_list_label
from thea.errors import LLMError
from thea.models import USER_SUBJECT, Fact, LLMUsage
from thea.words import FIRST_PERSON

log = logging.getLogger(__name__)

#: earlier claims one message is read beside at most (one short model call each)
MAX_NEIGHBOURS = 4


@dataclass(frozen=True)
class Revised:
    """An earlier claim the message changes, and the change as a claim of the message."""

    old: Fact
    claim: ClaimOut


@dataclass
class Revisions:
    found: list[Revised] = field(default_factory=list)
    #: the model's changes code did not keep (for the job's trace)
    dropped: list[ClaimOut] = field(default_factory=list)
    usage: LLMUsage = field(default_factory=LLMUsage)


def _subject_words(fact: Fact) -> set[str]:
    return content_stems(f"{fact.subject_key} {fact.relation or ''}")


def neighbours(text: str, current: Sequence[Fact], limit: int = MAX_NEIGHBOURS) -> list[Fact]:
    """The current claims the message may change: those whose value, attribute or subject's name
    it says, most such words first (newest first among equals); a claim about someone else only
    when the message names them or its value; a claim that only names someone never (every
    sentence about them names them)."""
    said = content_stems(text)
    scored: list[tuple[int, int, Fact]] = []
    for fact in current:
        if names_subject(fact) or names_itself(fact):
            continue
        value = content_stems(fact.value or "")
        theirs = fact.subject_key != USER_SUBJECT
        if theirs and not (_subject_words(fact) | value) & said:
            continue
        # not the words of the quote it came from: a long one shares some word with any message
        # (set 9: "Your home: Loudonville", told in a sentence about "31 years" of driving, was
        # read beside "the knee has been bone on bone for two years" and "replaced" by its date)
        words = value | content_stems(fact.attribute or "")
        if theirs:
            words |= _subject_words(fact)
        shared = len(words & said)
        if shared:
            scored.append((shared, fact.created_at, fact))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    return [fact for _, _, fact in scored[:limit]]


def _others(current: Sequence[Fact]) -> set[str]:
    """The words naming the record's other subjects (not the user)."""
    return {
        word
        for fact in current
        if fact.subject_key != USER_SUBJECT
        for word in content_stems(fact.subject_key or "")
    }


def kept_change(old: Fact, out: revising.FactRevised, message: str, others: set[str]) -> ClaimOut | None:
    """The change as a claim of the message, or None when the message does not bear it out."""
    kind = out.verdict.kind
    # an item put on a list replaces nothing (the reader reads it as one more)
    if kind is None or (kind is ClaimKind.REPLACES and is_list_label(old.attribute)):
        return None
    if kind is ClaimKind.ENDS:
        quote, ended = tidy(out.quote), _ended_value(old, out)
        if not quote or not quoted_in(quote, message) or ended is None:
            return None
        value = ended
    else:
        value = tidy(out.value)
        if not value or plain(value) == plain(old.value or "") or not within(value, message):
            return None
        quote, holding = tidy(out.quote), sentence_holding(value, message)
        if not (quoted_in(quote, message) and within(value, quote)):
            quote = holding
        if not quote or not_a_value(value, old, holding, others):
            return None
        if dateless_beside_a_day(value, "", old.created_at, old):
            return None  # another thing about the event, not its new day (supersession.py)
    if hostile(quote) or hostile(value):
        return None
    if old.subject_key == USER_SUBJECT and content_stems(quote) & others:
        return None  # another's news is not a change of the user's
    if old.subject_key != USER_SUBJECT and writer_only(quote, message, old):
        return None  # the writer's own news is not a change of another's
    return told_claim(old, quote, value, kind)


def _ended_value(old: Fact, out: revising.FactRevised) -> str | None:
    """What an end of the claim ends: one item of a list (supersession keeps the items left),
    else the claim's value; None for an end of a list naming none of its items (a list ends item
    by item: a live trial ended the whole packing list beside "cross off the hat")."""
    item = tidy(out.value)
    if item and items_left(old, old.model_copy(update={"value": item})) is not None:
        return item
    if is_list_label(old.attribute) and len(list_items(old.value or "")) > 1:
        return None
    return old.value or ""


def writer_only(quote: str, message: str, old: Fact) -> bool:
    """The message's sentence holding the quote speaks of the writer and of nobody else: words
    of the first person, no pronoun of someone or something else (:func:`speaks_of_someone`)
    and no word naming the claim's subject (closed class; first contact set 16: "PSK sent sms,
    my slot is moved to 13 January" was kept as the cousin's wedding date, a neighbour by its
    month alone)."""
    sentence = sentence_of(quote, message)
    return (
        bool(set(plain(sentence).split()) & FIRST_PERSON)
        and not speaks_of_someone(quote, message)
        and not content_stems(sentence) & _subject_words(old)
    )


def not_a_value(value: str, old: Fact, sentence: str, others: Collection[str] = ()) -> bool:
    """The model's new value is no value of the claim's attribute: a whole sentence of the
    message (first contact set 10: "Ioana's husband must have operation on knee in April" kept
    as Ioana's home, age and hobby), or words naming the claim's own subject (what is said of
    them, not one of their values), or, for someone other than the user, words naming another
    subject of the record (first contact set 12: "Andre has been made head chef at a hotel in
    Bristol" kept as Marcia's home, food and trip: the son's news, not a value of the wife's)."""
    words = plain(value).split()
    if len(words) > 3 and plain(value) == plain(sentence):
        return True
    if old.subject_key == USER_SUBJECT:
        return False
    return bool((content_stems(old.subject_key or "") | set(others)) & content_stems(value))


def corrects_another(old: Fact, change: ClaimOut, current: Sequence[Fact]) -> bool:
    """A correction read beside one claim whose words name the value of another current claim
    of the same subject, and not this one's value: it corrects that other claim (first contact
    set 20: "naledi's not 22, she's 24", read beside her university, was kept as "university:
    24" and closed "UKZN", while "age: 22" stayed current). The other claim is corrected by the
    reader's claim or when the message is read beside it."""
    if change.kind is not ClaimKind.CORRECTS:
        return False
    said = _value_words(change.quote)
    if _value_words(old.value or "") & said:
        return False
    return any(
        other.id != old.id
        and other.subject_key == old.subject_key
        and not (names_subject(other) or names_itself(other))
        and bool(value := _value_words(other.value or ""))
        and value <= said
        for other in current
    )


def ends_what_was_read(old: Fact, change: ClaimOut, read: Sequence[Fact]) -> bool:
    """An end read beside a claim in words the reader read as a claim of another label, words
    that name nothing of this one (its value, label or subject): they end what the reader read
    (first contact set 28: "handed in my notice at java jane's", read as the end of the user's
    workplace, was also read beside their home, Salthill, as its end, and closed it)."""
    if change.kind is not ClaimKind.ENDS:
        return False
    said = plain(change.quote)
    if content_stems(said) & content_stems(f"{old.value or ''} {old.attribute or ''} {old.subject_key}"):
        return False
    label = (old.subject_key, plain(old.attribute or ""))
    return any(
        (quoted := plain(f.quote or "")) != ""
        and (said in quoted or quoted in said)
        and (f.subject_key, plain(f.attribute or "")) != label
        for f in read
    )


def _value_words(text: str) -> set[str]:
    """The words that may name a value: content stems, and numbers of one digit too."""
    return content_stems(text) | set(numbers(text))


def _read_anew(old: Fact, read: Sequence[Fact]) -> bool:
    """The reader read another value of the claim's subject and attribute in the message (one
    saying the old value again may be the reader's misreading of a correction: read beside it)."""
    key = (old.subject_key, plain(old.attribute or ""))
    return any(
        (f.subject_key, plain(f.attribute or "")) == key and plain(f.value or "") != plain(old.value or "")
        for f in read
    )


class ClaimReviser:
    """Reads a message beside its neighbouring claims (one model call each)."""

    def __init__(self, llm: BaseChatModel, timeout_s: float = 60.0, limit: int = MAX_NEIGHBOURS) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self.limit = limit

    async def revise(self, text: str, current: Sequence[Fact], read: Sequence[Fact] = ()) -> Revisions:
        """The earlier claims the message changes, kept as code checks them. ``read``: the claims
        the reader read in the message; a claim of which one of them gives another value is left
        to supersession (supersession.py compares them), not read beside it again."""
        out = Revisions()
        others = _others([*current, *read])  # who else the record, or this message, speaks of
        left = [f for f in current if not _read_anew(f, read)]
        for old in neighbours(text, left, self.limit):
            shown = revising.fact_text(old.content, old.quote or "")
            try:
                answer, cost = await ask_structured(
                    self.llm,
                    revising.FactRevised,
                    revising.build(shown, text),
                    revising.PROMPT,
                    timeout_s=self.timeout_s,
                    max_tokens=revising.MAX_TOKENS,
                )
            except LLMError as exc:
                log.warning("could not read a message beside claim %s: %s", old.id[:8], exc)
                continue
            out.usage = out.usage.add(cost)
            claim = kept_change(old, answer, text, others)
            if claim is not None and (
                corrects_another(old, claim, current) or ends_what_was_read(old, claim, read)
            ):
                out.dropped.append(claim)
            elif claim is not None:
                about_user = old.subject_key == USER_SUBJECT
                answered, cost = await answers_its_label(self.llm, claim, about_user, text, self.timeout_s)
                out.usage = out.usage.add(cost)
                if answered:
                    out.found.append(Revised(old, claim))
                else:
                    out.dropped.append(claim)
            elif answer.verdict.kind is not None:
                out.dropped.append(
                    ClaimOut(
                        quote=answer.quote[:400],
                        subject=old.subject or old.subject_key,
                        relation=old.relation or "",
                        attribute=old.attribute or "",
                        value=answer.value,
                        when="",
                        kind=answer.verdict.kind,
                    )
                )
        return out
