"""Claims of record: what one user message tells, read by the model, kept by code.

:class:`ClaimReader` asks the model for the message's claims (structured output,
services/prompts/extract_claims.py) and keeps those the message bears out (verify.py).
:class:`ClaimKeeper` stores them as ``Fact`` nodes and closes what they supersede
(supersession.py): the older claim gets ``valid_until`` (when the newer was said) and
``superseded_by``, a SUPERSEDES edge goes from the newer to it, the concept relations it
asserted are closed, and the insights derived from its message are superseded with it. Nothing
is deleted: history is what "before" questions and ``thea memories`` read.

Ids derive from the message and the claim's place in it, so a retried job stores nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence, Set
from dataclasses import dataclass, field, replace
from typing import Protocol

from langchain_core.language_models import BaseChatModel

from services.common.dates import day_start_ms, day_told, resolve_relative
from services.common.llm_calls import ask_structured, model_name
from services.common.statements import sentences
from services.common.text import TextEmbedder
from services.common.timeline import day_ahead, starts_at
from services.knowledge.claims.categories import category_of, is_constraint
from services.knowledge.claims.joint import joint_changes
from services.knowledge.claims.pair_calls import PairCalls
from services.knowledge.claims.render import claim_line, ended, subject_key, told_claim
from services.knowledge.claims.revision import ClaimReviser, Revisions
from services.knowledge.claims.subjects import settled_subjects
from services.knowledge.claims.supersession import (
    AttributeNearness,
    Closing,
    Supersession,
    items_kept,
    items_left,
    names_or_part_of_value,
    supersede,
)
from services.knowledge.claims.value_check import (
    answers_a_rival,
    answers_its_label,
    names_its_label,
    users_words,
)
from services.knowledge.claims.verify import (
    Checked,
    check,
    checked_claims,
    claim_key,
    is_user,
    plain,
    quoted_in,
    sentence_of,
    speaks_of_someone,
    value_unsaid,
)
from services.prompts import extract_claims as reading
from services.prompts import revise_claims as revising
from services.prompts import sort_claims as sorting
from services.prompts import value_check as checking
from thea.errors import LLMError
from thea.memory.operations import FactReads, KnowledgeWrites, NodePatch
from thea.models import (
    USER_SUBJECT,
    Edge,
    EdgeType,
    Fact,
    FactOrigin,
    KnowledgeCrystal,
    LLMUsage,
    Node,
    Revision,
    stable_id,
)
from thea.models.step_outputs import ClaimsJobOutput, ReadClaim, SupersededFact
from thea.words import FIRST_PERSON, NEGATION

log = logging.getLogger(__name__)

#: what a judging model is asked to return

#: a user's current claims a new message is compared with (newest first)
CURRENT_LIMIT = 1000
#: how sure thea is of what the user told about their own life
TOLD_CONFIDENCE = 0.8
#: an insight stating a replaced value keeps at most this confidence
SUPERSEDED_CONFIDENCE = 0.2
#: the longest part of a message the model reads for claims (~1,500 tokens); a longer paste is a
#: document (services/knowledge/documents.py), not a statement
MAX_READ_CHARS = 6_000
#: tokens the model may write for one part's claims
MAX_CLAIM_TOKENS = 600
#: a message is read in parts of whole sentences of about this many characters
PART_CHARS = 160


class ClaimMemory(Protocol):
    """What keeping claims needs of the memory."""

    @property
    def facts(self) -> FactReads: ...

    @property
    def knowledge(self) -> KnowledgeWrites: ...

    def record(self, nodes: Sequence[Node], links: Sequence[Edge] = ()) -> object: ...


@dataclass(frozen=True)
class SaidMessage:
    """A user's message to read: only their own words, never thea's."""

    source_id: str
    user_id: str
    text: str
    said_at: int
    session_id: str | None = None
    origin: FactOrigin = FactOrigin.SAID


@dataclass
class KeptClaims:
    """What reading one message did."""

    stored: list[Fact] = field(default_factory=list)
    #: claim id -> the current claim that already said it
    repeats: dict[str, str] = field(default_factory=dict)
    closings: list[Closing] = field(default_factory=list)
    insights: list[str] = field(default_factory=list)
    #: what the model said that the message does not bear out
    dropped: list[reading.ClaimOut] = field(default_factory=list)
    #: what the message bears out but only says how a moment went
    passing: list[reading.ClaimOut] = field(default_factory=list)
    #: what the message's words hold but, asked for the claim's label, answers otherwise
    unanswered: list[reading.ClaimOut] = field(default_factory=list)
    judged: int = 0
    usage: LLMUsage = field(default_factory=LLMUsage)

    @property
    def fact_ids(self) -> list[str]:
        """The claims that stand for the message: stored ones and those it repeated."""
        return [f.id for f in self.stored] + sorted(set(self.repeats.values()))

    def as_output(self) -> ClaimsJobOutput:
        claims = [
            ReadClaim(id=f.id, text=f.content, quote=f.quote or "", kind=f.change or "") for f in self.stored
        ]
        claims += [
            ReadClaim(id=old, text="", dropped="said again") for old in sorted(set(self.repeats.values()))
        ]
        claims += [
            ReadClaim(
                text=f"{c.subject} {c.attribute}: {c.value}", quote=c.quote, kind=c.kind.value, dropped=why
            )
            for why, left in (
                (DROPPED, self.dropped),
                (PASSING, self.passing),
                (UNANSWERED, self.unanswered),
            )
            for c in left
        ]
        return ClaimsJobOutput(
            claims=claims,
            superseded=[
                SupersededFact(id=c.old.id, text=c.old.content, by=c.by.id, reason=c.reason)
                for c in self.closings
            ],
            insights_superseded=self.insights,
            judged=self.judged,
        )


#: why a claim the model read was not kept, as the trace says it
DROPPED = "not in the message"
PASSING = "only how a moment went"
UNANSWERED = "the message, asked for its label, answers otherwise"

#: claims of one message whose value is asked again in the user's words (bounded work)
MAX_REVALUED = 3


def claim_id(source_id: str, index: int) -> str:
    return stable_id("claim", source_id, str(index))


def _may_name_only_its_label(claim: reading.ClaimOut) -> bool:
    """A change (not an end: its value is the old one) whose value holds a word of its label."""
    return claim.kind is not reading.ClaimKind.ENDS and names_its_label(claim)


def user_names(checked: Sequence[Checked], current: Sequence[Fact]) -> set[str]:
    """The names the user goes by: their name claims, told before or in this message."""
    told = {plain(c.claim.value) for c in checked if c.about_user and plain(c.claim.attribute) == "name"}
    known = {plain(f.value or "") for f in current if f.subject_key == USER_SUBJECT and f.attribute == "name"}
    names = (told | known) - {""}
    return names | {name.split()[0] for name in names}  # "Raj Mehta" is also "Raj"


def _renames_another(checked: Checked, message: str, known: set[str]) -> bool:
    """A new name put on a user whose name is known, read from a sentence that speaks of someone
    else ("we renamed him Mr Biscuit", "he goes by Bobby now"): the 1.5B put each of six such
    renames of a pet or a child on the user's own name (first contact set 13 and a probe,
    docs/benchmarks.md), and the user's name was replaced. The user's name changes only from
    words about the user alone ("I'm Dana Okafor now"). With no name on record, a change of name
    (replaces, ends, corrects) is the user's only from a sentence holding a word of the writer's
    that speaks of nobody else. ``known``: the names the record holds."""
    if not checked.about_user or plain(checked.claim.attribute) != "name":
        return False
    quote = checked.claim.quote
    if not known:
        # no name on record, so none of the user's to change: a change of name told in a
        # sentence without a word of the writer's, or one speaking of someone else, is another's
        # (first contact set 23: "The greyhound is no longer Lightning. Isla declared … should be
        # called Duchess" became "Your name: Duchess", the user's introduction having been lost)
        writer = set(plain(sentence_of(quote, message)).split()) & FIRST_PERSON
        return checked.claim.kind.closes and (not writer or speaks_of_someone(quote, message))
    if plain(checked.claim.value) in known:
        return False
    return speaks_of_someone(quote, message)


def with_ends_replaced(checked: Sequence[Checked]) -> list[Checked]:
    """The claims, a new one of the same subject and label as an end the same message tells read
    as what replaces it ("We have left Cihangir at last. Elif and I have rented an old wooden
    house on Büyükada": home Cihangir ends, home Büyükada new; first contact set 22, the new home
    was then checked as a new claim, answered in a whole sentence and lost). A change is neither
    sorted nor checked: a lost change leaves the old value gone and nothing in its place. Items
    of a list (the reading prompt's labels ending in "list") are items, never replacements, and
    health and diet claims add up (probe: "im lactose intolerant so no milk cheese ice cream for
    me" read as an end of "no milk cheese ice cream" beside a new "lactose intolerant", which
    as a replacement would close the user's other diets)."""

    def label(c: Checked) -> tuple[str, str]:
        return plain(c.claim.subject), plain(c.claim.attribute)

    ends = {label(c) for c in checked if c.claim.kind is reading.ClaimKind.ENDS}
    out: list[Checked] = []
    for c in checked:
        listed = plain(c.claim.attribute).split()[-1:] == ["list"]
        adds_up = is_constraint(category_of(c.claim.attribute))
        if c.claim.kind is reading.ClaimKind.NEW and label(c) in ends and not (listed or adds_up):
            c = Checked(c.claim.model_copy(update={"kind": reading.ClaimKind.REPLACES}), c.about_user)
        out.append(c)
    return out


def as_users(checked: Sequence[Checked], names: Set[str]) -> list[Checked]:
    """The claims, each about someone called by one of the user's names made the user's (tried
    live: "hi, I'm Marta, I work as a teacher ..." read as "Marta job: teacher" was checked as the
    job of someone else, asked "what is Marta's job?", and lost; so the later "barista" did not
    close it and the answer said "Teacher")."""
    return [
        Checked(c.claim.model_copy(update={"subject": "user", "relation": "self"}), about_user=True)
        if not c.about_user and plain(c.claim.subject) in names
        else c
        for c in checked
    ]


def starts_on(claim: reading.ClaimOut, said_at: int) -> int | None:
    """When a change told ahead takes effect (epoch ms): the day its time as told names, if that is
    after the day it was said ("we're moving to York in March", "I leave Boots in June"); None for
    a change now, a plain fact (a conference "on 14 March" is true now), or a time that is the
    value itself (a date moved "to May 3")."""
    if not claim.kind.closes or claim.kind is reading.ClaimKind.CORRECTS or not claim.when:
        return None
    return day_ahead(claim.when, claim.value, said_at)


def build_claims(
    checked: Sequence[Checked], message: SaidMessage, read_by: str, names: set[str] | None = None
) -> list[Fact]:
    """The Fact nodes of one message's checked claims (a claim about someone called by the user's
    own name is about the user: "I'm Priya ... Priya teaches maths")."""
    out: list[Fact] = []
    for index, item in enumerate(as_users(checked, names or set())):
        claim = item.claim
        fact = Fact(
            id=claim_id(message.source_id, index),
            confidence=TOLD_CONFIDENCE,
            source=message.user_id,
            source_message_id=message.source_id,
            valid_from=starts_on(claim, message.said_at) or message.said_at,
            subject_key=subject_key(claim.subject, item.about_user),
            subject="you" if item.about_user else claim.subject,
            relation=claim.relation or None,
            attribute=claim.attribute,
            value=claim.value,
            change=claim.kind.value,
            category=category_of(claim.attribute),
            origin=message.origin,
            quote=claim.quote,
            when=resolve_relative(claim.when, message.said_at) if claim.when else None,
            read_by=read_by,
            created_at=message.said_at,
            user_id=message.user_id,
            session_id=message.session_id,
            correlation_id=message.source_id,
        )
        out.append(fact.model_copy(update={"content": claim_line(fact)}))
    return out


def _says_again(fact: Fact, change: Fact) -> bool:
    return fact.subject_key == change.subject_key and plain(fact.value or "") == plain(change.value or "")


def _said_wrong(revised: Sequence[tuple[Fact, Fact]]) -> set[str]:
    """The values the message corrects: the user says they were wrong."""
    return {
        plain(old.value or "")
        for old, change in revised
        if change.change == reading.ClaimKind.CORRECTS.value and plain(old.value or "")
    }


def _holds_any(fact: Fact, values: set[str]) -> bool:
    """The claim holds one of the values as its value or its time (set 9: "I told you Dale past
    in 2021 but it was 2022" was read as "your past: Dale (2021)" beside the correction of the
    year he died; kept, it held up the wrong year as still told)."""
    return bool(values) and bool({plain(fact.value or ""), plain(fact.when or "")} & values)


def with_revisions(plan: Supersession, revised: Sequence[tuple[Fact, Fact]]) -> Supersession:
    """The plan with each change read beside the claim it changes: stored, closing that claim
    (and only it; a closing the plan already had for it is the change's now)."""
    if not revised:
        return plan
    olds = {old.id for old, _ in revised}
    closings = [c for c in plan.closings if c.old.id not in olds]
    closings += [
        Closing(old=old, by=change, reason=f"{change.change} (read beside it)") for old, change in revised
    ]
    # one item taken off a list: the items left stay current (supersession.items_left)
    kept = [
        items_kept(old, left, change)
        for old, change in revised
        if change.change == reading.ClaimKind.ENDS.value and (left := items_left(old, change))
    ]
    stored = [*plan.stored, *(change for _, change in revised), *kept]
    return replace(plan, stored=stored, closings=closings)


def as_told(fact: Fact, plan: Supersession) -> Fact:
    """The claim, an end that closes nothing and whose value says what no longer is ("no milk
    cheese ice cream" of "im lactose intolerant so no milk cheese ice cream for me", first contact
    set 21) kept as a plain fact: shown as an end it read "diet: no milk cheese ice cream (no
    longer)", the constraint turned round. An end that closes an earlier claim, or whose value
    is the thing that stopped ("sold the Civic": "car: Civic"), stays an end."""
    closes = any(c.by.id == fact.id for c in plan.closings)
    if not ended(fact) or closes or not NEGATION.search(fact.value or ""):
        return fact
    told = fact.model_copy(update={"change": reading.ClaimKind.NEW.value})
    return told.model_copy(update={"content": claim_line(told)})


def upcoming(fact: Fact) -> bool:
    """The claim was told with a day still ahead of when it was said (a concert "on 19
    December", an exam "17 dec"), and held from when it was said: something that takes place
    then, not a change told ahead ("we're moving to York in March" starts in March)."""
    if not fact.when or (fact.valid_from is not None and fact.valid_from > fact.created_at):
        return False
    day = day_told(fact.when, fact.created_at)
    return day is not None and day_start_ms(day) > fact.created_at


def moved_dates(plan: Supersession, said_at: int) -> Supersession:
    """A change of something told with its day ahead ("the concert has been postponed to 21
    December" after "our choir sings on 19 December") gives it a new day: that is true from when
    it is said, not a change told ahead (first contact, set 7: the old day stayed current until
    the new one came, and "when is the concert now?" got the old day). Decided by the claim it
    replaces, not by the change's words."""
    moved = {
        c.by.id
        for c in plan.closings
        if upcoming(c.old) and c.by.valid_from is not None and c.by.valid_from > said_at
    }
    if not moved:
        return plan
    now = {f.id: f.model_copy(update={"valid_from": said_at}) for f in plan.stored if f.id in moved}
    return replace(
        plan,
        stored=[now.get(f.id, f) for f in plan.stored],
        closings=[replace(c, by=now.get(c.by.id, c.by)) for c in plan.closings],
    )


class ClaimReader:
    """The model reads a message into checked claims."""

    def __init__(
        self, llm: BaseChatModel, timeout_s: float = 120.0, max_tokens: int = MAX_CLAIM_TOKENS
    ) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        read, sort, check = reading.PROMPT, sorting.PROMPT, checking.PROMPT
        return (
            f"{model_name(self.llm)} {read.name}/{read.version} {sort.name}/{sort.version}"
            f" {check.name}/{check.version}"
        )

    async def read(self, text: str, names: Set[str] = frozenset()) -> Reading:
        """The claims the message bears out, those it does not, those only of a moment, and what
        the reading cost. A long message is read a part of a few sentences at a time (a small
        model lists the facts of a short part and drops some of a long one), each with the
        sentence before it; then each claim the message bears out is sorted (sort_claims.py) and
        its value checked against the message asked for its label (value_check.py). ``names``:
        the names the user goes by (:func:`user_names`); a claim about one of them, or about a
        name the message gives the user, is the user's before it is checked."""
        text = text[:MAX_READ_CHARS]
        claims: list[reading.ClaimOut] = []
        usage = LLMUsage()
        for before, part in parts_of(text):
            read, cost = await self._part(part, before)
            if _read_only_before(read, part, before):
                # the words before, given for whom "she" or "it" is, were read instead of the
                # part (first contact set 23: "My name is Hamish Drummond, I am sixty-seven, …"
                # read as eight claims of the sentence before it, the user's name, age and job
                # lost): the part is read again alone
                again, more = await self._part(part, "")
                read, cost = [*read, *again], cost.add(more)
            # what a part reads of the words before it is kept too (each claim once): their own
            # reading may have left it out (first contact set 25: the move to Carntyne, read
            # only with the sentence after it, was lost)
            claims += read
            usage = usage.add(cost)
        kept, dropped = checked_claims(claims, text)
        kept = with_ends_replaced(as_users(kept, user_names(kept, []) | set(names)))
        result = Reading(dropped=dropped, usage=usage)
        revalued = await self._in_users_words(kept, text, result)
        for item in [*kept, *revalued]:
            closes = item.claim.kind.closes
            if closes and not _may_name_only_its_label(item.claim):
                # a claim that replaces, ends or corrects is about something lasting that changed:
                # neither sorted nor checked (sorted, "handed in my notice at Boots" was taken for a
                # moment; checked, "hospital pharmacy" read as the new job was answered
                # "Pharmacist" and lost): a lost change leaves a stale value current. Unless the
                # message changes the same label twice: it gives it one new value
                if await self._a_rivals(item, text, result, kept):
                    result.unanswered.append(item.claim)
                else:
                    result.kept.append(item)
            elif not closes and not await self._lasting(item, text, result):
                result.passing.append(item.claim)
            elif item in revalued or await self._answers_its_label(item, text, result, kept):
                # (a value asked again is the check's own answer; a change whose value holds its
                # label's word, "plan: change of plan", is checked as a new claim is)
                result.kept.append(item)
            else:
                result.unanswered.append(item.claim)
        return result

    async def _part(self, part: str, before: str) -> tuple[list[reading.ClaimOut], LLMUsage]:
        """The claims the model reads in one part of a message (``before``: the words before it,
        for whom a pronoun means; "" for none), and what reading cost."""
        out, cost = await ask_structured(
            self.llm,
            reading.ClaimsOutput,
            reading.build(part, before),
            reading.PROMPT,
            timeout_s=self.timeout_s,
            max_tokens=self.max_tokens,
        )
        return list(out.claims), cost

    async def _in_users_words(self, kept: Sequence[Checked], text: str, result: Reading) -> list[Checked]:
        """The dropped claims whose quote is the user's but whose value is the model's own words,
        with the value the user's words give when the sentence is asked for the claim's label
        (value_check.users_words; at most :data:`MAX_REVALUED` a message). Each is moved from
        ``result.dropped`` to the list returned unless the message still does not bear it out
        or it says what a kept claim says."""
        said = {claim_key(c.claim) for c in kept}
        revalued: list[tuple[reading.ClaimOut, Checked]] = []
        unsaid = [(c, sentence) for c in result.dropped if (sentence := value_unsaid(c, text))]
        for claim, sentence in unsaid[:MAX_REVALUED]:
            about_user = is_user(claim.subject, claim.relation, claim.attribute)
            words, cost = await users_words(self.llm, claim, about_user, sentence, self.timeout_s)
            result.usage = result.usage.add(cost)
            checked = check(claim.model_copy(update={"value": words}), text) if words else None
            if checked is None or claim_key(checked.claim) in said:
                continue
            log.info("claim value %r is the model's words: the user's are %r", claim.value, words)
            said.add(claim_key(checked.claim))
            revalued.append((claim, checked))
        # the news of another subject of the same reading is still not put on the user
        again, _ = checked_claims([c.claim for c in kept] + [c.claim for _, c in revalued], text)
        kept_again = {claim_key(c.claim) for c in again}
        revalued = [(was, c) for was, c in revalued if claim_key(c.claim) in kept_again]
        for was, _ in revalued:
            result.dropped.remove(was)
        return [c for _, c in revalued]

    async def _answers_its_label(
        self, item: Checked, text: str, result: Reading, read: Sequence[Checked]
    ) -> bool:
        """Whether the message, asked for the claim's label, answers its value (value_check.py;
        ``read``: the message's claims, whose other values the answer may be)."""
        others = [c.claim.value for c in read if c is not item]
        answered, cost = await answers_its_label(
            self.llm, item.claim, item.about_user, text, self.timeout_s, others
        )
        result.usage = result.usage.add(cost)
        return answered

    async def _a_rivals(self, item: Checked, text: str, result: Reading, read: Sequence[Checked]) -> bool:
        """Whether the change's label, asked of the message, is another change's value of the
        same subject and label in the message (``read``) and not the change's own
        (value_check.answers_a_rival; asked only when there is such another change)."""
        rivals = [c.claim.value for c in read if c is not item and _rivals(c, item)]
        if not rivals:
            return False
        rival, cost = await answers_a_rival(
            self.llm, item.claim, item.about_user, text, self.timeout_s, rivals
        )
        result.usage = result.usage.add(cost)
        return rival

    async def _lasting(self, item: Checked, text: str, result: Reading) -> bool:
        """Whether a new claim is a fact or a plan, not how a moment went (a failed sort keeps it)."""
        claim = item.claim
        note = sorting.note_text(
            claim.subject, claim.relation, item.about_user, claim.attribute, claim.value, claim.kind.value
        )
        try:
            out, cost = await ask_structured(
                self.llm,
                sorting.SortOutput,
                sorting.build(text, note),
                sorting.PROMPT,
                timeout_s=self.timeout_s,
                max_tokens=sorting.MAX_TOKENS,
            )
        except LLMError as exc:
            log.warning("could not sort a claim (%s): kept", exc)
            return True
        result.usage = result.usage.add(cost)
        return out.kind.kept


@dataclass
class Reading:
    """What the model read in one message, as code kept it."""

    kept: list[Checked] = field(default_factory=list)
    #: what the model said that the message does not bear out
    dropped: list[reading.ClaimOut] = field(default_factory=list)
    #: what the message bears out but only says how a moment went (sort_claims.py)
    passing: list[reading.ClaimOut] = field(default_factory=list)
    #: what its words hold but the message, asked for its label, answers otherwise (value_check.py)
    unanswered: list[reading.ClaimOut] = field(default_factory=list)
    usage: LLMUsage = field(default_factory=LLMUsage)


def _rivals(one: Checked, other: Checked) -> bool:
    """Two changes (replaces, corrects) of one subject's same label, with other values."""
    a, b = one.claim, other.claim
    changes = (reading.ClaimKind.REPLACES, reading.ClaimKind.CORRECTS)
    return (
        a.kind in changes
        and b.kind in changes
        and ((one.about_user and other.about_user) or plain(a.subject) == plain(b.subject))
        and plain(a.attribute) == plain(b.attribute)
        and plain(a.value) != plain(b.value)
    )


def _read_only_before(read: Sequence[reading.ClaimOut], part: str, before: str) -> bool:
    """Every claim of a part's reading quotes only the words before it (``before``, given for
    whom a pronoun means): the model read them instead of the part."""
    return bool(read and before) and all(
        quoted_in(c.quote, before) and not quoted_in(c.quote, part) for c in read
    )


def parts_of(text: str, size: int = PART_CHARS) -> list[tuple[str, str]]:
    """The message in parts of whole sentences of about ``size`` characters, each with the last
    sentence before it ("" for the first)."""
    out: list[tuple[str, str]] = []
    part: list[str] = []
    before = ""
    for sentence in sentences(text) or [text]:
        if part and len(" ".join([*part, sentence])) > size:
            out.append((before, " ".join(part)))
            before, part = part[-1], []
        part.append(sentence)
    if part:
        out.append((before, " ".join(part)))
    return out


class ClaimKeeper:
    def __init__(
        self,
        memory: ClaimMemory,
        reader: ClaimReader,
        embedder: TextEmbedder | None = None,
        judge_llm: BaseChatModel | None = None,
        timeout_s: float = 60.0,
        current_limit: int = CURRENT_LIMIT,
        reviser: ClaimReviser | None = None,
    ) -> None:
        self.memory = memory
        self.reader = reader
        self.embedder = embedder
        #: compares two claims where code cannot decide (None: both stay current)
        self.judge_llm = judge_llm
        #: reads each message again beside the earlier claims it may change (None: it is not)
        self.reviser = reviser
        self.timeout_s = timeout_s
        self.current_limit = current_limit

    async def keep(self, message: SaidMessage) -> KeptClaims:
        """Read the message, store its claims, close what they supersede."""
        current = self.current_claims(message)  # read once: names, subjects, supersession
        read = await self.reader.read(message.text, user_names([], current))
        built = self.built(read, message, current)
        revisions = Revisions()
        if self.reviser is not None:
            earlier = [f for f in current if f.created_at <= message.said_at]
            revisions = await self.reviser.revise(message.text[:MAX_READ_CHARS], earlier, built)
        revised = self.revised(revisions, message)
        kept = await self.store(built, message, current, revised, check_corrections=True)
        kept.dropped = read.dropped + revisions.dropped + kept.dropped
        kept.passing = read.passing
        kept.unanswered = read.unanswered
        kept.usage = read.usage.add(revisions.usage).add(kept.usage)
        return kept

    def revised(self, revisions: Revisions, message: SaidMessage) -> list[tuple[Fact, Fact]]:
        """Each earlier claim the message changes, with the change's claim node (its id from
        the message and the claim it changes)."""
        if not revisions.found:
            return []
        read_by = f"{model_name(self.reader.llm)} {revising.PROMPT.name}/{revising.PROMPT.version}"
        checked = [Checked(r.claim, about_user=r.old.subject_key == USER_SUBJECT) for r in revisions.found]
        facts = build_claims(checked, message, read_by)
        return [
            (
                r.old,
                fact.model_copy(update={"id": stable_id("claim", message.source_id, "revises", r.old.id)}),
            )
            for r, fact in zip(revisions.found, facts, strict=True)
        ]

    def built(self, read: Reading, message: SaidMessage, current: Sequence[Fact] | None = None) -> list[Fact]:
        """The message's claim nodes, their subjects settled by the user's record (subjects.py;
        a claim about someone called by the user's own name is the user's). ``current``: the
        user's current claims when already read (:meth:`current_claims`). A new name the reading put
        on the user from words about someone else moves to ``read.dropped``."""
        current = self.current_claims(message) if current is None else current
        checked = settled_subjects(read.kept, current)
        known = user_names([], current)
        renames = [c for c in checked if _renames_another(c, message.text, known)]
        if renames:  # never the user's name: the model put another's new name on them
            log.info("not the user's name: %s", ", ".join(c.claim.value for c in renames))
            read.dropped += [c.claim for c in renames]
            checked = [c for c in checked if c not in renames]
        return build_claims(checked, message, self.reader.name, user_names(checked, current))

    async def store(
        self,
        new: Sequence[Fact],
        message: SaidMessage,
        current: Sequence[Fact] | None = None,
        revised: Sequence[tuple[Fact, Fact]] = (),
        *,
        check_corrections: bool = False,
    ) -> KeptClaims:
        """Store claims already built for ``message`` and close what they supersede (``current``:
        the user's current claims when already read; ``revised``: earlier claims the message
        changes, each with the claim that closes it, which stands for a claim of the message
        saying the same of the same subject; a claim of the message holding a value it corrects
        is the reader's misreading, not kept; ``check_corrections``: a correction the reader
        read that corrects none of them is checked as a new claim is, :meth:`_corrections_kept`)."""
        changes = [change for _, change in revised]
        wrong = _said_wrong(revised)
        new = [
            f
            for f in new
            if not any(_says_again(f, change) for change in changes) and not _holds_any(f, wrong)
        ]
        if not new and not revised:
            return KeptClaims()
        current = self.current_claims(message) if current is None else current
        again = self._ended_again(new, current, message)
        new = [f for f in new if f.id not in again]
        if not new and not revised:
            return KeptClaims(repeats=again)
        calls = PairCalls(
            self.judge_llm,
            self.reader.llm,
            message.text[:MAX_READ_CHARS],
            self.timeout_s,
            self.reader.timeout_s,
        )
        plan = await supersede(
            new, current, AttributeNearness(self.embedder), calls.judge, calls.still, calls.fits
        )
        usage = calls.usage
        plan = with_revisions(moved_dates(plan, message.said_at), revised)
        plan = joint_changes(plan, current, message.source_id)
        plan = replace(plan, stored=[as_told(f, plan) for f in plan.stored])
        wrong_corrections: list[reading.ClaimOut] = []
        if check_corrections:
            plan, wrong_corrections, cost = await self._corrections_kept(plan, message)
            usage = usage.add(cost)
        kept = KeptClaims(
            stored=plan.stored, repeats={**again, **plan.repeats}, closings=plan.closings, judged=plan.judged
        )
        kept.dropped = wrong_corrections
        kept.usage = usage
        said_at = message.said_at
        edges = [Edge(src=c.by.id, dst=c.old.id, type=EdgeType.SUPERSEDES) for c in plan.closings]
        insights = self._insights_to_supersede(
            [c for c in plan.closings if c.old.source_message_id != message.source_id],
            message.user_id,
            said_at,
        )
        kept.insights = [k.id for k in insights]
        if plan.stored:
            edges += [Edge(src=plan.stored[0].id, dst=k.id, type=EdgeType.SUPERSEDES) for k in insights]
        self.memory.record([*plan.stored, *insights], edges)
        if plan.closings:
            # a change told ahead closes the older claim on the day it takes effect, whatever
            # its kind ("starting at Southmead in May", read as new and judged to replace the
            # workplace, closed it the day it was said: "where will I work from May?" got the old)
            until = {c.old.id: max(said_at, starts_at(c.by) or said_at) for c in plan.closings}
            self.memory.knowledge.patch_nodes(
                [
                    NodePatch(c.old.id, {"valid_until": until[c.old.id], "superseded_by": c.by.id})
                    for c in plan.closings
                ]
            )
            self.memory.knowledge.close_relations([c.old.id for c in plan.closings], said_at)
            log.info(
                "claims of user %s: %d new, superseded %s",
                message.user_id,
                len(plan.stored),
                ", ".join(f"{c.old.id[:8]} ({c.reason})" for c in plan.closings),
            )
        return kept

    async def _corrections_kept(
        self, plan: Supersession, message: SaidMessage
    ) -> tuple[Supersession, list[reading.ClaimOut], LLMUsage]:
        """The plan without the corrections that correct nothing and whose value the message does
        not give for their label; those corrections; what asking cost. A change the reader read is
        not checked when read (value_check.py: a lost change leaves the old value current), but a
        correction that closes no claim leaves nothing stale when lost, and the 1.5B reads one
        from an apology alone ("Your claim: mixed up", "The vet, status: doing fine": kept,
        shown and recalled as facts in a live trial)."""
        closing = {c.by.id for c in plan.closings}
        text = message.text[:MAX_READ_CHARS]
        usage = LLMUsage()
        wrong: dict[str, reading.ClaimOut] = {}
        for fact in plan.stored:
            if fact.change != reading.ClaimKind.CORRECTS.value or fact.id in closing:
                continue
            claim = told_claim(fact, fact.quote or "", fact.value or "", reading.ClaimKind(fact.change))
            if names_its_label(claim):  # checked when read
                continue
            about_user = fact.subject_key == USER_SUBJECT
            answered, cost = await answers_its_label(
                self.reader.llm, claim, about_user, text, self.reader.timeout_s
            )
            usage = usage.add(cost)
            if not answered:
                wrong[fact.id] = claim
        if not wrong:
            return plan, [], usage
        return (
            replace(plan, stored=[f for f in plan.stored if f.id not in wrong]),
            list(wrong.values()),
            usage,
        )

    def _ended_again(
        self, new: Sequence[Fact], current: Sequence[Fact], message: SaidMessage
    ) -> dict[str, str]:
        """The ends among the new claims that say again what already ended, by claim id, with the
        earlier claim that holds it: the same subject and label, a value that is no longer
        current (closed or ended before) and that no current claim of that label holds. Such an
        end closes nothing (first contact set 23: "Driving back to Bridge of Earn every morning …",
        read as an end of the home left the week before, closed the new home by its label)."""
        ends = [f for f in new if f.change == reading.ClaimKind.ENDS.value]
        if not ends:
            return {}
        earlier = [
            f
            for f in self.memory.facts.facts_of_record(
                message.user_id, current_only=False, limit=self.current_limit
            )
            if f.source_message_id != message.source_id and (f.valid_until is not None or ended(f))
        ]

        def holds(f: Fact, end: Fact) -> bool:
            """The claim is of the end's subject and label, with a value the end names."""
            same = (f.subject_key, plain(f.attribute or "")) == (end.subject_key, plain(end.attribute or ""))
            return same and names_or_part_of_value(end, f)

        again: dict[str, str] = {}
        for end in ends:
            if any(holds(f, end) for f in current if not ended(f)):
                continue  # a current value it names: an end of it
            old = next((f for f in earlier if holds(f, end)), None)
            if old is not None:
                again[end.id] = old.id
        return again

    def current_claims(self, message: SaidMessage) -> list[Fact]:
        """The user's current claims, but this message's own (a retried job)."""
        return [
            f
            for f in self.memory.facts.facts_of_record(
                message.user_id, current_only=True, limit=self.current_limit
            )
            if f.source_message_id != message.source_id
        ]

    def _insights_to_supersede(
        self, closings: Sequence[Closing], user_id: str, at: int
    ) -> list[KnowledgeCrystal]:
        """The insights derived from the messages whose claims were closed, superseded with them."""
        sources = sorted({c.old.source_message_id for c in closings if c.old.source_message_id})
        if not sources:
            return []
        reason = "; ".join(f"{c.old.content!r} was replaced ({c.reason})" for c in closings)[:400]
        by = sorted({c.by.id for c in closings})
        out: list[KnowledgeCrystal] = []
        for insight in self.memory.facts.insights_resting_on(sources, user_id):
            revision = Revision(kind="superseded", at=at, reason=reason, evidence=by)
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
