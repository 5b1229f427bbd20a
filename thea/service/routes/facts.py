"""What thea knows about the caller, and their hand on it: the facts of record grouped by subject
with a short summary, one fact with its source and history, and per fact correct, outdate
(``PATCH``) and forget (``DELETE``). Adding a fact is ``POST /facts`` (routes/knowledge.py)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request

from services.knowledge import erasing, memory_edits
from services.views.memories import fact_detail, what_thea_knows
from thea.api import paths
from thea.api.models import (
    CorrectFactRequest,
    ErasureResult,
    ErrorBody,
    FactEditRequest,
    FactEditResult,
    FactOfRecordView,
    FactsOfRecordView,
)
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of

router = APIRouter(tags=["facts"])

FactId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9_.:@-]+$",
        description="the fact's id or a unique prefix of it",
    ),
]
#: an unknown id, and another user's, get the same answer
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "no such fact of the caller's"}
}


@router.get(
    paths.FACTS,
    response_model=FactsOfRecordView,
    summary="What thea knows about the caller: current facts by subject, with a summary",
    description="The caller's current facts of record, the user's own first, then each person, pet, "
    "place or thing by name; each with since when it holds and the message it came from. "
    "`summary` is made from current facts only. With `include_history` each fact lists the "
    "earlier values it replaced.",
)
async def list_facts(
    request: Request,
    include_history: bool = Query(True, description="each fact's earlier values"),
    caller: Caller = Depends(caller_of),
) -> FactsOfRecordView:
    memory = context_of(request).rt.memory
    return await asyncio.to_thread(what_thea_knows, memory, caller.user_id, include_history=include_history)


@router.delete(
    paths.FACTS,
    response_model=ErasureResult,
    summary="Forget everything about a subject, for good",
    description="Every fact (current or earlier) whose subject, value or words name `about` is "
    "erased as `DELETE /facts/{fact_id}` erases one: graph, vectors, log rows with content, its "
    "words in messages, replies and traces, insights and concepts made from it, the short-term "
    "conversation; `about` itself is erased from the cycles that told or used them. 404 when no "
    "fact is about it.",
    responses={404: {"model": ErrorBody, "description": "no fact of the caller's is about it"}},
)
async def forget_about(
    request: Request,
    about: str = Query(..., min_length=1, max_length=erasing.MAX_ABOUT_CHARS, description="a name or words"),
    caller: Caller = Depends(caller_of),
) -> ErasureResult:
    rt = context_of(request).rt
    return await asyncio.to_thread(
        erasing.forget_about, rt.memory, about, caller.user_id, rt.orchestrator.context, rt.jobs
    )


@router.get(
    paths.FACT,
    response_model=FactOfRecordView,
    summary="One fact with the message it came from and its earlier values",
    responses=NOT_FOUND,
)
async def get_fact(
    fact_id: FactId, request: Request, caller: Caller = Depends(caller_of)
) -> FactOfRecordView:
    memory = context_of(request).rt.memory
    return await asyncio.to_thread(fact_detail, memory, fact_id, caller.user_id)


@router.patch(
    paths.FACT,
    response_model=FactEditResult,
    summary="Correct a fact, or mark it outdated (history kept)",
    description='`{"action": "correct", "text": "I live in York."}`: the correction supersedes the '
    'fact (it stays in history, the correction as its replacement). `{"action": "outdate"}`: the '
    "fact no longer holds, nothing replaces it. Insights resting on the fact are superseded.",
    responses=NOT_FOUND,
)
async def edit_fact(
    fact_id: FactId,
    request: Request,
    body: Annotated[FactEditRequest, Body()],
    caller: Caller = Depends(caller_of),
) -> FactEditResult:
    memory = context_of(request).rt.memory
    if isinstance(body, CorrectFactRequest):
        return await asyncio.to_thread(memory_edits.correct, memory, fact_id, body.text, caller.user_id)
    return await asyncio.to_thread(memory_edits.outdate, memory, fact_id, caller.user_id)


@router.delete(
    paths.FACT,
    response_model=FactEditResult,
    summary="Forget a fact for good: graph, vectors, answers, recall, insights",
    description="The fact is deleted from the graph, the vector store and the temporal log (which "
    "keeps only that a deletion happened); its words are erased from the message that told it, "
    "thea's replies and traces that used it and the short-term conversation; insights and concepts "
    "made from it are deleted; the engines rewrite their files before the call returns.",
    responses=NOT_FOUND,
)
async def forget_fact(
    fact_id: FactId, request: Request, caller: Caller = Depends(caller_of)
) -> FactEditResult:
    rt = context_of(request).rt
    return await asyncio.to_thread(
        memory_edits.forget, rt.memory, fact_id, caller.user_id, rt.orchestrator.context, rt.jobs
    )
