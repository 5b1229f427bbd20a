"""Synthesis: the final answer, grounded in recalled memories packed into a token budget."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from services.common.base import CognitiveService, CycleState, StepOutcome
from services.common.dates import resolve_relative, when_text
from services.common.llm_calls import ask_text
from services.common.text import TextEmbedder
from services.cycle.budget import pack
from services.cycle.documents import acknowledgement as paste_acknowledgement
from services.cycle.hygiene import is_looping, tidy
from services.cycle.not_told import unknown_to_me
from services.cycle.statements import acknowledge, is_statement
from services.prompts import BaseMessage, PromptSpec, ReferenceItem
from services.prompts import synthesis as prompt
from services.recall.types import RecallHit, RecallResult
from thea.models import Edge, EdgeType, FinalResponse, LLMUsage
from thea.tuning import RELATIVE_FLOOR


def reference_item(source_id: str, kind: str, text: str, when_ms: int) -> ReferenceItem:
    """One memory as the answering model sees it: dated when it happened ("on Monday 8 May
    2023"), its relative dates spelled out ("yesterday (7 May 2023)")."""
    if not when_ms:
        return ReferenceItem(source_id=source_id, kind=kind, text=text)
    return ReferenceItem(
        source_id=source_id,
        kind=kind,
        text=resolve_relative(text, when_ms),
        when=f"on {when_text(when_ms)}",
    )


def references_for(
    hits: list[RecallHit], budget_tokens: int, floor_share: float = RELATIVE_FLOOR
) -> list[ReferenceItem]:
    """Whole memories, most relevant first, as many as fit the budget; weak ones left out."""
    if hits:
        floor = max(h.score for h in hits) * floor_share
        hits = [h for h in hits if h.score >= floor]
    items = [reference_item(h.id, h.type, h.text, h.event_time or h.created_at) for h in hits]
    return pack(items, [i.text for i in items], budget_tokens)


def prompt_record(spec: PromptSpec, messages: Sequence[BaseMessage]) -> dict[str, object]:
    """The prompt as the model got it, for the trace: its id, version and every message."""
    return {
        "id": spec.name,
        "version": spec.version,
        "messages": [{"role": m.type, "content": str(m.content)} for m in messages],
    }


async def _send(state: CycleState, text: str) -> None:
    """Stream text the model did not write (an acknowledgement, a note) to the user."""
    if state.on_token is not None:
        maybe = state.on_token(text)
        if maybe is not None:
            await maybe


class SynthesisService(CognitiveService):
    step = "synthesis"
    name = "synthesis"

    def __init__(
        self,
        llm: BaseChatModel,
        timeout_s: float,
        budget_tokens: int,
        max_tokens: int | None = None,
        embedder: TextEmbedder | None = None,
        relevance_floor: float = RELATIVE_FLOOR,
    ) -> None:
        self.llm = llm
        #: share of the best memory's score a memory needs to enter the prompt (tuning.relevance_floor)
        self.relevance_floor = relevance_floor
        #: compares a question's words with recalled words by meaning (services/cycle/not_told.py)
        self.embedder = embedder
        self.timeout_s = timeout_s
        self.budget_tokens = budget_tokens
        #: the model's output allowance: an answer that used all of it was cut
        self.max_tokens = max_tokens

    async def handle(self, state: CycleState) -> StepOutcome:
        if state.document is not None:
            # a paste: say what was stored, never echo it
            return await self._fixed(state, paste_acknowledgement(state.document), "document stored")
        if is_statement(state.impulse.content):
            # the user told something: restate it, never let the model embellish it
            return await self._acknowledge(state)
        recall = state.recall if isinstance(state.recall, RecallResult) else RecallResult()
        unknown = await asyncio.to_thread(unknown_to_me, state.prompt_text, recall.hits, self.embedder)
        if unknown is not None:
            # a question about the user that nothing remembered bears on: no guess from the model
            return await self._fixed(state, unknown, "not told")
        refs = references_for(recall.hits, self.budget_tokens, self.relevance_floor)
        messages = prompt.build(state.prompt_text, refs, state.history, state.instinct)
        answer, usage = await ask_text(
            self.llm,
            messages,
            prompt.PROMPT,
            timeout_s=self.timeout_s,
            on_token=state.on_token,
            stop_when=is_looping,  # a looping answer is stopped as soon as the loop shows
        )
        answer, note = tidy(answer.strip(), usage.tokens_out, self.max_tokens)
        if note:
            await _send(state, note)
        answer = answer or "I have no answer to that yet."
        outcome = self._outcome(state, answer, refs, usage)
        outcome.output["prompt"] = prompt_record(prompt.PROMPT, messages)
        if note:
            outcome.output["cut"] = note.strip(" …()")
        return outcome

    async def _acknowledge(self, state: CycleState) -> StepOutcome:
        return await self._fixed(state, acknowledge(state.impulse.content), "acknowledgement")

    async def _fixed(self, state: CycleState, answer: str, mode: str) -> StepOutcome:
        """An answer no model wrote, streamed to the user and recorded with its mode."""
        await _send(state, answer)
        outcome = self._outcome(state, answer, [], LLMUsage())
        outcome.output["mode"] = mode
        return outcome

    @staticmethod
    def _outcome(state: CycleState, answer: str, refs: list[ReferenceItem], usage: LLMUsage) -> StepOutcome:
        state.answer = answer
        response = FinalResponse(
            content=answer,
            recalled_ids=[r.source_id for r in refs],
            user_id=state.user_id,
            session_id=state.session_id,
            correlation_id=state.correlation_id,
        )
        edges = [Edge(src=response.id, dst=state.impulse.id, type=EdgeType.IS_RESPONSE_TO)]
        edges += [Edge(src=response.id, dst=r.source_id, type=EdgeType.RECALLED) for r in refs]
        output = {"node_id": response.id, "answer": answer, "references": [r.source_id for r in refs]}
        return StepOutcome(output=output, nodes=[response], edges=edges, usage=usage)
