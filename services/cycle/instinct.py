"""Instinct: a fast, brief first reaction (bounded output, no memory).

With ``first_look="combined"`` the same structured call also yields the search plan (kept on
the cycle state for the plan step, which then needs no call of its own).
"""

from __future__ import annotations

import asyncio
import logging

from langchain_core.language_models import BaseChatModel

from services.common.llm_calls import ask_structured, ask_text
from services.common.understanding import Act, asks_history
from services.cycle.from_facts import may_answer
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.prompts import first_look
from services.prompts import instinct as prompt
from thea.memory.operations import FactReads
from thea.models import InstinctiveResponse, LLMUsage, MessageKind, Step, cycle_node_id
from thea.models.step_outputs import InstinctOutput

log = logging.getLogger(__name__)

#: longest reaction kept (one sentence)
MAX_REACTION_CHARS = 400
#: tokens the plan's fields may take after the reaction in a combined call
PLAN_TOKENS = 96
#: facts of record read to know whether they answer a question plainly
FACTS_READ = 1000


class InstinctService(CognitiveService):
    step = Step.INSTINCT
    name = "instinct"

    def __init__(
        self,
        llm: BaseChatModel,
        timeout_s: float,
        *,
        max_tokens: int | None = None,
        combined: bool = False,
        facts: FactReads | None = None,
    ) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.combined = combined
        #: the user's facts of record: a question they answer plainly needs no reaction
        self.facts = facts

    async def handle(self, state: CycleState) -> StepOutcome:
        told = state.understanding
        if told is not None and told.kind is MessageKind.STATEMENT and not self.combined:
            # a statement is acknowledged by a template: no model call before it
            count = len(state.told)
            return self._reaction(
                state, f"a statement: {count} fact{'s' if count != 1 else ''} to note", LLMUsage()
            )
        if not self.combined and await asyncio.to_thread(self._facts_answer, state):
            # the answer will be facts of record said back (services/cycle/from_facts.py)
            return self._reaction(state, "a question the facts of record answer", LLMUsage())
        if self.combined:
            out, usage = await ask_structured(
                self.llm,
                first_look.FirstLookOutput,
                first_look.build(state.prompt_text),
                first_look.PROMPT,
                timeout_s=self.timeout_s,
                max_tokens=self.max_tokens and self.max_tokens + PLAN_TOKENS,
            )
            state.first_look = out.plan()
            text = out.reaction[: first_look.REACTION_CHARS]
        else:
            text, usage = await ask_text(
                self.llm,
                prompt.build(state.prompt_text),
                prompt.PROMPT,
                timeout_s=self.timeout_s,
                max_tokens=self.max_tokens,
            )
        return self._reaction(state, text, usage)

    def _facts_answer(self, state: CycleState) -> bool:
        told = state.understanding
        if self.facts is None or told is None or told.kind is not MessageKind.QUESTION or not state.user_id:
            return False
        question = " ".join(told.texts(Act.QUESTION))
        earlier = asks_history(question)
        known = self.facts.facts_of_record(state.user_id, current_only=not earlier, limit=FACTS_READ)
        return may_answer(question, [f for f in known if (f.valid_until is not None) == earlier])

    @staticmethod
    def _reaction(state: CycleState, text: str, usage: LLMUsage) -> StepOutcome:
        reaction = " ".join(text.split())[:MAX_REACTION_CHARS]
        state.instinct = reaction
        node = InstinctiveResponse(
            id=cycle_node_id(state.correlation_id, Step.INSTINCT),
            content=reaction,
            user_id=state.user_id,
            session_id=state.session_id,
            correlation_id=state.correlation_id,
        )
        return StepOutcome(
            output=InstinctOutput(reaction=reaction, node_id=node.id), nodes=[node], usage=usage
        )
