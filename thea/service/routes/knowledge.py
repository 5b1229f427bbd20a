"""What thea knows, per user: traces, insights, the graph, facts, forgetting, feedback, reflection,
and the export of completed cycles."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import asdict

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from services.common.ownership import own_node
from services.knowledge.erasing import forget_user
from services.knowledge.feedback import apply_feedback
from services.knowledge.forgetting import forget
from services.views.export import count_impulses, iter_export
from services.views.insights import insight_detail, list_insights
from services.views.trace import latest_impulse_id, load_own_trace, trace_json
from thea.api import paths
from thea.api.models import (
    ErasureResult,
    FactRequest,
    FactResult,
    FeedbackRequest,
    FeedbackResult,
    ForgetRequest,
    ForgetResult,
    GraphView,
    Ident,
    InsightDetailView,
    InsightList,
    InsightState,
    InsightSummary,
    ReflectionResult,
    ReflectRequest,
    TraceView,
)
from thea.errors import InputError, NotFoundError
from thea.llm.scheduler import foreground
from thea.memory.universal import unknown_id
from thea.models import FinalResponse
from thea.runtime.app import ReflectionQueued
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of
from thea.service.errors import Forbidden
from thea.service.idempotency import request_id
from thea.service.routes.cycle import new_session_id
from thea.service.serialize import graph_json, insight_detail_json, insight_json

router = APIRouter(tags=["knowledge"])


@router.get(paths.TRACE, response_model=TraceView, summary="One cycle's Tasks and Reports")
async def trace(
    impulse: str,
    request: Request,
    session_id: Ident | None = Query(None, description="with 'last': that conversation's last cycle"),
    prompts: bool = Query(False, description="include the exact messages of the prompt the model got"),
    caller: Caller = Depends(caller_of),
) -> TraceView:
    ctx = context_of(request)
    memory = ctx.rt.memory

    def load() -> TraceView:
        key = impulse
        if impulse == "last":
            last = ctx.sessions.get(caller.user_id, session_id).last_ids(memory)[0] if session_id else None
            key = last or latest_impulse_id(memory, caller.user_id) or ""
            if not key:
                raise NotFoundError("nothing to trace yet: say something first")
        loaded = load_own_trace(memory, key, caller.user_id)
        return TraceView.model_validate(trace_json(loaded, prompts=prompts))

    return await asyncio.to_thread(load)


@router.get(paths.INSIGHTS, response_model=InsightList, summary="The caller's insights, strongest first")
async def insights(
    request: Request,
    state: InsightState = Query("active"),
    concept: str | None = Query(None, max_length=200),
    min_strength: float = Query(0.0, ge=0, allow_inf_nan=False),
    limit: int = Query(100, ge=1, le=1000),
    caller: Caller = Depends(caller_of),
) -> InsightList:
    memory = context_of(request).rt.memory
    rows = await asyncio.to_thread(
        list_insights,
        memory,
        state=state,
        concept=concept or None,
        min_strength=min_strength,
        user_id=caller.user_id,
        limit=limit,
    )
    return InsightList(insights=[InsightSummary(**insight_json(r.insight, r.concepts)) for r in rows])


@router.get(paths.INSIGHT, response_model=InsightDetailView, summary="One insight with lineage")
async def insight(
    insight_id: str, request: Request, caller: Caller = Depends(caller_of)
) -> InsightDetailView:
    memory = context_of(request).rt.memory

    def load() -> InsightDetailView:
        node = own_node(memory, insight_id, caller.user_id, what="insight")
        detail = insight_detail(memory, node.id)
        related = memory.get(detail.merged_from + detail.merged_into)
        return InsightDetailView.model_validate(insight_detail_json(detail, related))

    return await asyncio.to_thread(load)


@router.get(paths.GRAPH, response_model=GraphView, summary="A node's or concept's neighbourhood")
async def graph(
    request: Request,
    node: str | None = Query(None, max_length=128),
    concept: str | None = Query(None, max_length=200),
    depth: int = Query(2, ge=1, le=3),
    caller: Caller = Depends(caller_of),
) -> GraphView:
    memory = context_of(request).rt.memory

    def load() -> GraphView:
        if concept:
            found = memory.find_concepts([concept], caller.user_id)
            if not found:
                raise NotFoundError(f"no concept named {concept!r}")
            start = next(iter(found.values())).id
        elif node:
            start = own_node(memory, node, caller.user_id).id
        else:  # the page opens on the user's own graph, around what they told last
            recent = memory.facts.facts_of_record(caller.user_id, current_only=True, limit=1)
            latest = recent[0].id if recent else latest_impulse_id(memory, caller.user_id)
            if not latest:  # nothing told yet: an empty graph, not an error
                return GraphView(start="", nodes=[], edges=[])
            start = latest
        # the walk itself stays inside this user's nodes; the filter is a second guard
        sub = memory.neighbourhood(start, depth=depth, limit=150, user_id=caller.user_id)
        sub.nodes = [n for n in sub.nodes if n.user_id == caller.user_id]
        if start not in {n.id for n in sub.nodes}:
            raise NotFoundError(f"no concept named {concept!r}") if concept else unknown_id(node or "")
        return GraphView.model_validate(graph_json(sub, start))

    return await asyncio.to_thread(load)


@router.post(paths.FACTS, response_model=FactResult, summary="Remember a claim (confidence estimated)")
async def add_fact(body: FactRequest, request: Request, caller: Caller = Depends(caller_of)) -> FactResult:
    ctx = context_of(request)
    runtime = ctx.rt
    text = body.text.strip()
    if not text:
        raise InputError("the fact is empty")
    chat = ctx.sessions.get(caller.user_id, body.session_id or new_session_id())
    last_impulse, _ = await chat.alast_ids(runtime.memory)
    async with foreground(runtime.gate):
        outcome = await runtime.facts.add_fact(
            text,
            caller.user_id,
            chat.session_id,
            source_message_id=last_impulse,
            source_id=request_id(request, caller.user_id, "fact"),
        )
    return FactResult(
        fact_id=outcome.fact.id,
        confidence=outcome.fact.confidence,
        agreed=outcome.agreed,
        contradicted=outcome.contradicted,
        superseded=outcome.superseded,
        summary=outcome.summary(),
    )


@router.delete(
    paths.ME,
    response_model=ErasureResult,
    summary="Delete everything thea has of the caller, for good",
    description="Every memory, fact, insight, concept, vector and log row with content of the "
    "caller is erased and the engines rewrite their files before the call returns; the log keeps "
    "only that deletions happened. The caller's token stays valid (it is configuration).",
)
async def forget_me(request: Request, caller: Caller = Depends(caller_of)) -> ErasureResult:
    rt = context_of(request).rt
    return await asyncio.to_thread(forget_user, rt.memory, caller.user_id, rt.orchestrator.context, rt.jobs)


@router.post(paths.FORGET, response_model=ForgetResult, summary="Archive a memory (kept in history)")
async def forget_memory(
    body: ForgetRequest, request: Request, caller: Caller = Depends(caller_of)
) -> ForgetResult:
    memory = context_of(request).rt.memory
    outcome = await asyncio.to_thread(forget, memory, body.id, caller.user_id)
    return ForgetResult(id=outcome.id, kind=outcome.kind, summary=outcome.summary())


@router.post(paths.FEEDBACK, response_model=FeedbackResult, summary="!good / !bad on an answer")
async def feedback(
    body: FeedbackRequest, request: Request, caller: Caller = Depends(caller_of)
) -> FeedbackResult:
    ctx = context_of(request)
    memory = ctx.rt.memory
    response_id = body.response_id
    if response_id is None and body.session_id:
        _, response_id = await ctx.sessions.get(caller.user_id, body.session_id).alast_ids(memory)
    if not response_id:
        raise NotFoundError("no answer to rate yet: ask something first")

    def apply() -> FeedbackResult:
        node = own_node(memory, response_id, caller.user_id, what="answer")
        if not isinstance(node, FinalResponse):
            raise NotFoundError(f"{node.id[:8]} is a {node.type.value}, not an answer: give an answer's id")
        outcome = apply_feedback(memory, node.id, body.value)
        return FeedbackResult(
            response_id=node.id, feedback=body.value, changed=outcome.changed, summary=outcome.summary()
        )

    return await asyncio.to_thread(apply)


@router.post(
    paths.REFLECT,
    response_model=ReflectionResult,
    summary="Merge the caller's insights about the same concepts",
    responses={202: {"model": ReflectionResult, "description": "queued: no worker finished it in time"}},
)
async def reflect(
    request: Request, body: ReflectRequest | None = None, caller: Caller = Depends(caller_of)
) -> JSONResponse:
    runtime = context_of(request).rt
    wait_s = body.wait_s if body and body.wait_s is not None else runtime.settings.queue.reflect_wait_s
    done = await runtime.reflect(caller.user_id, wait_s=wait_s)
    if isinstance(done, ReflectionQueued):
        result = ReflectionResult(
            status="queued", job_id=done.job_id, user_id=caller.user_id, summary=done.message(wait_s)
        )
        return JSONResponse(result.model_dump(mode="json"), status_code=202)
    result = ReflectionResult(status="done", summary=done.summary(), **asdict(done))
    return JSONResponse(result.model_dump(mode="json"))


@router.get(
    paths.EXPORT,
    summary="Completed cycles as JSON lines (the golden dataset, docs/export.md)",
    response_class=StreamingResponse,
)
async def export(
    request: Request,
    since_ms: int = Query(0, ge=0),
    all_users: bool = Query(False, description="every user's cycles (local callers only)"),
    caller: Caller = Depends(caller_of),
) -> StreamingResponse:
    if all_users and not caller.local:
        raise Forbidden("exporting every user's cycles is for the local user of the service")
    memory = context_of(request).rt.memory
    total = await asyncio.to_thread(count_impulses, memory)

    def lines() -> Iterator[str]:
        user = None if all_users else caller.user_id
        for record in iter_export(memory, since_ms=since_ms, user_id=user):
            yield record.model_dump_json() + "\n"

    response = StreamingResponse(lines(), media_type="application/x-ndjson")
    response.headers["X-Thea-Total-Hint"] = str(total)
    return response
