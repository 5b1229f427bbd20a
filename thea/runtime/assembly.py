"""Wire the cognitive services together from already-built parts."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from services.common.limits import PROMPT_SHARE
from services.cycle.budget import recall_budget
from services.cycle.context import ConversationCache
from services.cycle.context_local import ContextCache
from services.cycle.instinct import InstinctService
from services.cycle.orchestrator import CycleLimits, CycleParts, CycleSteps, JobSink, Orchestrator
from services.cycle.planner import PlannerService
from services.cycle.recall_step import RecallStep
from services.cycle.synthesis import SynthesisService
from services.knowledge.claims.keeper import ClaimKeeper, ClaimReader
from services.knowledge.claims.revision import ClaimReviser
from services.knowledge.claims.statements import StatementReader
from services.knowledge.facts import FactKeeper
from services.recall.cascade import RecallService
from services.recall.rerank import CrossEncoderReranker, HttpReranker, Reranker
from services.reflection.crystallizer import Crystallizer
from services.reflection.distiller import Distiller
from services.reflection.merge import LockFactory, Reflector
from services.reflection.revision import FactRevision
from services.reflection.verification import verification_enabled
from thea.config import Settings
from thea.errors import ConfigError
from thea.llm.scheduler import ForegroundGate
from thea.memory.universal import UniversalMemory


def prompt_tokens(settings: Settings) -> int:
    """How many tokens of a user's message one prompt may carry (a share of the context window)."""
    return int(settings.llm.context_window * PROMPT_SHARE)


def build_orchestrator(
    settings: Settings,
    memory: UniversalMemory,
    llm: BaseChatModel,
    *,
    jobs: JobSink | None = None,
    context: ConversationCache | None = None,
    gate: ForegroundGate | None = None,
    picker: BaseChatModel | None = None,
) -> Orchestrator:
    """``picker``: the model that picks which claims answer a question (None: ``llm``)."""
    timeout = settings.llm.timeout_s
    window = settings.llm.context_window
    budget = recall_budget(window, settings.context.recall_share, settings.context.recall_cap_tokens)
    cycle = settings.cycle
    # the steps before the answer get a shorter timeout than synthesis (a busy machine costs the
    # instinct or the model's plan, not the answer); the services' own model timeout fires first
    first_look_s = min(cycle.step_timeout_s, timeout)
    steps = CycleSteps(
        instinct=InstinctService(
            llm,
            first_look_s,
            max_tokens=cycle.instinct_tokens,
            combined=cycle.first_look == "combined",
        ),
        planner=PlannerService(llm, first_look_s, use_model=cycle.first_look == "separate"),
        recall=RecallStep(build_recall(settings, memory)),
        synthesis=SynthesisService(
            llm,
            timeout,
            budget,
            settings.llm.max_output_tokens,
            embedder=memory.recall_port,
            relevance_floor=settings.tuning.relevance_floor,
            facts=memory.facts,
            picker=picker if settings.knowledge.pick_with == "claims" else None,
        ),
    )
    parts = CycleParts(
        memory=memory,
        steps=steps,
        context=context or ContextCache(window, settings.context.fifo_share),
        jobs=jobs,
        gate=gate,
    )
    limits = CycleLimits(
        step_timeout_s=timeout + 5,
        first_look_timeout_s=first_look_s + 5,
        max_chars=settings.max_impulse_chars,
        prompt_tokens=prompt_tokens(settings),
        slots=settings.cycle.slots,
        max_waiting_per_user=settings.cycle.max_waiting_per_user,
    )
    return Orchestrator(parts, limits)


def build_reranker(settings: Settings) -> Reranker | None:
    """The configured reranker, or None (the default: fusion alone)."""
    cfg = settings.recall
    if cfg.reranker == "cross-encoder":
        return CrossEncoderReranker(cfg.rerank_model)
    if cfg.reranker == "http":
        if not cfg.rerank_url:
            raise ConfigError("recall.reranker=http needs recall.rerank_url (THEA_RECALL__RERANK_URL)")
        key = cfg.rerank_api_key.get_secret_value() if cfg.rerank_api_key else None
        return HttpReranker(cfg.rerank_url, cfg.rerank_model, api_key=key, timeout_s=settings.llm.timeout_s)
    return None


def build_recall(settings: Settings, memory: UniversalMemory) -> RecallService:
    return RecallService(memory, settings.tuning.effective_recall(), build_reranker(settings))


def build_distiller(settings: Settings, memory: UniversalMemory, llm: BaseChatModel | None) -> Distiller:
    return Distiller(memory, llm, timeout_s=settings.llm.timeout_s)


def build_crystallizer(settings: Settings, memory: UniversalMemory, llm: BaseChatModel) -> Crystallizer:
    verify = verification_enabled(settings.knowledge.verify_with_llm, settings.llm.provider)
    return Crystallizer(
        memory,
        llm,
        timeout_s=settings.llm.timeout_s,
        prompt_tokens=prompt_tokens(settings),
        verify=verify,
        grounding=settings.tuning.grounding,
    )


def build_reflector(
    settings: Settings, memory: UniversalMemory, llm: BaseChatModel | None, lock: LockFactory | None = None
) -> Reflector:
    return Reflector(
        memory, llm, lock=lock, timeout_s=settings.llm.timeout_s, grounding=settings.tuning.grounding
    )


def build_claim_keeper(settings: Settings, memory: UniversalMemory, llm: BaseChatModel) -> ClaimKeeper:
    """Reads statements into claims and keeps them (services/knowledge/claims)."""
    # background work: never less than an answer may take (a remote model's own, longer limit)
    timeout = max(settings.knowledge.read_timeout_s, settings.llm.timeout_s)
    reader = ClaimReader(llm, timeout_s=timeout)
    return ClaimKeeper(
        memory,
        reader,
        embedder=memory.recall_port,
        judge_llm=llm,
        timeout_s=timeout,
        reviser=ClaimReviser(llm, timeout_s=timeout),
    )


def build_statement_reader(
    settings: Settings, memory: UniversalMemory, llm: BaseChatModel
) -> StatementReader | None:
    """The claims job's reader (None when ``knowledge.read_claims`` is off)."""
    if not settings.knowledge.read_claims:
        return None
    return StatementReader(memory, build_claim_keeper(settings, memory, llm))


def build_fact_keeper(
    settings: Settings,
    memory: UniversalMemory,
    llm: BaseChatModel | None,
    claims_llm: BaseChatModel | None = None,
) -> FactKeeper:
    """``!fact`` and ``POST /facts``: the user waits, so the claims are read in the foreground."""
    reader = claims_llm or llm
    keeper = build_claim_keeper(settings, memory, reader) if reader is not None else None
    return FactKeeper(
        memory,
        llm,
        FactRevision(memory, grounding=settings.tuning.grounding),
        timeout_s=settings.llm.timeout_s,
        prompt_tokens=prompt_tokens(settings),
        claims=keeper,
    )
