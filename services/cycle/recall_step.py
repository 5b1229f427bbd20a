"""The recall step of the cycle: plan -> RecallQuery -> the cascade (no LLM)."""

from __future__ import annotations

from typing import Protocol

from services.common.limits import TRACE_TEXT_CHARS
from services.common.plan_fallback import fallback_plan
from services.common.tokens import clip_text
from services.common.understanding import asks_conversation, asks_history
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.recall.types import ALL_STAGES, RecallQuery, RecallResult, Stage
from thea.models import Step
from thea.models.step_outputs import RecalledHit, RecallOutput


class Recaller(Protocol):
    async def recall(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult: ...


class RecallStep(CognitiveService):
    step = Step.RECALL
    name = "recall"

    def __init__(self, recaller: Recaller, limit: int = 8) -> None:
        self.recaller = recaller
        self.limit = limit

    async def handle(self, state: CycleState) -> StepOutcome:
        if state.document is not None:  # a paste is acknowledged, not answered from memory
            return StepOutcome(
                output=RecallOutput(hits=[], skipped="a pasted document is stored, not answered")
            )
        plan = state.plan or fallback_plan(state.impulse.content)
        pattern = plan.triple_pattern
        triple = (pattern[0], pattern[1], pattern[2]) if pattern and len(pattern) == 3 else None
        query = RecallQuery(
            texts=plan.queries or [state.impulse.content],
            concepts=plan.concepts,
            user_id=state.user_id,
            time_from=plan.time_from,
            time_to=plan.time_to,
            triple_pattern=triple,
            limit=self.limit,
            exclude_ids=[state.impulse.id],
            history=asks_history(state.impulse.content),
            conversation=asks_conversation(state.impulse.content),
        )
        result = await self.recaller.recall(query)
        state.recall = result
        output = RecallOutput(
            hits=[
                RecalledHit(
                    id=h.id,
                    type=h.type,
                    score=round(h.score, 4),
                    stages=h.stages,
                    stage_scores=h.stage_scores,
                    text=clip_text(h.text, TRACE_TEXT_CHARS),
                )
                for h in result.hits
            ],
            stage_counts=result.stage_counts,
            elapsed_ms=round(result.elapsed_ms, 2),
        )
        degraded = None
        if result.failed_stages:
            output.failed_stages = result.failed_stages
            degraded = f"recalled without {', '.join(result.failed_stages)} (backend unavailable)"
        return StepOutcome(output=output, degraded=degraded)
