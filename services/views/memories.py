"""What thea knows about the user ("What I know about you"): the current facts of record, grouped
by subject (the user first, then each person, pet, place or thing by name), each told back in the
second person with since when it holds, the message it came from and the earlier values it
replaced; a short summary on top made from current facts only.

One read of the user's facts of record (current and earlier, newest first) and one batched read
of the messages they came from: no query per fact. A fact's history is the chain of facts it
superseded, found in that same read by following ``superseded_by`` backwards. Building the view
(:func:`memories_view`) is pure, so it is tested without engines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from services.common.dates import day_text
from services.common.ownership import own_node
from services.common.statements import lower_first, turn_round, upper_first
from services.common.timeline import claims_at, starts_at
from services.common.tokens import clip_text
from thea.api.models import (
    EarlierValueView,
    FactOfRecordView,
    FactsOfRecordView,
    FactSourceView,
    SubjectFactsView,
)
from thea.errors import NotFoundError
from thea.memory.operations import FactReads
from thea.memory.ports import FactSource
from thea.models import USER_SUBJECT, Fact, FactOrigin, Node, UserImpulse, now_ms

#: ``Fact.change`` of a fact that corrects another (services/knowledge/memory_edits.py)
CORRECTION = "correction"
#: facts of record read at once (current and earlier, newest first)
READ_LIMIT = 2000
#: facts of one subject in the summary, and subjects in it
SUMMARY_FACTS = 4
SUMMARY_SUBJECTS = 6
#: characters of a source message shown
SOURCE_CHARS = 300
#: what the summary says when nothing is known yet
NOTHING_YET = "Nothing yet: tell me about yourself and what you tell me shows here."


def second_person(fact: Fact) -> str:
    """The fact as thea tells it back: a claim as its line ("Your home: York."); a fact read before
    claims existed turned round ("I live in York." -> "You live in York.")."""
    if fact.quote is not None:
        return upper_first(" ".join(fact.content.split()))
    text = " ".join((turn_round(fact.content) if fact.subject_key is not None else fact.content).split())
    return upper_first(text)


def is_current(fact: Fact) -> bool:
    return fact.valid_until is None and fact.active


def _day(ms: int) -> str:
    return day_text(datetime.fromtimestamp(ms / 1000, tz=UTC).date())


def source_of(fact: Fact, messages: Mapping[str, Node]) -> FactSourceView:
    """Where the fact came from: the user's message (text and date), their correction, or a
    fact told with ``!fact``."""
    if fact.change == CORRECTION:
        text = clip_text(fact.content, SOURCE_CHARS)
        return FactSourceView(
            kind="correction",
            text=text,
            at=fact.created_at,
            label=f"your correction on {_day(fact.created_at)}: \u201c{text}\u201d",
        )
    if fact.origin is FactOrigin.SAID:
        message = messages.get(fact.source_message_id or "")
        if isinstance(message, UserImpulse) and message.user_id == fact.user_id:
            # the words that say it (a claim's quote), else the whole message
            text = clip_text(fact.quote or message.content, SOURCE_CHARS)
            return FactSourceView(
                kind="message",
                id=message.id,
                text=text,
                at=message.created_at,
                label=f"you said on {_day(message.created_at)}: \u201c{text}\u201d",
            )
        return FactSourceView(
            kind="message",
            id=fact.source_message_id,
            at=fact.created_at,
            label=f"you said it on {_day(fact.created_at)} (the message is no longer stored)",
        )
    return FactSourceView(
        kind="fact_command",
        text=clip_text(fact.content, SOURCE_CHARS),
        at=fact.created_at,
        label=f"told with !fact on {_day(fact.created_at)}",
    )


def message_ids(facts: Iterable[Fact]) -> list[str]:
    """The messages whose text and date the view shows (statements in a chat)."""
    wanted = (f.source_message_id for f in facts if f.origin is FactOrigin.SAID and f.change != CORRECTION)
    return list(dict.fromkeys(i for i in wanted if i))


class FactBook:
    """One read of a user's facts of record and the messages they came from."""

    def __init__(self, facts: Sequence[Fact], messages: Sequence[Node] = ()) -> None:
        self.facts = list(facts)
        self.by_id = {f.id: f for f in self.facts}
        self.messages: dict[str, Node] = {m.id: m for m in messages}
        #: newer fact id -> the facts it superseded, newest first
        self.replaced: dict[str, list[Fact]] = {}
        for fact in sorted(self.facts, key=lambda f: -f.created_at):
            if fact.superseded_by:
                self.replaced.setdefault(fact.superseded_by, []).append(fact)

    def history(self, fact: Fact) -> list[Fact]:
        """The facts ``fact`` replaced, and those they replaced, ..., newest first."""
        out: list[Fact] = []
        seen = {fact.id}
        pending = list(self.replaced.get(fact.id, []))
        while pending:
            earlier = pending.pop(0)
            if earlier.id in seen:
                continue
            seen.add(earlier.id)
            out.append(earlier)
            pending.extend(self.replaced.get(earlier.id, []))
        return sorted(out, key=lambda f: -(f.valid_until or f.created_at))

    def earlier(self, fact: Fact) -> EarlierValueView:
        return EarlierValueView(
            id=fact.id,
            text=second_person(fact),
            value=fact.value or "",
            since=fact.valid_from or fact.created_at,
            until=fact.valid_until,
            superseded_by=fact.superseded_by,
            source=source_of(fact, self.messages),
        )

    def view(self, fact: Fact, *, history: bool = True, planned: bool = False) -> FactOfRecordView:
        key = fact.subject_key
        return FactOfRecordView(
            id=fact.id,
            subject_key=key,
            subject=subject_name(key, fact.subject),
            text=second_person(fact),
            attribute=fact.attribute or "",
            value=fact.value or "",
            category=fact.category or "general",
            since=(starts_at(fact) if planned else None) or fact.valid_from or fact.created_at,
            until=fact.valid_until,
            superseded_by=fact.superseded_by,
            current=is_current(fact),
            planned=planned,
            source=source_of(fact, self.messages),
            history=[self.earlier(f) for f in self.history(fact)] if history else [],
        )


