"""Instinct: a fast, brief first reaction (small token budget, no memory)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from services.base import CognitiveService, CycleState, StepOutcome
from services.llm_calls import ask_text
from services.prompts import instinct as prompt
from thea.models import InstinctiveResponse


class InstinctService(CognitiveService):
    step = "instinct"
    name = "instinct"

    def __init__(self, llm: BaseChatModel, timeout_s: float) -> None:
        self.llm = llm
        self.timeout_s = timeout_s

    async def handle(self, state: CycleState) -> StepOutcome:
        text, usage = await ask_text(
            self.llm, prompt.build(state.prompt_text), prompt.PROMPT, timeout_s=self.timeout_s
        )
        reaction = " ".join(text.split())[:400]
        state.instinct = reaction
        node = InstinctiveResponse(
            content=reaction,
            user_id=state.user_id,
            session_id=state.session_id,
            correlation_id=state.correlation_id,
        )
        return StepOutcome(output={"reaction": reaction, "node_id": node.id}, nodes=[node], usage=usage)
