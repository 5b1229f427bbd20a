"""Synthesis: the final answer, grounded in the user's facts of record and recalled memories.

What the message is decides how it is answered (services/common/understanding.py):

* only statements (and perhaps a greeting): a short acknowledgement (never the user's words said
  back); the model reads their claims afterwards, in the slow loop (services/knowledge/claims);
* a question about the user's own life that nothing recalled bears on: "I don't know"
  (services/cycle/not_told.py), never a guess;
* a question that names one subject and attribute exactly one current claim holds: that claim,
  rendered from its fields, no model (services/cycle/from_facts.py);
* everything else (questions, requests for help, small talk, mixes): the model, given the
  claims that match the message (current ones, and earlier ones marked with when they stopped
  being true; the constraints for a request for help), the user's statements not read into
  claims yet, and the other recalled memories, inside the marked reference block.

The answer is streamed and recorded in the right voice (services/cycle/voice.py).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from services.common.llm_calls import TokenSink, ask_structured, ask_text
from services.common.pasted import is_pasted
from services.common.statements import (
    ACKNOWLEDGEMENT,
    GREETING,
    lower_first,
    puts_a_question,
    upper_first,
    without_acknowledgement,
)
from services.common.text import TextEmbedder
from services.common.timeline import claims_at, planned_line
from services.common.understanding import Act, Part, Understanding, asks_history, understand
from services.cycle.answer_inputs import (
    fact_line,
    missed,
    planned_fact_line,
    planned_for,
    prompt_record,
    references_for,
    select_facts,
    told_for,
)
from services.cycle.answer_reading import AnswerReading, Scope
from services.cycle.asked import reread
from services.cycle.asked_at import (
    MOMENT_READ,
    claims_then,
    may_name_a_moment,
    moment_message,
    moment_said,
    moment_words,
    rest_of,
)
from services.cycle.constraints import (
    about_food,
    against_request,
    caution,
    conflicts,
    may_i_have,
    request_caution,
    told_not_held,
)
from services.cycle.fact_match import (
    about_told,
    match_claims,
    named_subjects,
    speaks_as_user,
    subject_names,
    told_of,
)
from services.cycle.from_facts import (
    FactAnswer,
    SaidSince,
    answer_from_claims,
    candidate_line,
    earlier_values,
    ended_values,
    naming_only,
    picked_answer,
    replaced_by,
    restates,
    said_since,
    same_label,
    told_sentence,
    with_quote,
    with_said_since,
    without_ends_beside_current,
)
from services.cycle.from_text import (
    NOT_IN_TEXT,
    TEXT_RANKS,
    is_text,
    lines_of,
    nearest_lines,
    quote_of,
    text_answer,
    text_kept,
    texts_of,
)
from services.cycle.from_told import (
    NAMING_READ,
    NOT_TOLD,
    RECENT_READ,
    UNREAD_READ,
    Quoted,
    ToldLine,
    ToldQuote,
    about_stems,
    about_the_user,
    claim_sources,
    claim_speaks_of,
    day_since_changed,
    day_that_holds_now,
    insight_sources,
    mentioned,
    named_in,
    nearest,
    nearest_messages,
    never_told_of,
    newer_lines,
    recalls_a_message,
    relations_of,
    replaced_since,
    told_answer,
    told_lines,
    told_quote,
    user_names,
)
from services.cycle.hygiene import is_looping, tidy, without_points
from services.cycle.not_told import is_personal_question, unknown_to_me
from services.cycle.refusal import is_refusal
from services.cycle.reply import (
    ECHO_WORDS,
    Reaction,
    answers_small_talk_only,
    copied_run,
    name_of_user,
    question_back,
    reaction_shown,
    unclear_who,
    without_opening,
)
from services.cycle.said_back import says_back
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.cycle.streaming import ShownPoints, points_kept, request_stop, send_rest, send_text
from services.cycle.voice import VoiceStream, in_voice
from services.knowledge.claims.categories import CONSTRAINT
from services.knowledge.claims.render import ended
from services.knowledge.claims.verify import without_hostile
from services.knowledge.documents import acknowledgement as paste_acknowledgement
from services.prompts import AIMessage, BaseMessage, HumanMessage, ReferenceItem
from services.prompts import answer_from_text as text_prompt
from services.prompts import answer_from_told as told_prompt
from services.prompts import asked_when as when_prompt
from services.prompts import pick_claims as pick
from services.prompts import reply as reply_prompt
from services.prompts import synthesis as prompt
from services.prompts.question_scope import Answerer
from services.prompts.quoting import without_any_order, without_forged_turns
from services.recall.types import RecallHit, RecallResult
from thea.errors import LLMError
from thea.memory.operations import FactReads
from thea.models import (
    USER_SUBJECT,
    Edge,
    EdgeType,
    Fact,
    FinalResponse,
    LLMUsage,
    MessageKind,
    NodeType,
    Step,
    cycle_node_id,
)
from thea.models.step_outputs import PromptRecord, SynthesisOutput
from thea.tuning import RELATIVE_FLOOR
from thea.words import lower_words

log = logging.getLogger(__name__)
#: what the claims model reads for an answer (services/prompts: TextAnswer, ToldAnswer, PickOutput)
Read = TypeVar("Read", bound=BaseModel)

#: facts of record read per answer (newest first), to know each recalled fact's standing
PROFILE_READ = 1000
#: claims the model may pick an answer from (best matches first)
PICK_SHOWN = 8
#: what a pick may cost the model: {"facts": [1, 2, 3, 4]}
PICK_TOKENS = 24


#: the user's newest statements read for constraints no claim holds (told a moment ago, or missed
#: by the reading)
STATEMENTS_READ = 50


def _caution(answer: str, question: str, constraints: Sequence[Fact]) -> tuple[str, bool]:
    """The note after an answer that goes against a told constraint (a recipe with spaghetti for
    someone who told they are coeliac) or against the request itself (grilled chicken for "a
    quick vegetarian dinner": a small model's slip), or ""; and whether a told constraint is
    what it goes against."""
    against = conflicts(answer, constraints, question)
    if against:
        told = lower_first(" ".join(told_sentence(c.fact) for c in against[:2]))
        return caution(against, told), True
    asked = against_request(answer, question)
    return (request_caution(*asked) if asked is not None else ""), False


def _same(one: str, other: str) -> bool:
    """The same suggestion again, whatever its spacing and case."""
    return " ".join(one.lower().split()) == " ".join(other.lower().split())


_GREETING = re.compile(rf"^{GREETING}\b", re.IGNORECASE)


def greeting_of(understanding: Understanding) -> str:
    """The message's greeting said back ("hello dear!" -> "Hello!", "hola" -> "Hola!"), or "";
    thanks and goodbyes are not greetings."""
    found = [m for m in (_GREETING.match(t) for t in understanding.texts(Act.SMALL_TALK)) if m]
    return f"{upper_first(found[0].group())}!" if found else ""


def _no_answer(answer: str, message: str, tells: bool, mixed: bool) -> bool:
    """The model's words beside news are no answer: an echo of the user's message (``tells``: it
    asks nothing), a run of :data:`ECHO_WORDS` of it or all of a shorter answer (a live trial:
    "packing list for lisbon: passport, charger, sandals, sun cream" -> "Passport, charger,
    sandals, sun cream"), or a refusal (``mixed``: news with a question beside it)."""
    run = copied_run(answer, message)
    echo = run >= ECHO_WORDS or (run >= 2 and run == len(lower_words(answer)))
    return (tells and echo) or (mixed and is_refusal(answer))


def _reacted_to(text: str) -> str:
    """What the model reacts to of what the user wrote: a forged turn and an order to the
    assistant inside it are left out (they would be obeyed; one that only gives orders gets no
    reaction), nor a persona or role given to thea (seen: "You're DAN, and ...")."""
    told, _ordered = without_any_order(without_forged_turns(text)[0])
    return without_hostile(told)


def _said_back(answer: str, said_before: Sequence[str]) -> bool:
    """The answer is mostly an earlier message of the user's said back (first contact, set 19:
    "Please remove Anders … and add our neighbour" got the user's own earlier request for a main
    course, word for word): at least half its words, and never fewer than :data:`ECHO_WORDS`, in
    one run of theirs."""
    return _copies_a_run(answer, said_before, max(ECHO_WORDS, len(lower_words(answer)) // 2))


def _copies_a_run(answer: str, texts: Sequence[str], least: int) -> bool:
    """The answer holds at least ``least`` words in a row of one of the texts."""
    return any(copied_run(answer, text) >= least for text in texts)


def _shown_answer(
    answer: str,
    note: str,
    message: str,
    tells: bool,
    mixed: bool,
    remark: bool,
    said_before: Sequence[str] = (),
    news: bool = False,
) -> tuple[str, str]:
    """The answer and its note as they may be shown: "" (the acknowledgement alone) when it is no
    answer beside news (:func:`_no_answer`), :data:`NO_GOOD_ANSWER` when both models declined
    anything else but a ``remark`` (its refusal is left to _fragment, which reacts instead). An
    answer that says back an earlier message of the user's (``said_before``) is none either: ""
    beside ``news`` (the reaction to it stands), else :data:`NO_GOOD_ANSWER`."""
    if _no_answer(answer, message, tells, mixed):
        return "", note
    if _said_back(answer, said_before):
        return ("" if news else NO_GOOD_ANSWER), ""
    if is_refusal(answer) and not remark:
        return NO_GOOD_ANSWER, ""
    return answer, note


def _asked_last(understanding: Understanding, message: str) -> str:
    """A message that tells something and asks something, as the answering model is given it:
    what it tells first, what it asks last (the 0.5B answers the last thing it reads: live, "any
    ideas for a quick dinner tonight? Femi's got football at 6" got "Femi's got football at 6!"
    and no idea). A message clipped for the prompt is given as it is."""
    parts = understanding.parts
    if sum(len(p.text) for p in parts) > len(message):
        return message
    said = _sentences_of(parts)
    if not said or said[-1][1] or not any(asks for _, asks in said):
        return message
    ordered = [t for t, asks in said if not asks] + [t for t, asks in said if asks]
    return " ".join(t if t[-1:] in ".!?" else f"{t}." for t in ordered)


def _sentences_of(parts: Sequence[Part]) -> list[tuple[str, bool]]:
    """The parts put together again into the sentences they were cut from, each with whether it
    asks: a part that does not end a sentence goes on into the next. A request cut out of its
    sentence by the model's reading keeps what qualifies it ("another favour pls: lunch box ideas
    for my two kids this week, cheap, nothing with nuts" had been given as "another favour pls:.
    , cheap, nothing with nuts. lunch box ideas for my two kids this week.", live)."""
    said: list[tuple[str, bool]] = []
    going_on = False
    for part in parts:
        asks = part.act in (Act.QUESTION, Act.REQUEST)
        if going_on and said:
            text, asked = said[-1]
            gap = "" if part.text[:1] in ",;:)" else " "
            said[-1] = (f"{text}{gap}{part.text}", asked or asks)
        else:
            said.append((part.text, asks))
        going_on = part.text.rstrip()[-1:] not in ".!?"
    return said


def _news(understanding: Understanding) -> bool:
    """Statements with a fragment beside them and nothing asked ("got a new job! starting at
    Southmead in May, still physio", "We got the keys! Boxes everywhere."): news to react to as
    a whole. The model once answered the fragment as if asked ("I'm sorry, but I don't know what
    you're asking for", live) or said the statements back."""
    return bool(understanding.statements) and understanding.acts - {Act.SMALL_TALK} == {
        Act.STATEMENT,
        Act.FRAGMENT,
    }


#: an earlier answer this long (in words) is one a new answer could give again
EARLIER_ANSWER_WORDS = 12


def _earlier_answers(conversation: Sequence[tuple[str, str]]) -> list[str]:
    """What thea said earlier in the conversation at some length."""
    return [
        t for role, t in conversation if role == "assistant" and len(lower_words(t)) >= EARLIER_ANSWER_WORDS
    ]


def _repeats(answer: str, earlier: Sequence[str]) -> bool:
    """The answer gives a run of an earlier answer again, word for word."""
    return _copies_a_run(answer, earlier, EARLIER_ANSWER_WORDS)


#: the pick chose only claims that name whom the question asks about (from_facts.restates)
_NOTHING_PICKED = FactAnswer(text="")


#: the mode of an answer that says only the nearest the user came to saying what was asked
NEAREST_WORDS = "your nearest words"
#: answers that say memory does not hold what was asked (a request read as asking what the user
#: told is then answered as the request it may be)
_NOT_FROM_MEMORY = frozenset({"not told", "not in the text", NEAREST_WORDS})
#: what a question or request gets when both models decline it (a refusal is never shown)
NO_GOOD_ANSWER = "I don't have a good answer to that one. Could you put it another way?"
#: what small talk gets when the model's reaction cannot be shown
SMALL_TALK_REPLY = "I'm here whenever you want to talk."


def acknowledgement(state: CycleState, understanding: Understanding) -> str:
    """What a statement gets: the greeting back and a short acknowledgement, never the user's
    words said back."""
    del state
    return f"{greeting_of(understanding)} {ACKNOWLEDGEMENT}".strip()


@dataclass(frozen=True)
class PickAsked:
    """A question the claims are picked for: about before (``history``), the values no longer
    true, and whether only the user's own claims answer it."""

    question: str
    history: bool
    no_longer: frozenset[str]
    users_only: bool


def _small_talk_only(said: str, small_talk: str) -> bool:
    """The reaction is small talk, or only the reply to the message's own small talk."""
    return understand(said).kind is MessageKind.SMALL_TALK or answers_small_talk_only(said, small_talk)


def _keep(into: list[str] | None, what: str) -> None:
    """``what`` put in ``into`` when the caller asked for it."""
    if into is not None:
        into.append(what)


def asks_of_user(question: str, stored: Sequence[Fact], about_read: Sequence[str]) -> bool:
    """The model read the question as asking about the user themselves and it names no one of
    their record: no claim of someone else answers it."""
    return bool(about_read) and about_the_user(about_read[0]) and not named_subjects(question, stored)


def _names_told(state: CycleState, question: str, recall: RecallResult, stored: Sequence[Fact]) -> bool:
    """The question asks about what the user told (a claim's subject or attribute) or names
    something said in a message of theirs that recall found: their words may answer it."""
    return about_told(question, stored) or mentioned(question, recall.hits, state.impulse.id)


class SynthesisService(CognitiveService):
    step = Step.SYNTHESIS
    name = "synthesis"

    def __init__(
        self,
        llm: BaseChatModel,
        timeout_s: float,
        budget_tokens: int,
        max_tokens: int | None = None,
        embedder: TextEmbedder | None = None,
        relevance_floor: float = RELATIVE_FLOOR,
        facts: FactReads | None = None,
        picker: BaseChatModel | None = None,
    ) -> None:
        self.llm = llm
        #: the model that picks which claims answer a question (the claims reader when there is
        #: one: it understands questions better than a small answering model)
        self.picker = picker or llm
        #: what the claims model reads for an answer (services/cycle/answer_reading.py)
        self.reading = AnswerReading(self.picker, timeout_s)
        #: share of the best memory's score a memory needs to enter the prompt (tuning.relevance_floor)
        self.relevance_floor = relevance_floor
        #: compares a question's words with recalled words by meaning (services/cycle/not_told.py)
        self.embedder = embedder
        self.timeout_s = timeout_s
        self.budget_tokens = budget_tokens
        #: the model's output allowance: an answer that used all of it was cut
        self.max_tokens = max_tokens
        #: the user's facts of record (None: answers from recalled memories only)
        self.facts = facts

    async def handle(self, state: CycleState) -> StepOutcome:
        if state.document is not None:
            # a paste: say what was stored, never echo it
            return await self._fixed(state, paste_acknowledgement(state.document), "document stored")
        understanding = state.understanding or understand(state.impulse.content)
        last = understanding.parts[-1].act if understanding.parts else Act.SMALL_TALK
        if is_pasted(state.impulse.content) and last not in (Act.QUESTION, Act.REQUEST):
            # a pasted letter or timetable that ends without asking thea anything: kept, and
            # nothing in it is answered as if asked of thea (seen live: a school letter's
            # "please send your child with ..." got "Thank you for your kind words")
            return await self._fixed(state, text_kept(state.impulse.content), "text kept")
        understanding, asked = await self._asked_of_me(state, understanding)
        outcome = await self._by_kind(state, understanding)
        outcome.usage = outcome.usage.add(asked)
        return outcome

    async def _by_kind(self, state: CycleState, understanding: Understanding) -> StepOutcome:
        if understanding.kind in (MessageKind.STATEMENT, MessageKind.SMALL_TALK) or _news(understanding):
            # the user told something or made small talk: a short reaction, never an echo
            return await self._react(state, understanding)
        recall = state.recall if isinstance(state.recall, RecallResult) else RecallResult()
        if understanding.acts - {Act.SMALL_TALK} == {Act.FRAGMENT}:
            return await self._fragment(state, understanding, recall)
        return await self._question_or_request(state, understanding, recall)

    async def _asked_of_me(
        self, state: CycleState, understanding: Understanding
    ) -> tuple[Understanding, LLMUsage]:
        """A message that tells something, read again with what the model says it asks of thea
        (services/cycle/asked.py): a request put inside news is answered, a sentence taken for a
        question that asks nothing is reacted to. Unchanged when the message tells nothing, or
        the model cannot say."""
        told = understanding.kind in (MessageKind.STATEMENT, MessageKind.MIX) and understanding.statements
        if not told or is_pasted(state.impulse.content):  # a text's own questions are not the user's
            return understanding, LLMUsage()
        read, usage = await self.reading.asked_beside_news(state.prompt_text)
        return (understanding if read is None else reread(understanding, read)), usage

    async def _question_or_request(
        self, state: CycleState, understanding: Understanding, recall: RecallResult
    ) -> StepOutcome:
        stored = await asyncio.to_thread(self._stored_facts, state)
        then = await self._at_the_moment(state, understanding, recall, stored)
        if then is not None:
            return then
        recalled = await self._recalled(state, understanding, recall, stored)
        if recalled is not None:
            return recalled
        if understanding.asks_memory and not understanding.asks_for_help:
            question = " ".join(understanding.texts(Act.QUESTION))
            unknown = await asyncio.to_thread(self._unknown, question, recall.hits, stored)
            if unknown is not None and understanding.kind is MessageKind.QUESTION:
                # a question about the user no word of which was recalled: they may have said it
                # in other words ("where do we live now?" after "we got the keys to our new flat
                # in Baner"), so their words are read; a line is the answer only when it speaks
                # of whom the question asks about (the 1.5B had copied the cat's age for "How
                # old is my grandson?"); nothing copied: "I don't know", never a guess
                history = asks_history(question)
                nothing_told: list[NothingTold] = []
                about_read: list[str] = []
                told = await self._from_told(
                    state,
                    question,
                    recall,
                    stored,
                    history,
                    unknown,
                    nothing_told=nothing_told,
                    about_read=about_read,
                )
                if told is not None:
                    return told
                # nor the claims, asked before "I don't know" (first contact, set 19: "At the
                # time I first asked you for menu ideas, what was my occupation?" -> "I don't
                # know", no word of it in a line, the jobs held as claims never asked)
                picked, cost = await self._pick(
                    question,
                    stored,
                    recall.hits,
                    history,
                    earlier_values(stored),
                    "",
                    state.planned,
                    users_only=asks_of_user(question, stored, about_read),
                    about=about_read[0] if about_read else "",
                )
                said = await self._say_picked(state, understanding, question, recall, stored, picked, cost)
                if said is not None:
                    return said
                if nothing_told:
                    return await self._told_nothing_after(state, question, recall, nothing_told[0], cost)
                return await self._not_told(state, question, recall, unknown, cost)
        return await self._answer(state, understanding, recall, stored)

    async def _at_the_moment(
        self, state: CycleState, understanding: Understanding, recall: RecallResult, stored: Sequence[Fact]
    ) -> StepOutcome | None:
        """A question about what was true when the user did, said or asked something earlier
        (services/cycle/asked_at.py), answered from the claims (``stored``: every claim as it
        stands now, earlier values included) as they stood just after the message it points to;
        None when it names no such moment, no message is near enough, or no claim of then
        answers."""
        question = " ".join(understanding.texts(Act.QUESTION))
        if understanding.kind is not MessageKind.QUESTION or self.facts is None or not state.user_id:
            return None
        if not may_name_a_moment(question):
            return None
        got = await self.reading.read(
            when_prompt.AskedWhen, when_prompt.build(question), when_prompt.PROMPT, when_prompt.MAX_TOKENS
        )
        at = moment_words(got[0].at, question) if got is not None else None
        if got is None or at is None:
            return None
        usage, user = got[1], state.user_id
        messages = await asyncio.to_thread(self.facts.recent_messages, user, MOMENT_READ)
        earlier = [
            m for m in messages if m.id != state.impulse.id and m.created_at < state.impulse.created_at
        ]
        found = await asyncio.to_thread(moment_message, at, earlier, self.embedder)
        if found is None:
            log.info("no message of the user's is near %r: the question is answered as of now", at)
            return None
        then = claims_then(stored, found.created_at)
        asked = rest_of(question, at)
        log.info("the question names the moment %r: message %s; asked of then: %r", at, found.id[:8], asked)
        # a question about the one asking is shown their own claims only (first contact set 20
        # re-run: "Which city was I living in …" -> the sister's university)
        users_only = speaks_as_user(asked) and not named_subjects(asked, then)
        picked, cost = await self._pick(
            asked, then, recall.hits, False, earlier_values(then), users_only=users_only
        )
        usage = usage.add(cost)
        if picked is None or picked is _NOTHING_PICKED:
            return None
        said = f"{moment_said(at, found.created_at)} {picked.text}"
        return await self._fixed(state, said, "claims at a moment", picked.facts, picked.why, usage)

    async def _say_picked(
        self,
        state: CycleState,
        understanding: Understanding,
        question: str,
        recall: RecallResult,
        stored: Sequence[Fact],
        picked: FactAnswer | None,
        cost: LLMUsage,
    ) -> StepOutcome | None:
        """The claims the model picked, said by code with what the user told since; None when it
        picked none."""
        if picked is None or picked is _NOTHING_PICKED:
            return None
        since, checked = await self._since(picked, recall, state, question, stored)
        said = f"{greeting_of(understanding)} {since}".strip()
        return await self._fixed(state, said, "claims picked", picked.facts, picked.why, cost.add(checked))

    async def _recalled(
        self, state: CycleState, understanding: Understanding, recall: RecallResult, stored: Sequence[Fact]
    ) -> StepOutcome | None:
        """A question put as a request for help that asks what the user told ("How do I get to
        my shifts these days?", "How do I earn my living?": first contact, set 12, both answered
        with a how-to list), answered from what they told: the claims model says which of the two
        it asks (services/prompts/help_or_recall.py), only for a user thea holds claims of. The
        answer is held back until it is seen to come from memory; when nothing they told answers
        it, None: it is answered as the request it may be ("Should I take the job in Leeds?")."""
        if understanding.kind is not MessageKind.REQUEST or not any(f.valid_until is None for f in stored):
            return None
        put = [text for text in understanding.texts(Act.REQUEST) if puts_a_question(text)]
        if not put:
            return None
        usage = LLMUsage()
        wanted: dict[str, str] = {}
        for text in put:
            asked_for, cost = await self.reading.recalls(text)
            usage = usage.add(cost)
            if asked_for is not None:
                wanted[text] = asked_for
        as_asked = understanding.read_as_questions(frozenset(wanted))
        if as_asked.kind is not MessageKind.QUESTION:  # some of it asks for help: the model helps
            return None
        shown, templated = state.on_token, state.templated
        held: list[str] = []
        state.on_token = held.append if shown is not None else None
        try:
            question = " ".join(as_asked.texts(Act.QUESTION))
            constraints = self._constraints(state, as_asked, question, stored)
            history = asks_history(question)
            outcome = await self._settled(
                state, as_asked, recall, stored, history, constraints, " ".join(wanted.values())
            )
        finally:
            state.on_token = shown
        if outcome is None or getattr(outcome.output, "mode", None) in _NOT_FROM_MEMORY:
            state.templated = templated
            return None
        await send_text(state, "".join(held))
        outcome.usage = outcome.usage.add(usage)
        return outcome

    async def _fragment(
        self, state: CycleState, understanding: Understanding, recall: RecallResult
    ) -> StepOutcome:
        """A message that neither tells, asks nor requests in a way the reading knows ("lol",
        "hmm ok", keywords, a sentence in another language): the model answers it from what was
        recalled, held back until complete; a refusal (seen live: "lol" -> "I'm sorry, but I
        can't assist with that.") is never shown, the message gets a reaction instead."""
        shown = state.on_token
        held: list[str] = []
        state.on_token = held.append if shown is not None else None
        try:
            outcome = await self._question_or_request(state, understanding, recall)
        finally:
            state.on_token = shown
        if is_refusal(state.answer or ""):
            return await self._react(state, understanding)
        if not (state.answer or "").strip():  # its answer only said the message back (set 18:
            # "shopping list for the bbq on sat: burgers, …" got an empty reply): what the user
            # wrote is something they told, reacted to as news is
            return await self._react(state, understanding, tells=True)
        await send_text(state, "".join(held))
        return outcome

    async def _react(
        self, state: CycleState, understanding: Understanding, *, tells: bool = False
    ) -> StepOutcome:
        """The model's short reaction in its own words when it passes the checks (no echo,
        nothing made up, no refusal, in the tone of the news: services/cycle/reply.py), else
        "I'm sorry to hear that." for bad news and the plain acknowledgement for the rest.
        ``tells``: the message tells something though the reading has no statement in it."""
        told = _reacted_to(state.prompt_text)
        tells = tells or understanding.kind is MessageKind.STATEMENT or _news(understanding)
        who = unclear_who(told, state.said_before) if tells else None
        if who is not None:  # "she got the job!" opening a chat: whom it means is asked, not guessed
            return await self._fixed(state, question_back(who), "question back")
        small_talk = " ".join(understanding.texts(Act.SMALL_TALK)) if tells else None
        shown, usage, asked = await self._reaction(state, told, small_talk)
        if shown is None:
            plain = acknowledgement(state, understanding)
            said = plain if tells else (greeting_of(understanding) or SMALL_TALK_REPLY)
            return await self._fixed(state, said, "acknowledgement", usage=usage, asked=asked)
        said = f"{greeting_of(understanding)} {shown.text}".strip() if shown.sympathy_only else shown.text
        if tells and not shown.sympathy_only and _small_talk_only(said, small_talk or ""):  # only
            # small talk says nothing of what was told (set 18: "hey! jo here, 31, i drive a
            # delivery van…" got only "Hey!"; a live trial: "thanks! oh and Pim turned 4
            # yesterday" got only "You're welcome!"): the acknowledgement follows it
            said = f"{said} {ACKNOWLEDGEMENT}"
        return await self._fixed(state, said, "reaction", usage=usage, asked=asked)

    async def _news_reaction(self, state: CycleState, understanding: Understanding) -> tuple[str, LLMUsage]:
        """What news told beside a question or request gets before the answer: the model's short
        reaction to the news when it passes the checks ("Congratulations on the promotion!"
        before the dinner ideas; it had been "Got it, I'll remember that." whatever the news:
        issue 38, item 1), "I'm sorry to hear that." for bad news it cannot show, else the plain
        acknowledgement."""
        shown, usage, _asked = await self._reaction(state, _reacted_to(" ".join(understanding.statements)))
        if shown is None:
            return ACKNOWLEDGEMENT, usage
        return shown.text, usage

    async def _reaction(
        self, state: CycleState, told: str, small_talk: str | None = None
    ) -> tuple[Reaction | None, LLMUsage, PromptRecord | None]:
        """The reading model's short reaction to ``told`` when it passes the checks
        (services/cycle/reply.py), what it cost and the prompt; None when there is nothing to
        react to, the model fails, or its reaction cannot be shown."""
        if not told.strip():
            return None, LLMUsage(), None
        stored = await asyncio.to_thread(self._stored_facts, state)
        own = [
            (f.attribute or "", f.value or "")
            for f in stored
            if f.valid_until is None and f.subject_key == USER_SUBJECT
        ]
        name = name_of_user(own)
        messages = reply_prompt.build(told, name)
        asked = prompt_record(reply_prompt.PROMPT, messages)
        try:
            read, usage = await ask_structured(
                self.picker,  # the reading model reacts in its own words; the 0.5B echoed
                reply_prompt.Reply,
                messages,
                reply_prompt.PROMPT,
                timeout_s=self.timeout_s,
                retries=0,  # no reaction is worth a second wait: the acknowledgement stands
                max_tokens=reply_prompt.MAX_TOKENS,
            )
        except LLMError as exc:
            log.warning("no reaction from the model: %s", exc)
            return None, LLMUsage(), asked
        return reaction_shown(read, told, name, small_talk), usage, asked

    def _constraints(
        self, state: CycleState, understanding: Understanding, question: str, stored: Sequence[Fact]
    ) -> list[Fact]:
        """The user's current constraints, oldest first, then those told and not held yet."""
        constraints = sorted(
            (f for f in stored if f.category == CONSTRAINT and f.valid_until is None),
            key=lambda f: (f.created_at, f.content),
        )
        return constraints + self._told_not_held(state, understanding, question, stored)

    def _told_not_held(
        self, state: CycleState, understanding: Understanding, question: str, stored: Sequence[Fact]
    ) -> list[Fact]:
        """For a request for help or a question about food: the constraints the user told in their
        newest messages that no claim holds (not read yet, or missed by the reading), in their own
        sentences (services/cycle/constraints.py)."""
        if (
            self.facts is None
            or not state.user_id
            or not (understanding.asks_for_help or about_food(question))
        ):
            return []
        return told_not_held(self.facts.recent_statements(state.user_id, STATEMENTS_READ), stored)

    def _unknown(self, question: str, hits: Sequence[RecallHit], stored: Sequence[Fact]) -> str | None:
        """ "I don't know" for a personal question nothing told bears on: a claim holding a word
        it asks about means it was told; otherwise recall decides (not_told.py)."""
        if not is_personal_question(question) or told_of(question, stored):
            return None
        return unknown_to_me(question, hits, self.embedder)

    async def _answer(
        self, state: CycleState, understanding: Understanding, recall: RecallResult, stored: list[Fact]
    ) -> StepOutcome:
        history = any(p.act is Act.QUESTION and asks_history(p.text) for p in understanding.parts)
        request = understanding.asks_for_help and not understanding.asks_memory
        question = " ".join(understanding.texts(Act.QUESTION) or understanding.texts(Act.REQUEST))
        constraints = self._constraints(state, understanding, question, stored)
        if understanding.kind is MessageKind.QUESTION:
            # what thea says of the user's life is never history (issue 38); other answers are
            state.templated = about_told(" ".join(understanding.texts(Act.QUESTION)), stored)
            settled = await self._settled(state, understanding, recall, stored, history, constraints)
        else:
            settled = await self._asked_beside_news(state, understanding, recall)
        if settled is not None:
            return settled
        # a request for help, or a question about food, gets the constraints too
        minds = request or about_food(question)
        facts = select_facts(stored, recall.hits, history=history, request=minds, question=question)
        recorded = {
            f.id for f in [*stored, *state.planned]
        }  # facts of record (current, or earlier when asked)
        # facts of record are shown as facts (or, replaced, not at all); insights learnt from the
        # same messages stay: the slow loop's reading, strength and feedback go with them
        others = [h for h in recall.hits if h.id not in recorded]
        refs = references_for(others, self.budget_tokens, self.relevance_floor)
        minded = constraints if minds else []
        lines = [fact_line(f) for f in facts if f not in minded]  # the constraints under their heading
        lines += [planned_fact_line(f) for f in planned_for(question, state.planned, recall.hits)]
        # an answer given from the user's facts speaks of their life: never history, whatever
        # the question's words ("when is the Lisbon trip?" came back, wrong, from the history)
        state.templated = state.templated or (bool(lines) and not request)

        message = _asked_last(understanding, state.prompt_text)

        def build(conversation: Sequence[tuple[str, str]]) -> list[BaseMessage]:
            return prompt.build(
                message,
                refs,
                conversation,
                state.instinct,
                facts=lines,
                earlier=history,
                avoid=[fact_line(f) for f in minded],
            )

        messages = build(state.history)
        prefix = reaction = ""
        reacted = LLMUsage()
        if understanding.kind is MessageKind.MIX and understanding.statements:  # reacted to first
            reaction, reacted = await self._news_reaction(state, understanding)
            prefix = reaction + " "
        # (never from what they said has stopped: "any ideas for a birthday cake for Dev?" began
        # "You told me: Dev (your husband), job: ambulance service (no longer).", live trial)
        told = [f for f in told_for(question, stored, history) if not ended(f)] if request else []
        if told:  # a request about something the user told of starts from what they told
            prefix += "You told me: " + lower_first(" ".join(told_sentence(f) for f in told)) + " "
        if prefix:
            await send_text(state, prefix)
        sources = [state.prompt_text, *(f.content for f in facts), *(r.text for r in refs)]
        voice = VoiceStream(sources, question)
        # help given where the user told a constraint is checked before it is shown: a suggestion
        # they cannot have is never put in front of them (issue 36, item 5)
        # a fragment asking nothing ("Initech door code"; beside statements it is news, reacted
        # to in _react): the model answers it, and what it says is checked first (seen on a
        # first-contact persona: "The facts are: We got the keys…", the user's words said back)
        tells = understanding.kind is MessageKind.MIX and not question
        # a message that tells something and asks beside it is acknowledged first; the model's
        # answer to the rest is held back until complete, and a refusal is never shown (first
        # contact, set 7: "lmao wait did i say 24?? im 23 ..." -> "Got it, I'll remember that.
        # I'm sorry, but I can't assist with that request.")
        # (help asked for beside news still streams: a recipe is long)
        mixed = understanding.kind is MessageKind.MIX and bool(understanding.statements) and not request
        # a question about what the user told is answered by the model that reads claims (it reads
        # the facts given better); help, advice and small talk by the answering model
        about_user = understanding.kind is MessageKind.QUESTION and about_told(question, stored)
        # help asked for (or a question of the user's own nothing told answers: "what could I
        # bring for lunch?") in a conversation where thea already answered at length: the 0.5B
        # gave its earlier list again word for word (ten dinner ideas as "quick lunches"); held
        # back until it is seen not to repeat an earlier answer (issue 38, item 4)
        own = request or (understanding.asks_memory and not about_user)
        earlier = _earlier_answers(state.history) if own else []
        may_repeat = bool(earlier)
        held_back = bool(minds and minded) or tells or may_repeat or mixed
        shown = ShownPoints(state, voice, request)

        async def shown_tokens(piece: str) -> None:
            if not held_back:
                await shown.feed(piece)

        model = self.picker if about_user else self.llm
        on_token = shown_tokens if state.on_token is not None else None
        answer, note, usage = await self._generated(model, messages, on_token, request)
        answer, note, usage = await self._unless_declined(
            model, messages, (answer, note, usage), request, question
        )
        if may_repeat and _repeats(answer, earlier):
            # asked again with the user's side of the conversation only: what thea said before
            # may shape the tone, never come back as the answer
            messages = build([(role, text) for role, text in state.history if role == "user"])
            answer, note, usage = await self._again(model, messages, (answer, note, usage))
        # the acknowledgement is thea's template, never the model's to say again
        answer = (
            in_voice(without_acknowledgement(answer), sources, question) or "I have no answer to that yet."
        )
        # a remark the reading does not know ("lol") leaves a refusal to _fragment: a reaction
        remark = understanding.acts - {Act.SMALL_TALK} == {Act.FRAGMENT}
        # an answer held back that says an earlier message of theirs back is no answer (one
        # streamed has been seen)
        said_before = [t for role, t in state.history if role == "user"] if held_back else []
        answer, note = _shown_answer(
            answer, note, state.prompt_text, tells, mixed, remark, said_before, bool(prefix)
        )
        if held_back:  # the reaction is said once ("I'm sorry to hear that. I'm sorry to hear that.")
            answer = without_opening(answer, reaction)
        answer, note, careful, more = await self._minding(
            state, messages, answer, note, question, constraints, held_back
        )
        usage = usage.add(more).add(reacted)
        await send_rest(state, None if held_back else voice, answer, note)
        added = "" if request else missed(answer, question, stored, history, minded)
        answer += added + careful  # "I don't know" only when it was never told; the note
        await send_text(state, added + careful)
        output = self._output(state, (prefix + answer).strip(), refs, facts)
        output.prompt = prompt_record(prompt.PROMPT, messages)
        if note:
            output.cut = note.strip(" …()")
        return self._outcome(state, output, refs, usage, facts)

    async def _generated(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        on_token: TokenSink | None,
        request: bool,
    ) -> tuple[str, str, LLMUsage]:
        """The model's answer, stopped where it loops or, for a request, where its list runs past
        five points or gives one again: (the answer, its cut note, the cost)."""
        answer, usage = await ask_text(
            model,
            messages,
            prompt.PROMPT,
            timeout_s=self.timeout_s,
            on_token=on_token,
            # a looping answer is stopped as soon as the loop shows, a request's list at its limit
            stop_when=request_stop if request else is_looping,
        )
        answer, note = tidy(answer.strip(), usage.tokens_out, self.max_tokens)
        return points_kept(answer, request), note, usage

    async def _unless_declined(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        first: tuple[str, str, LLMUsage],
        request: bool,
        asked: str,
    ) -> tuple[str, str, LLMUsage]:
        """The answer, or when the answering model declined (first contact, set 14: "… help me
        find spot for lekki wey no go finish my money" -> "I'm sorry, but I can't assist with
        that request."; held back while it streamed) the reading model's; the refusal when that
        declines too (the caller never shows it). A request said back is declined too ("lunch
        box ideas for my two kids …" -> "Lunch box ideas for your two kids …", the 0.5B, live):
        "" when no other model answers it (nothing of it is shown)."""
        answer, _note, usage = first

        def declined(said: str) -> bool:
            return is_refusal(said) or (request and says_back(said, asked))

        if not declined(answer):
            return first
        if model is not self.picker:
            again, again_note, more = await self._generated(self.picker, messages, None, request)
            usage = usage.add(more)
            if again.strip() and not declined(again):
                return again, again_note, usage
        return (answer if is_refusal(answer) else ""), "", usage

    async def _again(
        self, model: BaseChatModel, messages: Sequence[BaseMessage], first: tuple[str, str, LLMUsage]
    ) -> tuple[str, str, LLMUsage]:
        """The answer asked for once more (the first kept when this one is empty)."""
        answer, note, usage = first
        again, again_note, more = await self._generated(model, messages, None, True)
        return (again, again_note, usage.add(more)) if again.strip() else (answer, note, usage.add(more))

    async def _minding(
        self,
        state: CycleState,
        messages: Sequence[BaseMessage],
        answer: str,
        note: str,
        question: str,
        constraints: Sequence[Fact],
        held_back: bool,
    ) -> tuple[str, str, str, LLMUsage]:
        """The answer checked against the told constraints and the request: (the answer, its
        cut note, the note after it, the cost). Held back (help where a constraint was told), an
        answer against a told constraint is asked for once more and only one that passes is
        shown; when none does, the first with its note and that there is no other."""
        careful, told_against = _caution(answer, question, constraints)
        if not (held_back and careful and told_against):
            return answer, note, careful, LLMUsage()
        # a list with some points the user cannot have: those points go, the others stand (seen
        # live: salmon and chicken among five dinner ideas for a vegetarian, all five shown)
        kept = without_points(answer, lambda point: bool(_caution(point, question, constraints)[0]))
        if kept is not None and not _caution(kept, question, constraints)[0]:
            return kept, note, "", LLMUsage()
        other, usage = await self._other_suggestion(state, messages, answer, careful, constraints)
        if other:
            return other, "", "", usage
        return answer, note, f"{careful} {prompt.INSTEAD_NONE}", usage

    async def _other_suggestion(
        self,
        state: CycleState,
        messages: Sequence[BaseMessage],
        answer: str,
        careful: str,
        constraints: Sequence[Fact],
    ) -> tuple[str, LLMUsage]:
        """Another suggestion for one that went against a told constraint: the model is told
        what it named and why the user cannot have it, and asked once more. Only a suggestion
        that differs and does not go against a constraint is returned; "" otherwise (a small model
        often gives the same one again)."""
        retry = [
            *messages,
            AIMessage(content=answer),
            HumanMessage(content=prompt.INSTEAD_ASK.format(why=careful.strip(" ()").rstrip("."))),
        ]
        usage = LLMUsage()
        other = ""
        try:
            other, _note, usage = await self._generated(self.picker, retry, None, True)
            other = in_voice(other, [state.prompt_text], "") or ""
        except LLMError as exc:
            log.warning("no other suggestion: %s", exc)
        if not other or _caution(other, "", constraints)[0] or _same(other, answer):
            return "", usage
        return other, usage

    async def _plainly(
        self,
        state: CycleState,
        understanding: Understanding,
        asked: str,
        recall: RecallResult,
        stored: Sequence[Fact],
        constraints: Sequence[Fact],
        current: Sequence[Fact],
        no_longer: frozenset[str],
    ) -> StepOutcome | None:
        """A may-I question a told constraint rules out, or a question one ``current`` claim
        answers plainly (said from its fields, never with a value ``no_longer`` true); else None."""
        advice = may_i_have(asked, constraints)
        if advice is not None:  # "Can I have a latte?" from someone lactose intolerant
            return await self._fixed(state, advice.text, "constraints", advice.facts)
        direct = answer_from_claims(asked, current, no_longer)
        if direct is None:
            return None
        since, checked = await self._since(direct, recall, state, asked, stored)
        said = f"{greeting_of(understanding)} {since}".strip()
        return await self._fixed(state, said, "facts of record", direct.facts, direct.why, checked)

    async def _from_claims(
        self,
        state: CycleState,
        understanding: Understanding,
        recall: RecallResult,
        stored: Sequence[Fact],
        history: bool,
        constraints: Sequence[Fact],
        own_life: str | None = None,
    ) -> StepOutcome | None:
        """A question the claims settle: a may-I question a told constraint rules out, a question
        one claim answers plainly, or one whose answer the model picks among the claims; None:
        the model answers in its own words. ``own_life``: already read as asking what the user
        told, so only they could answer it (the scope is not asked again), and what it asks for
        in the model's words ("my job" for "How do I earn my living?"), matched with the claims."""
        asked = " ".join(understanding.texts(Act.QUESTION))
        current = [f for f in stored if f.valid_until is None]
        no_longer = earlier_values(stored)  # values an answer about now never says
        plainly = await self._plainly(
            state, understanding, asked, recall, stored, constraints, current, no_longer
        )
        if plainly is not None:
            return plainly
        # a question about the user, or about someone they named ("What does Bjørn do for
        # work?"), that nothing they said answers is not told: the model never answers it in
        # its own words (first contact, set 7: "Bjørn makes a big decision.", "Camila's family
        # supports the Liverpool club.", neither ever told)
        personal = is_personal_question(asked)
        named = named_subjects(asked, stored)
        about_someone = not personal and bool(named) and not understanding.asks_for_help
        # (not when already read as asking what the user told: "not told" is then not the end,
        # the claims are asked first; first contact, set 12: "How do I earn my living?" copied
        # the e-bike line, judged about someone else, and the claim "job: nurse" was never asked)
        not_told = NOT_TOLD if (personal or about_someone) and own_life is None else None
        only_nearest: list[HeldTold] = []
        read_told = _names_told(state, asked, recall, stored)
        # the user's words copied for it say nothing: a claim of someone it names may still hold
        # it, so the claims are asked before "not told" (seen live: "how old is Femi?" -> "I don't
        # know", with "Femi (your son), age: 9" read from "we have a son, Femi, he's 9")
        claimed = any(f.subject_key in named and f.subject_key != USER_SUBJECT for f in current)
        # the reading of their words finding nothing is not the end either: the claims are asked
        # (first contact, set 19: "How old is my younger sibling?" -> "I don't know" with "Liam
        # (your brother), age: 17" recalled first; no line said "sibling")
        nothing_told: list[NothingTold] = []
        about_read: list[str] = []
        told = await self._from_told(
            state,
            asked,
            recall,
            stored,
            history,
            None if claimed else not_told,
            only_nearest,
            nothing_told=nothing_told,
            about_read=about_read,
        )
        if told is not None:  # the user's own words that answer it, dated
            return told
        matched_on = f"{asked} {own_life or ''}"  # what the claims were matched on
        users_only = asks_of_user(asked, stored, about_read)
        picked, cost = await self._pick(
            asked,
            stored,
            recall.hits,
            history,
            no_longer,
            own_life or "",
            state.planned,
            users_only,
            about_read[0] if about_read else "",
        )
        said = await self._say_picked(state, understanding, asked, recall, stored, picked, cost)
        if said is not None:  # code says the claims it chose
            return said
        if nothing_told:  # neither their words nor a claim answers
            return await self._told_nothing_after(state, asked, recall, nothing_told[0], cost)
        if only_nearest and (personal or about_told(asked, stored)):  # no claim answers either:
            # the nearest the user came to saying it. Not for a question that only mentions what
            # they said ("What is the capital of Norway?" after "we went to Norway last summer"
            # had got "I'm not sure you told me that"): the model answers it
            return await self._nearest_told(state, asked, only_nearest[0], recall)
        if picked is _NOTHING_PICKED or about_someone:  # about someone of the user's record; no
            # claim and nothing they said says it (the re-run of set 7: "Camila supports Chelsea.")
            return await self._not_told(state, asked, recall, NOT_TOLD, cost)
        # nothing the user said answers it: when only they could know the answer, never the
        # answering model's guess (the re-run of set 7, Camila a subject of no claim: "Camila's
        # family supports the Barcelona FC."; the fourth trial, from someone who never spoke of a
        # dog: "what's the dog called?" -> "The dog called is named Jack."); a question anyone
        # could answer ("What is the capital of Norway?", "who is Elon Musk") goes on to the model
        scope = await self._scope(asked, own_life, understanding.asks_for_help)
        if scope is None:  # anyone could answer it, or it asks for help: the model answers
            return None
        cost = cost.add(scope.usage)
        # no word of the question matched a claim: the claims are matched on what it asks about
        # in the model's words (first contact, set 20: "Which ingredient could trigger a serious
        # reaction for me?" -> "I don't know", about "my allergies", "Your allergy: peanut" held)
        said, cost = await self._picked_on(
            state,
            understanding,
            recall,
            stored,
            PickAsked(asked, history, no_longer, users_only),
            scope.about,
            matched_on,
            cost,
        )
        if said is not None:
            return said
        if not read_told:  # its words named nothing they told: they may have said it in other
            # words ("what's the dog called?" after "a very naughty beagle called Pickle")
            told = await self._from_told(
                state, asked, recall, stored, history, NOT_TOLD, only_nearest, unmentioned=True
            )
            if told is not None:
                return told
        if only_nearest:  # the nearest the user came to saying it
            return await self._nearest_told(state, asked, only_nearest[0], recall)
        return await self._not_told(state, asked, recall, NOT_TOLD, cost, scope.asked)

    def _told_lines(
        self, state: CycleState, question: str, recall: RecallResult, stored: Sequence[Fact]
    ) -> list[ToldLine]:
        """The user's told lines nearest the question by meaning, and those of their newest
        messages the slow loop has not read, newest first."""
        # claims told ahead are matched too: a trip pushed to a later day is planned, and the
        # line it was read from is the answer to when it is (first contact, set 19: "When am I
        # heading up north ... with my best mate?" was shown the trip's first day only)
        matched = [
            m.fact
            for m in match_claims(question, [*stored, *state.planned], {h.id: h.score for h in recall.hits})
        ]
        recent = (
            self.facts.recent_statements(state.user_id, RECENT_READ)
            if self.facts is not None and state.user_id
            else []
        )
        unread = recent[: 2 * UNREAD_READ]
        # the messages of the claims shown, and those recalled insights were learnt from (read as
        # the user's words), fetched in one read
        sources = claim_sources(stored, matched)
        learnt = insight_sources(recall.hits, state.impulse.id)
        fetched = {
            m.id: m
            for m in (
                self.facts.statements(state.user_id, list(dict.fromkeys([*sources, *learnt])))
                if self.facts is not None and state.user_id
                else []
            )
        }
        said = {i: fetched[i].content for i in sources if i in fetched}
        names = subject_names(question, stored)
        naming = [
            *(m for m in fetched.values() if m.id in learnt),
            *(
                self.facts.statements_naming(state.user_id, names, NAMING_READ)
                if self.facts is not None and state.user_id and names
                else []
            ),
        ]
        # (embedded only when recall found none of the user's messages: only then are they read)
        found = recalls_a_message(recall.hits, state.impulse.id)
        near = [] if found else nearest_messages(question, recent, state.impulse.id, self.embedder)
        lines = told_lines(
            recall.hits, stored, matched, state.impulse.id, state.planned, unread, said, naming, near
        )
        return nearest(question, lines, self.embedder)

    async def _since(
        self,
        answer: FactAnswer,
        recall: RecallResult,
        state: CycleState,
        question: str,
        stored: Sequence[Fact],
    ) -> tuple[str, LLMUsage]:
        """The claims' answer, then the user's own words said after them that the question's
        words recall (a change the slow loop has not read yet: seen live, "when is my conference
        again?" a minute after "the conference is on the 21st, not the 14th" got the 14th); one
        that only names whom it is about, when no claim was read from it (``stored``). Each is
        said only when the claims model reads it as stating what is asked: a word in common is
        not enough (first contact set 13: "What is my name?" -> "Arjun" and "Since then you said:
        “... They've named her Anaya ...”")."""
        read = {f.source_message_id for f in stored if f.source_message_id}
        newer = said_since(answer.facts, recall.hits, state.impulse.id, question, read)
        kept, usage = await self._answering(question, newer)
        return with_said_since(answer.text, kept), usage

    async def _answering(self, question: str, newer: Sequence[SaidSince]) -> tuple[list[SaidSince], LLMUsage]:
        """What the user said since that the claims model reads as answering the question (each
        read on its own), and what reading them cost."""
        usage = LLMUsage()
        kept: list[SaidSince] = []
        for said in newer:
            says, checked = await self.reading.answers(question, said.text)
            usage = usage.add(checked)
            if says:
                kept.append(said)
        return kept, usage

    async def _settled(
        self,
        state: CycleState,
        understanding: Understanding,
        recall: RecallResult,
        stored: Sequence[Fact],
        history: bool,
        constraints: Sequence[Fact],
        own_life: str | None = None,
    ) -> StepOutcome | None:
        """A question the claims settle, or else the lines of a text the user gave (a letter, a
        timetable); None: the model answers in its own words. ``own_life``: the model has read it
        as asking what the user told (only they could answer it), and what it asks for."""
        settled = await self._from_claims(
            state, understanding, recall, stored, history, constraints, own_life
        )
        if settled is None:
            settled = await self._from_text(state, " ".join(understanding.texts(Act.QUESTION)), recall)
        return settled

    async def _from_text(
        self,
        state: CycleState,
        question: str,
        recall: RecallResult,
        *,
        spent: LLMUsage | None = None,
        quoted_only: bool = False,
        answered_only: bool = False,
    ) -> StepOutcome | None:
        """A question about a text the user gave, answered from the lines that state it (quoted;
        services/cycle/from_text.py); None when no such text was recalled, or it does not say and
        something else ranks first (the model answers then). ``quoted_only``: None too unless a
        line states it; ``answered_only``: None too unless it gives a short answer the line
        holds. ``spent``: what was read for the same answer before it."""
        texts = texts_of(recall.hits) or pasted_here(state)
        lines = lines_of(texts)
        if not question or not lines:
            return None
        messages = text_prompt.build(question, nearest_lines(question, lines, self.embedder))
        got = await self.reading.read(
            text_prompt.TextAnswer, messages, text_prompt.PROMPT, text_prompt.MAX_TOKENS
        )
        if got is None:
            return None
        read, usage = got
        if spent is not None:  # what was read before it, for the same answer
            usage = spent.add(usage)
        quote = quote_of(read, lines, question)
        asked = prompt_record(text_prompt.PROMPT, messages)
        if quote is None:  # nothing copied: the text does not say, when it is among the best memories
            if quoted_only or not any(is_text(h) for h in recall.hits[:TEXT_RANKS]):
                return None
            refs = [_text_ref(h) for h in texts]
            return await self._fixed(
                state, NOT_IN_TEXT, "not in the text", usage=usage, asked=asked, refs=refs
            )
        if quoted_only and (quote.unsupported or (answered_only and not quote.answer)):
            return None
        refs = [_text_ref(h) for h in texts if h.id in quote.source_ids]
        return await self._fixed(
            state, text_answer(quote), "from the text", usage=usage, asked=asked, refs=refs
        )

    async def _from_told(
        self,
        state: CycleState,
        question: str,
        recall: RecallResult,
        stored: Sequence[Fact],
        history: bool,
        not_told: str | None = None,
        only_nearest: list[HeldTold] | None = None,
        unmentioned: bool = False,
        nothing_told: list[NothingTold] | None = None,
        about_read: list[str] | None = None,
    ) -> StepOutcome | None:
        """A question about what was told, answered from the user's own dated words that the
        model copies (services/cycle/from_told.py); ``not_told`` when it finds nothing that was
        said answers (the model judged it: never words matched), else None. ``only_nearest``: when
        given, a quote that is only the nearest the user came (no answer the line holds, or one
        naming only what is no longer true) is put there, not said: the claims may answer (seen
        live: "how old is Biscuit?" got the line saying 7 though the claim "age: 8" was read).
        ``unmentioned``: read though the question names nothing they told (it asks about their
        own life: they may have said it in other words). ``nothing_told``: when given, the
        reading's "not told" is put there, not said: the claims are asked first. ``about_read``:
        when given, whom the model read the question as asking about is put there."""
        if not question or not (unmentioned or _names_told(state, question, recall, stored)):
            return None
        lines = await asyncio.to_thread(self._told_lines, state, question, recall, stored)
        if not lines:
            return None
        messages = told_prompt.build(question, [t.shown() for t in lines])
        got = await self.reading.read(
            told_prompt.ToldAnswer, messages, told_prompt.PROMPT, told_prompt.MAX_TOKENS
        )
        if got is None:
            return None
        read, usage = got
        log.info("the model read of what was told: %s", read.model_dump_json())
        _keep(about_read, read.about)
        asked = prompt_record(told_prompt.PROMPT, messages)
        named = named_subjects(question, stored)
        about = [f for f in stored if f.subject_key in named and f.subject_key != USER_SUBJECT]
        gone = earlier_values(stored) | ended_values(stored)  # never said as what is true now
        others = [f for f in stored if f.subject_key != USER_SUBJECT and f.subject]
        of_user = not named and speaks_as_user(question)  # asks about the user themselves
        told = ToldAsked(
            question, history, about, gone, user_names(stored), of_user, others, relations_of(stored)
        )
        quote = told_quote(read, lines, question, history, about, gone)
        if quote is not None and (
            day_that_holds_now(quote) if history else day_since_changed(quote, question)
        ):  # the day it moved to, for a question about before (or from, about now): only the
            quote = replace(quote, answer="", quoted=Quoted.NEAREST)  # nearest line
        never = quote is None and never_told_of(about_stems(read, question), lines, stored)
        if never and not_told is not None:
            log.info("no answer from what was told: nothing said speaks of whom the question asks about")
            return await self._told_nothing(state, question, recall, not_told, usage, asked, nothing_told)
        if quote is None:
            spent = (usage, asked)
            return await self._nothing_copied(state, told, read, lines, recall, spent, not_told, nothing_told)
        if unmentioned:  # the question named nothing they told: whether the line speaks of what
            # it asks about, the claims model says (seen live: "what's the dog called?" -> "Mochi",
            # from "we've got a ginger cat called Mochi")
            quote = replace(quote, about_unsure=True)
        checked_quote, checked = await self.reading.checked(
            question, quote, told.names, of_user, told.relations
        )
        usage = usage.add(checked)
        if checked_quote is None:  # about someone else ("Where does my sister live?" -> "Leeds",
            # from "my brother Tom lives in Leeds"): nothing said answers
            log.info("no answer from what was told: the line copied is about someone else")
            if not_told is not None:
                return await self._told_nothing(state, question, recall, not_told, usage, asked, nothing_told)
            return None
        quote, asked, since, cost = await self._told_now(told, checked_quote, asked, lines)
        usage = usage.add(cost)
        held = HeldTold(quote, usage, asked, since)
        if only_nearest is not None and quote.quoted is Quoted.NEAREST:
            only_nearest.append(held)
            return None
        return await self._said_told(state, held, recall)

    async def _nothing_copied(
        self,
        state: CycleState,
        told: ToldAsked,
        read: told_prompt.ToldAnswer,
        lines: Sequence[ToldLine],
        recall: RecallResult,
        spent: tuple[LLMUsage, PromptRecord],
        not_told: str | None,
        nothing_told: list[NothingTold] | None,
    ) -> StepOutcome | None:
        """The words reader copied nothing that answers: for a question about now whose copies are
        only words replaced since, the answer the model copies from the lines holding what
        replaced them, read alone (services/cycle/from_told.py, :func:`replaced_since`); else
        ``not_told`` when it copied nothing at all; else None."""
        usage, asked = spent
        later = [] if told.history else replaced_since(read, lines)
        if later:
            log.info("the words copied were replaced since: %d later lines read", len(later))
            got, cost = await self._newest_told(told, later)
            if got is not None:
                return await self._said_told(state, HeldTold(got[0], usage.add(cost), got[1]), recall)
            usage = usage.add(cost)
        log.info("no answer from what was told: the model copied %s", read.quotes or "nothing")
        if not_told is not None and not any(q.strip() for q in read.quotes):
            question = told.question
            return await self._told_nothing(state, question, recall, not_told, usage, asked, nothing_told)
        return None

    async def _told_nothing(
        self,
        state: CycleState,
        question: str,
        recall: RecallResult,
        not_told: str,
        usage: LLMUsage,
        asked: PromptRecord,
        nothing_told: list[NothingTold] | None,
    ) -> StepOutcome | None:
        """The reading found nothing the user said that answers: "not told" now, or, when the
        caller asks the claims first, kept in ``nothing_told`` for it (None)."""
        if nothing_told is None:
            return await self._not_told(state, question, recall, not_told, usage, asked)
        nothing_told.append(NothingTold(not_told, usage, asked))
        return None

    async def _told_nothing_after(
        self, state: CycleState, question: str, recall: RecallResult, found: NothingTold, cost: LLMUsage
    ) -> StepOutcome:
        """The reading's "not told" kept for after the claims were asked (``cost``: asking them)."""
        return await self._not_told(state, question, recall, found.answer, found.usage.add(cost), found.asked)

    async def _told_now(
        self, told: ToldAsked, quote: ToldQuote, asked: PromptRecord, lines: Sequence[ToldLine]
    ) -> tuple[ToldQuote, PromptRecord, list[SaidSince], LLMUsage]:
        """The told answer, and what the user said since that answers it too; when the model,
        reading those lines alone, copies an answer they state, that answer instead: what the
        user said last wins (first contact set 16: "Where is Divya going to teach after we
        shift?" -> "Edappally", copied from the first message, with "Divya got teaching job in a
        school in Whitefield" shown beside it)."""
        newer, usage = await self._told_since(told, quote, lines)
        if not newer:
            return quote, asked, [], usage
        got, cost = await self._newest_told(told, newer)
        usage = usage.add(cost)
        if got is None:
            return quote, asked, [SaidSince(t.at, t.text) for t in newer], usage
        return got[0], got[1], [], usage

    async def _newest_told(
        self, told: ToldAsked, newer: Sequence[ToldLine]
    ) -> tuple[tuple[ToldQuote, PromptRecord] | None, LLMUsage]:
        """The answer the model copies from ``newer`` read alone, when they state it and speak of
        whom the question asks about; else None."""
        if not newer:
            return None, LLMUsage()
        # each after the sentence before it in its message: what changed may be named there
        # (first contact, set 26: "obinna wedding don shift o. … now na sat dec 20.")
        shown = [replace(t, text=t.with_before, before="").shown() for t in newer]
        messages = told_prompt.build(told.question, shown)
        got = await self.reading.read(
            told_prompt.ToldAnswer, messages, told_prompt.PROMPT, told_prompt.MAX_TOKENS
        )
        if got is None:
            return None, LLMUsage()
        read, usage = got
        quote = told_quote(read, newer, told.question, told.history, told.about, told.gone)
        if quote is None or quote.quoted is not Quoted.ANSWER:
            return None, usage
        checked, cost = await self.reading.checked(
            told.question, quote, told.names, told.of_user, told.relations
        )
        usage = usage.add(cost)
        if checked is None or checked.quoted is not Quoted.ANSWER:
            return None, usage
        log.info("the words said since answer it: %s", checked.answer)
        return (checked, prompt_record(told_prompt.PROMPT, messages)), usage

    async def _told_since(
        self, told: ToldAsked, quote: ToldQuote, lines: Sequence[ToldLine]
    ) -> tuple[list[ToldLine], LLMUsage]:
        """For a question about now answered from the user's words: the lines said after them
        that the claims model reads as answering it too (a change it did not copy,
        :func:`newer_lines`)."""
        if told.history or quote.quoted not in (Quoted.ANSWER, Quoted.LINES):
            return [], LLMUsage()
        newer = newer_lines(quote, lines, told.question, told.about or named_in(quote, told.others))
        # each read after the sentence before it in its message (what changed may be said there)
        read = [SaidSince(t.at, t.with_before) for t in newer]
        kept, usage = await self._answering(told.question, read)
        return [t for t, said in zip(newer, read, strict=True) if said in kept], usage

    async def _asked_beside_news(
        self, state: CycleState, understanding: Understanding, recall: RecallResult
    ) -> StepOutcome | None:
        """News with a question about a text the user gave ("i dont have any buttermilk, what can
        i use instead?" after a pasted recipe: the answering model invented "vanilla extract"):
        the text's line that answers it, read with the whole message; None when it is not such a
        message or no line states it. A request for help is read so only when such a text is the
        best memory, and answered so only with a short answer the line holds ("what should i do
        if i forget to take a metformin tablet?" after a doctor's letter saying "If you miss a
        dose, skip it": the answering model said to call the doctor)."""
        helps = understanding.asks_for_help and understanding.kind in (MessageKind.REQUEST, MessageKind.MIX)
        asks = understanding.kind is MessageKind.MIX and bool(understanding.texts(Act.QUESTION))
        if not (asks or helps):
            return None
        if not any(is_text(h) for h in recall.hits[: TEXT_RANKS if asks else 1]):
            return None
        content = state.impulse.content
        return await self._from_text(state, content, recall, quoted_only=True, answered_only=not asks)

    async def _not_told(
        self,
        state: CycleState,
        question: str,
        recall: RecallResult,
        answer: str,
        usage: LLMUsage,
        asked: PromptRecord | None = None,
    ) -> StepOutcome:
        """Nothing the user said and no claim answers: a text they gave may still state it (a
        pasted letter's rent, a timetable's times: "how much is the rent a month?" is theirs to
        know, and got "I don't know" though the tenancy terms they pasted say it); else
        ``answer``."""
        from_text = await self._from_text(state, question, recall, spent=usage)
        if from_text is not None:
            return from_text
        return await self._fixed(state, answer, "not told", usage=usage, asked=asked)

    async def _nearest_told(
        self, state: CycleState, question: str, held: HeldTold, recall: RecallResult
    ) -> StepOutcome:
        """The nearest the user came to saying it, unless a text they gave states it."""
        from_text = await self._from_text(state, question, recall, spent=held.usage, quoted_only=True)
        if from_text is not None:
            return from_text
        return await self._said_told(state, held, recall)

    async def _said_told(self, state: CycleState, held: HeldTold, recall: RecallResult) -> StepOutcome:
        """The user's words that answer, said with their days (the trace shows where they came from)."""
        quote = held.quote
        why = {f.id: "read from the words the model copied as the answer" for f in quote.facts}
        said = with_said_since(told_answer(quote), held.since)
        kinds = {h.id: h.type for h in recall.hits}
        refs = [  # the messages the quoted words were said in: the trace shows where they came from
            ReferenceItem(
                source_id=t.source_id, kind=kinds.get(t.source_id, NodeType.USER_IMPULSE.value), text=t.text
            )
            for t in {t.source_id: t for t in quote.lines}.values()
        ]
        mode = NEAREST_WORDS if quote.quoted is Quoted.NEAREST else "your words"
        return await self._fixed(state, said, mode, quote.facts, why, held.usage, asked=held.asked, refs=refs)

    async def _scope(self, asked: str, own_life: str | None, for_help: bool) -> Scope | None:
        """Who could answer a question no claim answered, when only the user could; None when
        anyone could (or the model cannot say), or when it asks for help (``for_help``).
        ``own_life``: already read as asking what the user told (what it asks for, in the
        model's words)."""
        if for_help:
            return None
        if own_life is not None:
            return Scope(Answerer.ONLY_THE_USER, LLMUsage(), None, own_life)
        scope = await self.reading.scope(asked)
        return scope if scope is not None and scope.answerer is Answerer.ONLY_THE_USER else None

    async def _picked_on(
        self,
        state: CycleState,
        understanding: Understanding,
        recall: RecallResult,
        stored: Sequence[Fact],
        asked: PickAsked,
        wanted: str,
        matched_on: str,
        cost: LLMUsage,
    ) -> tuple[StepOutcome | None, LLMUsage]:
        """The claims the model picks when matched on ``wanted`` too, said by code; None (and
        what asking cost, beside ``cost``) when nothing is wanted, the claims were already
        matched (on ``matched_on``), or it picks none."""
        if not wanted or about_told(matched_on, [*stored, *state.planned]):
            return None, cost
        picked, again = await self._pick(
            asked.question,
            stored,
            recall.hits,
            asked.history,
            asked.no_longer,
            wanted,
            state.planned,
            asked.users_only,
        )
        cost = cost.add(again)
        said = await self._say_picked(state, understanding, asked.question, recall, stored, picked, cost)
        return said, cost

    async def _pick(
        self,
        question: str,
        stored: Sequence[Fact],
        hits: Sequence[RecallHit],
        history: bool,
        no_longer: frozenset[str],
        wanted: str = "",
        planned: Sequence[Fact] = (),
        users_only: bool = False,
        about: str = "",
    ) -> tuple[FactAnswer | None, LLMUsage]:
        """The claims the model picks as the answer to a question about what was told, said from
        their fields; None when it picks none (or cannot): the model answers in its own words.
        ``no_longer``: the values no longer true (never quoted in an answer about now).
        ``wanted``: what the question asks for in the model's words, matched with the claims
        beside the question's own. ``planned``: the claims told ahead that have not started,
        shown (and said) as planned with the day they start, beside the current ones.
        ``users_only``: the question asks about the user themselves, so only their own claims
        are shown. ``about``: whom the words reader read the question as asking about ("my
        sister"): a claim chosen that holds no word of them must speak of them in other words."""
        matched_on = f"{question} {wanted}".strip()
        ahead = {f.id for f in planned} if not history else set()
        told = [*stored, *(f for f in planned if f.id in ahead)]
        if users_only:  # first contact, set 20: "What do I do for a living nowadays?" -> "Naledi
            # (your sister), job: law student.", the user's job closed by a misreading
            told = [f for f in told if f.subject_key == USER_SUBJECT]
        if not about_told(matched_on, told):
            return None, LLMUsage()
        matches = match_claims(matched_on, told, {h.id: h.score for h in hits})
        earlier = [m.fact for m in matches if m.fact.valid_until is not None]
        current = [m.fact for m in matches if m.fact.valid_until is None]
        # a question about now is shown the current claims only: shown earlier ones beside them, the
        # 1.5B picked an EARLIER line for "these days" (first contact, set 14: the old GP, the old knee)
        shown = (earlier + current if history else current)[:PICK_SHOWN]
        if not shown and not history:  # no word of it matched: the newest current claims, the
            # model judges (first contact, set 19: "what was my occupation?" and "job: receptionist")
            newest = sorted((f for f in told if f.valid_until is None), key=lambda f: -f.created_at)
            shown = newest[:PICK_SHOWN]
        if not shown:
            return None, LLMUsage()
        lines = [planned_line(f) if f.id in ahead else candidate_line(f) for f in shown]
        got = await self.reading.read(pick.PickOutput, pick.build(question, lines), pick.PROMPT, PICK_TOKENS)
        if got is None:
            return None, LLMUsage()
        out, usage = got
        log.info("the model picked %s of %s", out.facts, lines)
        chosen = [shown[n - 1] for n in dict.fromkeys(out.facts) if 1 <= n <= len(shown)]
        # a claim that only names whom the question asks about is no answer (seen on first
        # contact: "What does Ama do for a living?" -> "Your wife: ama.", never told), unless the
        # user's words it was read from say more: they are checked ("which part of Leeds do we
        # live in?" and "home: Leeds", read from "a terraced house in Headingley, Leeds")
        restating = [
            f for f in chosen if restates(f, question) and (history or with_quote(f) == told_sentence(f))
        ]
        chosen = [f for f in chosen if f not in restating]
        if not history:  # an earlier value never answers what is true now, nor an end beside it
            chosen = without_ends_beside_current([f for f in chosen if f.valid_until is None])
        else:  # nor a current value what was true before: the value it replaced does, and one
            # that replaced nothing is no answer (the user's words are read then: "when were we
            # going originally?" had been answered with the date it was moved to)
            earlier_of = (
                f if f.valid_until is not None or ended(f) else replaced_by(f, shown) for f in chosen
            )
            chosen = list({f.id: f for f in earlier_of if f is not None}.values())
        avoid = frozenset() if history else no_longer
        if not chosen and restating:  # it picked only whom the question names: nothing answers
            return _NOTHING_PICKED, usage
        if chosen:  # each claim chosen states what is asked? ("What colour is Ponmo?" ->
            # "ponmo (your cat), home: surulere.", first contact set 8; an earlier value too: "the
            # book group's old name?" -> "library, book: El túnel (no longer)", set 17); about now,
            # the other current values of the same label shown are asked too: both hold, and an
            # answer of one would leave the other out (first contact set 13: "diet: vegetarian"
            # and "diet: lactose intolerant" shown, one picked, the intolerance not said)
            kept: list[Fact] = []
            whom = about_stems(about, question)
            for fact in [*chosen, *([] if history else same_label(chosen, shown))]:
                says, checked = await self._claim_answers(question, fact, whom)
                usage = usage.add(checked)
                if says:
                    kept.append(fact)
            if not kept:
                return _NOTHING_PICKED, usage
            chosen = kept
        return (picked_answer(chosen, avoid, ahead) if chosen else None), usage

    async def _claim_answers(
        self, question: str, fact: Fact, about: frozenset[str] = frozenset()
    ) -> tuple[bool, LLMUsage]:
        """Whether a claim states what the question asks: its line, else its line with the user's
        words it was read from when they say more (the answer shows them: "head of science (you
        said: “I've accepted the head of science post at Kingfisher College”)" answers "Which
        school am I joining?", first contact set 13). ``about``: the stems of whom the question
        asks about; a claim of the user's own holding none of them must speak of them in other
        words, as the claims model reads it (a live trial: "What's my sister called?" -> "Your
        cat: Mango.", nobody's sister ever told). A claim about someone else is not asked: whom
        it names may be the one asked about by a relation told in another message ("sipho, job:
        field ranger" for "my cousin", told "me n my cousin sipho" before; first contact set 20)."""
        line, quoted = told_sentence(fact), with_quote(fact)
        usage = LLMUsage()
        if about and fact.subject_key == USER_SUBJECT and not claim_speaks_of(fact, about):
            same, usage = await self.reading.same_subject(question, line)
            if not same:
                return False, usage
        naming = naming_only(fact, question)
        says, checked = await self.reading.answers(question, line, naming)
        usage = usage.add(checked)
        if says or quoted == line:
            return says, usage
        again, checked = await self.reading.answers(question, quoted, naming)
        return again, usage.add(checked)

    def _stored_facts(self, state: CycleState) -> list[Fact]:
        """Every fact of record of the user as it stands when the message was said, earlier values
        included (newest first); the changes told ahead that have not taken effect go to
        ``state.planned`` (services/common/timeline.py)."""
        if self.facts is None or not state.user_id:
            return []
        read = self.facts.facts_of_record(state.user_id, current_only=False, limit=PROFILE_READ)
        at = claims_at(read, state.impulse.created_at)
        state.planned = at.planned
        return at.known

    async def _fixed(
        self,
        state: CycleState,
        answer: str,
        mode: str,
        facts: Sequence[Fact] = (),
        why: Mapping[str, str] | None = None,
        usage: LLMUsage | None = None,
        asked: PromptRecord | None = None,
        refs: Sequence[ReferenceItem] = (),
    ) -> StepOutcome:
        """An answer no model wrote as an answer (the model at most chose the claims it says, or
        reacted in a checked sentence), streamed to the user and recorded with its mode (and the
        claims it says back, each with why it answers; ``asked``: the prompt of such a call)."""
        state.templated = True
        await send_text(state, answer)
        output = self._output(state, answer, refs, facts)
        output.mode = mode
        output.prompt = asked
        if why:  # why each fact said back answers (the trace shows it)
            output.facts_why = {f.id: why.get(f.id, "") for f in facts}
        return self._outcome(state, output, refs, usage or LLMUsage(), facts)

    @staticmethod
    def _output(
        state: CycleState, answer: str, refs: Sequence[ReferenceItem], facts: Sequence[Fact]
    ) -> SynthesisOutput:
        """The step's output: the answer (kept as the cycle's), the references and the facts."""
        state.answer = answer
        return SynthesisOutput(
            node_id=cycle_node_id(state.correlation_id, "answer"),
            answer=answer,
            references=[r.source_id for r in refs],
            facts=[f.id for f in facts],
        )

    @staticmethod
    def _outcome(
        state: CycleState,
        output: SynthesisOutput,
        refs: Sequence[ReferenceItem],
        usage: LLMUsage,
        facts: Sequence[Fact],
    ) -> StepOutcome:
        used = [*(f.id for f in facts), *(r.source_id for r in refs)]
        response = FinalResponse(
            id=output.node_id,
            content=output.answer,
            recalled_ids=used,
            user_id=state.user_id,
            session_id=state.session_id,
            correlation_id=state.correlation_id,
        )
        edges = [Edge(src=response.id, dst=state.impulse.id, type=EdgeType.IS_RESPONSE_TO)]
        edges += [Edge(src=response.id, dst=node_id, type=EdgeType.RECALLED) for node_id in used]
        return StepOutcome(output=output, nodes=[response], edges=edges, usage=usage)


@dataclass(frozen=True)
class ToldAsked:
    """A question answered from the user's words, and what the answer must keep to: whether it
    asks about before (``history``), the claims of whom it names (``about``), values no longer
    true (``gone``), the stems of the user's own names and whether it asks about the user."""

    question: str
    history: bool
    about: Sequence[Fact]
    gone: Collection[str]
    names: frozenset[str]
    of_user: bool
    #: the claims of the record's subjects other than the user
    others: Sequence[Fact] = ()
    #: who the record's subjects are to the user, by name ("Papa": "father")
    relations: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NothingTold:
    """The reading of the user's words found nothing that answers: the answer to give when no
    claim answers either, what the reading cost and its prompt."""

    answer: str
    usage: LLMUsage
    asked: PromptRecord


@dataclass(frozen=True)
class HeldTold:
    """What the user's words gave a question, not said yet: the quote, what reading them cost,
    and the prompt."""

    quote: ToldQuote
    usage: LLMUsage
    asked: PromptRecord
    #: what the user said after the quoted words that answers it too (a change not copied)
    since: list[SaidSince] = field(default_factory=list)


def pasted_here(state: CycleState) -> list[RecallHit]:
    """The text the user pasted last in this conversation, as a recalled text (recall may find
    none for a question that shares no word with it and means little alike: "when do i have to
    pay?" and a price list's "Fees are due by 31 January")."""
    return [
        RecallHit(id=message_id, type=NodeType.USER_IMPULSE.value, text=text, score=0.0)
        for message_id, text in state.pasted_before[-1:]
    ]


def _text_ref(hit: RecallHit) -> ReferenceItem:
    """A text an answer was read from, as the trace lists it."""
    return ReferenceItem(source_id=hit.id, kind=hit.type, text=hit.text)
