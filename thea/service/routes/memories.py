"""Memory without a cycle, per user: recall (query -> memories with scores and the stages that
found them) and remember (store a message or a fact; a message over ``DOCUMENT_CHARS`` becomes a
document of chunks, as a chat paste does). The MCP tools and the LangChain retriever are built
on these two."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Request

from services.common.impulse_input import unstorable, validate_impulse_text
from services.common.plan_fallback import fallback_plan
from services.cycle.recall_step import Recaller, RecallStep
from services.knowledge.documents import acknowledgement as paste_acknowledgement
from services.knowledge.documents import is_document, make_paste
from services.knowledge.importer import record_with_concepts
from services.recall.types import RecallQuery
from thea.api import paths
from thea.api.models import MemoryHit, RecallRequest, RecallView, Remembered, RememberRequest
from thea.errors import InputError
from thea.llm.scheduler import foreground
from thea.models import DialogueTurn, now_ms
from thea.runtime import Runtime
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of
from thea.service.idempotency import request_id
from thea.service.routes.cycle import new_session_id

router = APIRouter(tags=["memory"])


def recaller_of(runtime: Runtime) -> Recaller:
    """The cycle's own recall cascade (same settings, same reranker)."""
    step = next(s for s in runtime.orchestrator.steps if isinstance(s, RecallStep))
    return step.recaller


@router.post(paths.RECALL, response_model=RecallView, summary="The caller's memories that match a query")
async def recall(body: RecallRequest, request: Request, caller: Caller = Depends(caller_of)) -> RecallView:
    text = body.query.strip()
    if not text:
        raise InputError("the query is empty")
    bad = unstorable(text)
    if bad:
        raise InputError(f"the query contains {bad}")
    runtime = context_of(request).rt
    plan = fallback_plan(text)
    query = RecallQuery(
        texts=plan.queries or [text],
        concepts=plan.concepts,
        user_id=caller.user_id,
        time_from=plan.time_from,
        time_to=plan.time_to,
        limit=body.limit,
    )
    result = await recaller_of(runtime).recall(query)
    hits = [h for h in result.hits if h.id]  # the cascade filters by user; nothing else passes
    return RecallView(
        memories=[
            MemoryHit(
                id=h.id,
                type=h.type,
                text=h.text,
                score=round(h.score, 4),
                stages=h.stages,
                time=h.event_time or h.created_at,
                created_at=h.created_at,
            )
            for h in hits
        ],
        stage_counts=result.stage_counts,
        failed_stages=result.failed_stages,
        elapsed_ms=round(result.elapsed_ms, 2),
    )


@router.post(paths.REMEMBER, response_model=Remembered, summary="Store a message or a fact for the caller")
async def remember(
    body: RememberRequest, request: Request, caller: Caller = Depends(caller_of)
) -> Remembered:
    ctx = context_of(request)
    runtime = ctx.rt
    text = validate_impulse_text(body.text, runtime.settings.max_impulse_chars).strip()
    session_id = body.session_id or new_session_id()
    if body.kind == "fact":
        last_impulse, _ = await ctx.sessions.get(caller.user_id, session_id).alast_ids(runtime.memory)
        async with foreground(runtime.gate):
            outcome = await runtime.facts.add_fact(
                text,
                caller.user_id,
                session_id,
                source_message_id=last_impulse,
                source_id=request_id(request, caller.user_id, "fact"),
            )
        return Remembered(
            id=outcome.fact.id, kind="fact", summary=outcome.summary(), confidence=outcome.fact.confidence
        )
    node = DialogueTurn(
        content=text,
        speaker="user",
        event_time=now_ms(),
        user_id=caller.user_id,
        session_id=f"remember:{session_id}",
    )
    node.id = request_id(request, caller.user_id, "message") or node.id  # a retry writes the same turn
    # a long message is stored as a document (its chunks hold the text), as a chat paste is
    paste = make_paste(node) if is_document(text) else None
    await asyncio.to_thread(record_with_concepts, runtime.memory, [node])
    summary = f"remembered as message {node.id[:8]}"
    if paste is not None:
        await runtime.memory.arecord(paste.nodes, paste.edges)
        summary += f": {paste_acknowledgement(paste.document)}"
    return Remembered(id=node.id, kind="message", summary=summary)
