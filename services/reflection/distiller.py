"""Distillation: evicted conversation turns become DialogueTurn memories.

Each evicted question/answer pair becomes one DialogueTurn whose content is a
short summary (LLM, or the verbatim exchange trimmed if the model fails), linked
with SUMMARIZES to the archived impulse and response and embedded for recall.
Ids derive from the impulse id, so running the job twice changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from services.common.exchange import Exchange
from services.common.llm_calls import ask_text
from services.prompts import distill as prompt
from thea.errors import LLMError
from thea.memory.ports import AsyncRecorder
from thea.models import DialogueTurn, Edge, EdgeType, stable_id

log = logging.getLogger(__name__)

_FALLBACK_CHARS = 600


def fallback_summary(ex: Exchange) -> str:
    text = f"User said: {ex.question.strip()} | thea answered: {ex.answer.strip()}"
    return text if len(text) <= _FALLBACK_CHARS else text[: _FALLBACK_CHARS - 1] + "…"


class Distiller:
    def __init__(self, memory: AsyncRecorder, llm: BaseChatModel | None, timeout_s: float = 60.0) -> None:
        self.memory = memory
        self.llm = llm
        self.timeout_s = timeout_s

    async def distill(
        self, exchanges: Sequence[Exchange], user_id: str, session_id: str
    ) -> list[DialogueTurn]:
        turns: list[DialogueTurn] = []
        edges: list[Edge] = []
        for ex in exchanges:
            summary = await self._summarise(ex)
            turn = DialogueTurn(
                id=stable_id("distill", ex.impulse_id),
                content=summary,
                speaker="conversation",
                event_time=ex.at or None,
                source_ids=[i for i in (ex.impulse_id, ex.response_id) if i],
                user_id=user_id,
                session_id=session_id,
                correlation_id=ex.impulse_id,
            )
            turns.append(turn)
            edges += [Edge(src=turn.id, dst=src, type=EdgeType.SUMMARIZES) for src in turn.source_ids]
        if turns:
            await self.memory.arecord(turns, edges)
            log.info("distilled %d exchanges for user=%s session=%s", len(turns), user_id, session_id)
        return turns

    async def _summarise(self, ex: Exchange) -> str:
        if self.llm is None:
            return fallback_summary(ex)
        try:
            text, _ = await ask_text(
                self.llm, prompt.build(ex.question, ex.answer), prompt.PROMPT, timeout_s=self.timeout_s
            )
        except LLMError as exc:
            log.warning("distill summary failed for impulse %s: %s; keeping the exchange", ex.impulse_id, exc)
            return fallback_summary(ex)
        text = " ".join(text.split())
        return text if len(text) >= 10 else fallback_summary(ex)
