"""Instinct: a fast first look at the message (bounded, no memory).

By default (``first_look="rules"``) it names what the message is (a statement, a question, a
request for help, small talk) without the model. With ``first_look="combined"`` one structured
call yields a one-sentence reaction and the search plan (kept on the cycle state for the plan
step, which then needs no call of its own).
"""

from __future__ import annotations

import logging

from langchain_core.language_models import BaseChatModel

from services.common.llm_calls import ask_structured
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.prompts import first_look
from thea.models import InstinctiveResponse, LLMUsage, MessageKind, Step, cycle_node_id
from thea.models.step_outputs import InstinctOutput

log = logging.getLogger(__name__)

#: longest reaction kept (one sentence)
MAX_REACTION_CHARS = 400
#: tokens the plan's fields may take after the reaction in a combined call
PLAN_TOKENS = 96


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
    ) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.combined = combined

    async def handle(self, state: CycleState) -> StepOutcome:
        if not self.combined:
            # the deterministic first look (first_look="rules"): what the message is, no model call;
            # a reaction of the model's was never shown to the answer (small models copy a guess)
            return self._reaction(state, _first_look(state), LLMUsage())
        out, usage = await ask_structured(
            self.llm,
            first_look.FirstLookOutput,
            first_look.build(state.prompt_text),
            first_look.PROMPT,
            timeout_s=self.timeout_s,
            max_tokens=self.max_tokens and self.max_tokens + PLAN_TOKENS,
        )
        state.first_look = out.plan()
        return self._reaction(state, out.reaction[: first_look.REACTION_CHARS], usage)

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


_LOOKS = {
    MessageKind.STATEMENT: "a statement: its claims will be read in the slow loop",
    MessageKind.QUESTION: "a question",
    MessageKind.REQUEST: "a request for help",
    MessageKind.SMALL_TALK: "small talk",
    MessageKind.MIX: "statements with a question or request",
}


def _first_look(state: CycleState) -> str:
    """What the message is, in a few words (the trace's instinct)."""
    told = state.understanding
    if told is None:
        return "a pasted document" if state.document is not None else "a message"
    return _LOOKS[told.kind]
