"""The model calls supersession makes about one message's claims (supersession.py decides when):
whether a newer claim replaces an older one, whether an end that names someone takes them out of
the user's life, and whether a change gives a value of a claim under another attribute. Each call
adds its cost to :attr:`PairCalls.usage`; a failed call answers nothing (code decides alone)."""

from __future__ import annotations

import logging
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from services.common.dates import when_text
from services.common.llm_calls import ask_structured
from services.knowledge.claims.render import told_claim
from services.knowledge.claims.supersession import compared_attributes
from services.knowledge.claims.value_check import answers_its_label
from services.knowledge.claims.verify import plain
from services.prompts import BaseMessage, PromptSpec
from services.prompts import still_theirs as still_prompt
from services.prompts import supersession as pairing
from services.prompts.extract_claims import ClaimKind
from thea.errors import LLMError
from thea.models import USER_SUBJECT, Fact, LLMUsage

log = logging.getLogger(__name__)

_Read = TypeVar("_Read", bound=BaseModel)


class PairCalls:
    """The model calls about one message's claims: the judging model (None: no pair is judged)
    and the reading model, which checks a value against the message (value_check.py)."""

    def __init__(
        self,
        judge_llm: BaseChatModel | None,
        reader_llm: BaseChatModel,
        message: str,
        timeout_s: float,
        reader_timeout_s: float,
    ) -> None:
        self.judge_llm = judge_llm
        self.reader_llm = reader_llm
        self.message = message
        self.timeout_s = timeout_s
        self.reader_timeout_s = reader_timeout_s
        self.usage = LLMUsage()

    async def _asked(
        self, answer: type[_Read], messages: list[BaseMessage], spec: PromptSpec, max_tokens: int, what: str
    ) -> _Read | None:
        """The judging model's answer; None without one."""
        if self.judge_llm is None:
            return None
        try:
            out, cost = await ask_structured(
                self.judge_llm, answer, messages, spec, timeout_s=self.timeout_s, max_tokens=max_tokens
            )
        except LLMError as exc:
            log.warning("could not %s: %s", what, exc)
            return None
        self.usage = self.usage.add(cost)
        return out

    async def judge(self, old: Fact, newer: Fact) -> pairing.PairDecision | None:
        """The model's decision on an (earlier, newer) pair (prompts/supersession.py)."""
        shown = pairing.pair_text(
            old.content,
            old.quote or old.content,
            when_text(old.created_at),
            newer.content,
            newer.quote or newer.content,
            when_text(newer.created_at),
        )
        what = f"compare claims {old.id[:8]} and {newer.id[:8]}"
        out = await self._asked(pairing.PairOutput, pairing.build(shown), pairing.PROMPT, 24, what)
        return out.decision if out is not None else None

    async def still(self, old: Fact, newer: Fact) -> bool | None:
        """Whether whom the earlier claim names is still the user's after the newer end."""
        if old.subject_key == USER_SUBJECT:  # "Your pet: hamster Bông"
            name, relation = old.value or "", old.attribute or ""
        else:  # "our dog Rex": Rex, dog
            name, relation = old.subject or old.subject_key or "", old.relation or ""
        shown = still_prompt.pair_text(name, relation, newer.quote or newer.content)
        what = f"read whether claim {newer.id[:8]} ends {old.id[:8]}"
        read = await self._asked(
            still_prompt.StillTheirs,
            still_prompt.build(shown),
            still_prompt.PROMPT,
            still_prompt.MAX_TOKENS,
            what,
        )
        return read.still if read is not None else None

    async def fits(self, old: Fact, newer: Fact) -> bool | None:
        """Whether the message, asked for the older claim's attribute, answers the newer claim's
        value (the older claim's subject is asked about; the user, for a claim naming someone or
        something by its relation to the user: "Crumbs, your workplace")."""
        compared = compared_attributes(newer, old)
        if compared is None or not newer.value:
            return None
        as_users = old.subject_key == USER_SUBJECT or plain(compared[1]) != plain(old.attribute or "")
        shape = old.model_copy(
            update={"attribute": compared[1]} | ({"subject_key": USER_SUBJECT} if as_users else {})
        )
        asked_for = told_claim(shape, newer.quote or "", newer.value, ClaimKind.REPLACES)
        answered, cost = await answers_its_label(
            self.reader_llm, asked_for, as_users, self.message, self.reader_timeout_s
        )
        self.usage = self.usage.add(cost)
        return answered
