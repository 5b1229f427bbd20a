"""The cognitive cycle: ask (one impulse), chat (a line: message or ``!`` command), whoami."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from services.cycle.orchestrator import CycleResult
from thea.api import IMPULSE_HEADER, paths
from thea.api.models import (
    AskRequest,
    AskResult,
    ChatRequest,
    CommandResult,
    Ident,
    StepSummary,
    Usage,
    WhoAmI,
)
from thea.errors import TheaError
from thea.runtime.commands import ChatSession, command_name, is_command, run_command
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of
from thea.service.idempotency import request_id
from thea.service.streaming import TokenCallback, stream_events

log = logging.getLogger(__name__)
router = APIRouter(tags=["cycle"])


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


def ask_result(cycle: CycleResult, session_id: str) -> AskResult:
    return AskResult(
        answer=cycle.answer,
        impulse_id=cycle.impulse_id,
        response_id=cycle.response_id,
        session_id=session_id,
        failed_steps=cycle.failed_steps,
        recalled_ids=cycle.recalled_ids,
        usage=Usage(
            llm_calls=cycle.usage.calls, tokens_in=cycle.usage.tokens_in, tokens_out=cycle.usage.tokens_out
        ),
        steps=[
            StepSummary(step=s.step, status=s.status, duration_ms=s.duration_ms, error=s.error)
            for s in cycle.steps
        ],
    )


async def _cycle(request: Request, chat: ChatSession, text: str, on_token: TokenCallback | None) -> AskResult:
    runtime = context_of(request).rt
    cycle = await runtime.orchestrator.handle_impulse(
        text,
        chat.user_id,
        chat.session_id,
        on_token=on_token,
        impulse_id=request_id(request, chat.user_id, "impulse"),  # a retry records the same impulse
    )
    return ask_result(cycle, chat.session_id)


@router.post(
    paths.ASK,
    response_model=AskResult,
    summary="Run one cognitive cycle and answer",
    description="With `stream: true` the answer comes as server-sent events: `token` {text}, then "
    "`done` (an AskResult) or `error` (an ErrorBody). Closing the stream cancels the cycle.",
)
async def ask(body: AskRequest, request: Request, caller: Caller = Depends(caller_of)) -> Response:
    chat = context_of(request).sessions.get(caller.user_id, body.session_id or new_session_id())
    if not body.stream:
        result = await _cycle(request, chat, body.text, None)
        return JSONResponse(result.model_dump(mode="json"), headers={IMPULSE_HEADER: result.impulse_id})

    async def work(on_token: TokenCallback) -> tuple[str, Any]:
        return "done", await _cycle(request, chat, body.text, on_token)

    return stream_events(work)


@router.post(
    paths.CHAT,
    summary="A chat line: a message (streamed answer) or a ! command",
    description="Always server-sent events: `token`, then `done` (AskResult) for a message, or "
    "`command` (CommandResult) for a ! command; `error` (ErrorBody) on failure.",
    response_class=StreamingResponse,
)
async def chat_line(body: ChatRequest, request: Request, caller: Caller = Depends(caller_of)) -> Response:
    ctx = context_of(request)
    chat = ctx.sessions.get(caller.user_id, body.session_id or new_session_id())

    async def work(on_token: TokenCallback) -> tuple[str, Any]:
        if is_command(body.text):
            done = await run_command(ctx.rt, chat, body.text)
            return "command", CommandResult(
                text=done.text,
                command=command_name(body.text),
                data=done.data,
                trace=done.trace_view(),
                quit=done.quit,
            )
        return "done", await _cycle(request, chat, body.text, on_token)

    return stream_events(work)


@router.get(paths.WHOAMI, response_model=WhoAmI, summary="The caller's user (and a session's last impulse)")
async def whoami(
    request: Request,
    session_id: Ident | None = Query(None),
    caller: Caller = Depends(caller_of),
) -> WhoAmI:
    last = None
    if session_id:
        ctx = context_of(request)
        try:  # who the caller is does not depend on the graph answering (maintenance mode, outage)
            last, _ = await ctx.sessions.get(caller.user_id, session_id).alast_ids(ctx.memory)
        except TheaError as exc:
            log.warning("whoami: the session's last message is unknown: %s", exc)
    return WhoAmI(user_id=caller.user_id, session_id=session_id, last_impulse_id=last)
