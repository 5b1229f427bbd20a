"""The caller's conversations (sessions), for a chat front-end's history: the list, latest
first, and one conversation's messages with thea's answers."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request

from services.knowledge.erasing import forget_conversation
from services.views.sessions import list_sessions, session_view
from thea.api import paths
from thea.api.models import ChatSessionList, ChatSessionView, ErasureResult, ErrorBody
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of

router = APIRouter(tags=["cycle"])

SessionId = Annotated[
    str,
    Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$", description="the conversation's id"),
]


@router.get(
    paths.SESSIONS,
    response_model=ChatSessionList,
    summary="The caller's conversations, the latest first",
    description="Each conversation (the `session_id` of its chat lines) with its first message "
    "as a title, when it began and last spoke, and how many messages it holds.",
)
async def sessions(
    request: Request,
    limit: int = Query(50, ge=1, le=500, description="at most this many conversations"),
    caller: Caller = Depends(caller_of),
) -> ChatSessionList:
    traces = context_of(request).rt.memory.traces
    return await asyncio.to_thread(list_sessions, traces, caller.user_id, limit)


@router.get(
    paths.SESSION,
    response_model=ChatSessionView,
    summary="One conversation's messages and answers, oldest first",
    description="The last `limit` messages of the conversation, each with thea's answer (`!` "
    "commands are not kept). An unknown session, or another user's, is empty.",
)
async def session(
    request: Request,
    session_id: SessionId,
    limit: int = Query(200, ge=1, le=1000, description="at most this many messages (the latest)"),
    caller: Caller = Depends(caller_of),
) -> ChatSessionView:
    traces = context_of(request).rt.memory.traces
    return await asyncio.to_thread(session_view, traces, caller.user_id, session_id, limit)


@router.delete(
    paths.SESSION,
    response_model=ErasureResult,
    summary="Forget a whole conversation, for good",
    description="Its messages, thea's answers and their traces, the facts told in it (and their "
    "words wherever else they were used), the insights drawn from it and its short-term context "
    "are erased; the engines rewrite their files before the call returns. An unknown session, or "
    "another user's, is 404.",
    responses={404: {"model": ErrorBody, "description": "no such conversation of the caller's"}},
)
async def forget_session(
    request: Request, session_id: SessionId, caller: Caller = Depends(caller_of)
) -> ErasureResult:
    rt = context_of(request).rt
    return await asyncio.to_thread(
        forget_conversation, rt.memory, session_id, caller.user_id, rt.orchestrator.context, rt.jobs
    )
