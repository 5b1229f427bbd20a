"""What the claims model reads for an answer, one short structured call each: who could answer
a question (services/prompts/question_scope.py), whether a question put as a request asks for
help or for what the user told (help_or_recall.py), whether a line copied from the user's words
states what is asked (answer_check.py) and speaks of whom it asks about (same_subject.py), and
the readings the answer paths ask for (a text's lines, the user's words, the claims that
answer). A call that fails costs the answer nothing: the path goes on without it."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from services.common.llm_calls import ask_structured
from services.cycle.answer_inputs import prompt_record
from services.cycle.fact_match import restates, stems_of
from services.cycle.from_told import Quoted, ToldQuote, glossed, narrowed
from services.knowledge.claims.verify import plain
from services.prompts import BaseMessage, PromptSpec
from services.prompts import answer_check as check_prompt
from services.prompts import asked_beside_news as asked_prompt
from services.prompts import help_or_recall as recall_prompt
from services.prompts import question_scope as scope_prompt
from services.prompts import same_subject as same_prompt
from services.prompts.answer_check import Verdict
from services.prompts.asked_beside_news import AskedBesideNews
from services.prompts.help_or_recall import Asks
from services.prompts.question_scope import Answerer
from services.prompts.same_subject import Referent
from thea.errors import LLMError
from thea.models import LLMUsage
from thea.models.step_outputs import PromptRecord
from thea.words import FIRST_PERSON, written_names

log = logging.getLogger(__name__)
#: what the claims model reads for an answer (services/prompts: TextAnswer, ToldAnswer, PickOutput)
Read = TypeVar("Read", bound=BaseModel)


@dataclass(frozen=True)
class Scope:
    """Who could answer a question, what asking cost, and the prompt (None: not asked, the
    question was already read as asking what only the user told)."""

    answerer: Answerer
    usage: LLMUsage
    asked: PromptRecord | None
    #: whom or what the question asks about, in the model's words ("my allergies" for "Which
    #: ingredient could trigger a serious reaction for me?"); "" when not asked
    about: str = ""


class AnswerReading:
    """What the claims model reads for an answer: who could answer a question, whether a line
    copied from the user's words states what is asked and speaks of whom it asks about, and
    the structured readings the answer paths ask for (a text's lines, the user's words, the
    claims that answer). Each reading costs one short call; None or the safe default when the
    model cannot say."""

    def __init__(self, model: BaseChatModel, timeout_s: float) -> None:
        self.model = model
        self.timeout_s = timeout_s

    async def read(
        self, schema: type[Read], messages: Sequence[BaseMessage], spec: PromptSpec, max_tokens: int
    ) -> tuple[Read, LLMUsage] | None:
        """What the claims model reads for an answer (the text's words, the user's words, the
        claims that answer); None when it cannot (the answer goes on without it)."""
        try:
            return await ask_structured(
                self.model, schema, messages, spec, timeout_s=self.timeout_s, max_tokens=max_tokens
            )
        except LLMError as exc:
            log.warning("could not read %s for the answer: %s", spec.name, exc)
            return None

    async def scope(self, question: str) -> Scope | None:
        """Who could answer a question nothing the user told answers (the claims model says what
        kind of thing it asks about, from the question alone); None when the model cannot say."""
        if not question:
            return None
        messages = scope_prompt.build(question)
        got = await self.read(
            scope_prompt.QuestionScope, messages, scope_prompt.PROMPT, scope_prompt.MAX_TOKENS
        )
        if got is None:
            return None
        read, usage = got
        answerer = read.answerer(question)
        log.info("who could answer it: %s (about %r, %s)", answerer.value, read.about, read.known.value)
        about = " ".join(read.about.split())
        return Scope(answerer, usage, prompt_record(scope_prompt.PROMPT, messages), about)

    async def recalls(self, question: str) -> tuple[str | None, LLMUsage]:
        """Whether a question the reading of acts took for a request for help asks for something
        of the user's own life they may have told ("How do I get to my shifts these days?"), not
        for advice ("How do I get red wine out of a carpet?"): the claims model says, from the
        question alone (services/prompts/help_or_recall.py). What it asks for, in the model's
        words ("my job" for "How do I earn my living?": the claims are matched on them too); None
        for help, or when the model cannot say (help, as before it was asked)."""
        messages = recall_prompt.build(question)
        got = await self.read(
            recall_prompt.HelpOrRecall, messages, recall_prompt.PROMPT, recall_prompt.MAX_TOKENS
        )
        if got is None:
            return None, LLMUsage()
        read, usage = got
        log.info("help or recall: %s (%r wanted by %r)", read.asks.value, read.wanted, question)
        return (" ".join(read.wanted.split()) if read.asks is Asks.RECALL else None), usage

    async def asked_beside_news(self, message: str) -> tuple[AskedBesideNews | None, LLMUsage]:
        """What a message that tells something also asks of the assistant, in the model's reading
        of the whole message (services/prompts/asked_beside_news.py); None when it cannot say."""
        messages = asked_prompt.build(message)
        got = await self.read(
            asked_prompt.AskedBesideNews, messages, asked_prompt.PROMPT, asked_prompt.MAX_TOKENS
        )
        if got is None:
            return None, LLMUsage()
        read, usage = got
        log.info("asked beside the news: %s (%r)", read.asks.value, read.asked)
        return read, usage

    async def answers(
        self, question: str, line: str, naming: frozenset[str] = frozenset()
    ) -> tuple[bool, LLMUsage]:
        """Whether the line chosen as the answer states what the question asks: the claims model
        reads the two again (services/prompts/answer_check.py); words it copies that are only
        the question's own ("Kluska" for "What breed is Kluska?"), with ``naming`` (the stems of
        the line's words that only name whom it is about), state nothing. True when the model
        cannot say (the answer stands as chosen)."""
        messages = check_prompt.build(line, question)
        got = await self.read(
            check_prompt.AnswerCheck, messages, check_prompt.PROMPT, check_prompt.MAX_TOKENS
        )
        if got is None:
            return True, LLMUsage()
        read, usage = got
        says = read.verdict is Verdict.ANSWERS and not restates(read.answer, question, naming)
        if not says:
            log.info("the line chosen does not answer %r (%s): %s", question, read.asked, line[:120])
        return says, usage

    async def checked(
        self,
        question: str,
        quote: ToldQuote,
        user_names: frozenset[str] = frozenset(),
        of_user: bool = False,
        relations: Mapping[str, str] | None = None,
    ) -> tuple[ToldQuote | None, LLMUsage]:
        """The quote as the claims model reads it again: None when its lines, holding no word of
        whom the question asks about, speak of someone else; only the nearest line when the line
        copied does not state what is asked ("Which football team do I support?" -> the line
        about cutting down on sugar, first contact set 8). ``user_names``: the stems of the
        user's own names (the record's): whom the question asks about is never the user, unless
        ``of_user``: the question asks about the user themselves. ``relations``: who the
        record's subjects are to the user, by name (a note to the line for whom it speaks of)."""
        copied = " / ".join(t.in_context for t in quote.lines)
        usage = LLMUsage()
        if quote.about_unsure:  # whom it asks about named in other words, or someone else?
            same, usage = await self.same_subject(
                question, glossed(copied, relations or {}), user_names, of_user
            )
            if not same:
                return None, usage
        if quote.quoted in (Quoted.ANSWER, Quoted.LINES):  # the lines copied state what is asked?
            # each on its own when several were copied (an answer of one thing had copied two
            # lines: "How do I earn my living?" -> "E-bike; nurse")
            each = [t.in_context for t in quote.lines] if len(quote.lines) > 1 else [copied]
            kept: list[int] = []
            for n, line in enumerate(each):
                says, checked = await self.answers(question, line)
                usage = usage.add(checked)
                if says:
                    kept.append(n)
            if not kept:
                return replace(quote, answer="", quoted=Quoted.NEAREST), usage
            if len(each) > 1:
                return narrowed(quote, [quote.lines[n] for n in kept]), usage
        return quote, usage

    async def same_subject(
        self, question: str, line: str, user_names: frozenset[str] = frozenset(), of_user: bool = False
    ) -> tuple[bool, LLMUsage]:
        """Whether a line that does not hold the words the question names whom it asks about by
        speaks of them in other words ("my small bro obinna" for "my kid brother"): the claims
        model says (services/prompts/same_subject.py). False when it cannot say, names them in
        words the line does not hold (as before it was asked: such a line never answered), or
        names the user (``user_names``: the user is not whom they ask about). ``of_user``: the
        question asks about the user themselves, so a line whose words naming whom it speaks of
        are the user's own "I" is about them, whatever the model's verdict (seen live: "is there
        anything i cant eat?" -> "I don't know", the line "I'm coeliac too" judged someone else's)."""
        messages = same_prompt.build(line, question)
        got = await self.read(same_prompt.SameSubject, messages, same_prompt.PROMPT, same_prompt.MAX_TOKENS)
        if got is None:
            return False, LLMUsage()
        read, usage = got
        speaking = frozenset(plain(read.named).split())
        if of_user and speaking and speaking <= FIRST_PERSON and speaking <= set(plain(line).split()):
            log.info("whom the line speaks of (%s): the user, as the question asks", read.named)
            return True, usage
        # the words naming whom the line speaks of must hold the line's own: copied from the
        # question only ("my grandson" for "my small bro obinna", seen on a probe), they say
        # nothing; the question's words beside the line's are the model saying who that is ("my
        # closest friend Zoe" for "zoe got engaged", first contact set 19)
        own = stems_of(read.named) & stems_of(line)
        # nor the user's own name ("what's my sister called?" -> "I'm Ana", seen live)
        held = bool(own) and not own <= user_names
        log.info("whom the line speaks of (%s, %s): %s", read.named, held, read.verdict.value)
        if held and own <= stems_of(" ".join(written_names(question))):
            # the line names them by the name the question gives them ("kuba has peanut allergy"
            # for "What does my son Kuba have to stay away from in food?", judged someone else's
            # by the 1.5B, first contact set 29): the same one, whatever the verdict; a word it
            # does not write as a name ("the dog" for "what did my sister say about the dog?")
            # leaves it to the model
            return True, usage
        return held and read.verdict is Referent.SAME, usage
