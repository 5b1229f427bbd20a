"""Bringing conversation history into a user's memory (``thea import``)."""

from __future__ import annotations

import asyncio
import dataclasses

from fastapi import APIRouter, Depends, Request

from services.knowledge.history_formats import parse_history_text
from services.knowledge.importer import import_history
from thea.api.models import ImportRequest, ImportResult
from thea.service.auth import Caller
from thea.service.context import caller_of, context_of

router = APIRouter(tags=["knowledge"])


@router.post(
    "/import",
    response_model=ImportResult,
    summary="Import conversation history (LoCoMo JSON or JSONL) with its dates",
)
async def import_file(
    body: ImportRequest, request: Request, caller: Caller = Depends(caller_of)
) -> ImportResult:
    ctx = context_of(request)
    memory = ctx.rt.memory
    # a message over the turn limit is stored as a document of chunks, as a chat paste is
    document_over = ctx.config.max_impulse_chars
    short_context = ctx.config.tuning.short_reply_context

    def run() -> ImportResult:
        # the whole file is validated before anything is written: a bad file changes nothing
        conversations = parse_history_text(body.text, body.source, body.format)
        result = import_history(
            memory,
            conversations,
            caller.user_id,
            short_context_only=short_context,
            document_over=document_over,
        )
        return ImportResult(user_id=caller.user_id, **dataclasses.asdict(result))

    return await asyncio.to_thread(run)
