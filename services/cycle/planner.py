"""Planner: a search plan from the impulse (LLM, structured), with a deterministic fallback."""

from __future__ import annotations

import logging

from langchain_core.language_models import BaseChatModel

from services.common.limits import MAX_CONCEPT_CHARS, MAX_PLAN_CONCEPTS
from services.common.llm_calls import ask_structured
from services.common.plan_fallback import candidate_concepts, detect_window, fallback_plan, time_window
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.prompts import planner as prompt
from thea.errors import MalformedOutput
from thea.models import EdgeType, LLMUsage, SearchPlan, Step, cycle_node_id
from thea.models.step_outputs import MessagePart, PlanOutput
from thea.words import terms

log = logging.getLogger(__name__)


def _relation(value: str | None) -> str | None:
    if not value:
        return None
    try:
        edge = EdgeType.parse(value.strip().replace(" ", "_"))
    except Exception:
        return None
    return edge.value if edge.is_concept_relation else None


def grounded(concept: str, text: str) -> bool:
    """Every word of the concept (3+ letters) occurs in the text, ignoring case."""
    words = [w for w in terms(concept) if len(w) >= 3]
    lowered = text.lower()
    return bool(words) and all(w in lowered for w in words)


class PlannerService(CognitiveService):
    step = Step.PLAN
    name = "planner"

    def __init__(
        self,
        llm: BaseChatModel,
        timeout_s: float,
        *,
        use_model: bool = True,
    ) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        #: False: the deterministic plan (first_look="rules"): no model call before recall
        self.use_model = use_model

    async def handle(self, state: CycleState) -> StepOutcome:
        told = self._kind(state)
        outcome = await self._plan(state)
        if isinstance(outcome.output, PlanOutput):
            set_by_told = {name: getattr(told, name) for name in told.model_fields_set}
            outcome.output = outcome.output.model_copy(update=set_by_told)
        return outcome

    @staticmethod
    def _kind(state: CycleState) -> PlanOutput:
        """The message's kind and its parts (for the trace)."""
        out = PlanOutput()
        if state.understanding is not None:
            out.act = state.understanding.kind.value
            out.parts = [MessagePart(text=p.text, act=p.act.value) for p in state.understanding.parts]
        return out

    async def _plan(self, state: CycleState) -> StepOutcome:
        text = state.impulse.content
        if isinstance(state.first_look, prompt.PlanOutput):  # the instinct's call planned too
            return self._from_model(state, state.first_look, LLMUsage(), source="instinct call")
        if not self.use_model:
            plan = fallback_plan(
                text, user_id=state.user_id, session_id=state.session_id, correlation_id=state.correlation_id
            )
            state.plan = plan
            return StepOutcome(output=self._summary(plan, "rules"), nodes=[plan])
        try:
            out, usage = await ask_structured(
                self.llm,
                prompt.PlanOutput,
                prompt.build(state.prompt_text),
                prompt.PROMPT,
                timeout_s=self.timeout_s,
            )
        except MalformedOutput as exc:
            log.warning("planner output unusable (%s); using the deterministic plan", exc)
            plan = fallback_plan(
                text, user_id=state.user_id, session_id=state.session_id, correlation_id=state.correlation_id
            )
            state.plan = plan
            return StepOutcome(output=self._summary(plan), nodes=[plan], degraded=str(exc))
        return self._from_model(state, out, usage, source="model")

    def _from_model(
        self, state: CycleState, out: prompt.PlanOutput, usage: LLMUsage, *, source: str
    ) -> StepOutcome:
        text = state.impulse.content
        ids = {
            "user_id": state.user_id,
            "session_id": state.session_id,
            "correlation_id": state.correlation_id,
        }
        # Small models invent time windows and topics: a window needs a time phrase in the
        # text, and a concept must be made of words the user actually wrote.
        said = detect_window(text)
        window = out.time_window if said != "none" and out.time_window != "none" else said
        span = time_window(window)
        relation = _relation(out.triple_relation)
        # a pattern's known ends must be the user's words (the prompt's example leaked otherwise)
        ends = [e for e in (out.triple_subject, out.triple_object) if e]
        said_ends = bool(ends) and all(grounded(e, text) for e in ends)
        same = out.triple_subject and out.triple_object and grounded(out.triple_subject, out.triple_object)
        triple = (
            [out.triple_subject, relation, out.triple_object] if relation and said_ends and not same else None
        )
        queries = [q.strip() for q in out.queries if q.strip()][:3]
        concepts = [
            c.strip() for c in out.concepts if 0 < len(c.strip()) <= MAX_CONCEPT_CHARS and grounded(c, text)
        ][:5]
        plan = SearchPlan(
            id=cycle_node_id(state.correlation_id, Step.PLAN),
            content=f"plan ({window})",
            queries=[text.strip()[:500], *queries],  # the literal text always searches too
            concepts=list(dict.fromkeys([*concepts, *candidate_concepts(text, limit=4)]))[:MAX_PLAN_CONCEPTS],
            time_from=span.start,
            time_to=span.end,
            triple_pattern=triple,
            **ids,
        )
        state.plan = plan
        return StepOutcome(output=self._summary(plan, source), nodes=[plan], usage=usage)

    @staticmethod
    def _summary(plan: SearchPlan, source: str | None = None) -> PlanOutput:
        summary = PlanOutput(
            node_id=plan.id,
            queries=plan.queries,
            concepts=plan.concepts,
            time_from=plan.time_from,
            time_to=plan.time_to,
            triple_pattern=plan.triple_pattern,
        )
        if source is not None:
            summary.source = source
        return summary