def subject_name(key: str | None, shown: str | None) -> str:
    if key is None or key == USER_SUBJECT:
        return "You"
    name = (shown or key).strip()
    return upper_first(name)


def group_by_subject(facts: Sequence[FactOfRecordView]) -> list[SubjectFactsView]:
    """The user's facts first, then each other subject's by name; within a subject newest first."""
    groups: dict[str, list[FactOfRecordView]] = {}
    for fact in sorted(facts, key=lambda f: -f.since):
        groups.setdefault(fact.subject_key or USER_SUBJECT, []).append(fact)
    order = sorted(groups, key=lambda k: (k != USER_SUBJECT, groups[k][0].subject.casefold(), k))
    return [SubjectFactsView(key=k, name=groups[k][0].subject, facts=groups[k]) for k in order]


def summary_of(subjects: Sequence[SubjectFactsView]) -> str:
    """A short profile from current facts only: "You: you live in York; you are allergic to
    peanuts. Sam: Sam is a carpenter." (deterministic: the newest few of each subject)."""
    parts = []
    for group in subjects[:SUMMARY_SUBJECTS]:
        holding = [f for f in group.facts if f.current and not f.planned]
        current = holding[:SUMMARY_FACTS]
        if not current:
            continue
        said = "; ".join(_clause(f.text) for f in current)
        more = len(holding) - len(current)
        parts.append(f"{group.name}: {said}{f' (and {more} more)' if more > 0 else ''}.")
    rest = len(subjects) - SUMMARY_SUBJECTS
    if rest > 0:
        parts.append(f"And {rest} more {'subject' if rest == 1 else 'subjects'}.")
    return " ".join(parts) or NOTHING_YET


def _clause(text: str) -> str:
    """A fact's sentence as a clause of the summary: "Your ..." and "You ..." in lower case, a
    name as it is."""
    text = text.rstrip(" .!")
    return lower_first(text) if text.split(" ", 1)[0] in ("You", "Your", "You're", "You've") else text


def memories_view(
    facts: Sequence[Fact],
    messages: Sequence[Node] = (),
    *,
    include_history: bool = True,
    at: int | None = None,
) -> FactsOfRecordView:
    """The view of one read at ``at`` (default now; pure given it): the current facts grouped by
    subject with their histories, and the summary made from them. A change told ahead is listed
    with the day it takes effect as its ``since`` (after now) and the value it replaces stays
    current until then (services/common/timeline.py)."""
    standing = claims_at(facts, now_ms() if at is None else at)
    book = FactBook([*standing.known, *standing.planned], messages)
    current = [f for f in book.facts if f.subject_key is not None and is_current(f)]
    ahead = {f.id for f in standing.planned}
    views = [book.view(f, history=include_history, planned=f.id in ahead) for f in current]
    subjects = group_by_subject(views)
    return FactsOfRecordView(summary=summary_of(subjects), subjects=subjects, count=len(views))


def read_book(memory: FactSource, user_id: str, *, current_only: bool = False) -> FactBook:
    """The user's facts of record (and, unless ``current_only``, their earlier values) and the
    messages they came from, in one read each."""
    reads: FactReads = memory.facts
    facts = reads.facts_of_record(user_id, current_only=current_only, limit=READ_LIMIT)
    messages = memory.get(message_ids(facts))
    return FactBook(facts, [m for m in messages if m.user_id == user_id])


def what_thea_knows(memory: FactSource, user_id: str, *, include_history: bool = True) -> FactsOfRecordView:
    """The view "What I know about you" of one user."""
    book = read_book(memory, user_id, current_only=not include_history)
    return memories_view(book.facts, list(book.messages.values()), include_history=include_history)


def own_fact(memory: FactSource, id_or_prefix: str, user_id: str) -> Fact:
    """The caller's fact with this id or prefix; another user's, or anything else, is not found
    (the same answer as an id that does not exist)."""
    node = own_node(memory, id_or_prefix, user_id, what="fact")
    if not isinstance(node, Fact):
        raise NotFoundError(
            f"{node.id[:8]} is a {node.type.value}, not a fact: `thea memories` lists the ids of facts"
        )
    return node


def fact_detail(memory: FactSource, id_or_prefix: str, user_id: str) -> FactOfRecordView:
    """One of the user's facts (current or earlier) with the message it came from and its history."""
    fact = own_fact(memory, id_or_prefix, user_id)
    book = read_book(memory, user_id)
    if fact.id not in book.by_id:  # not a fact of record (a plain !fact claim), or beyond the read
        book = FactBook([*book.facts, fact], [*book.messages.values(), *memory.get(message_ids([fact]))])
    return book.view(book.by_id[fact.id])
