"""Bringing conversation history into a user's memory (``thea import``).

The import runs in a thread, batch by batch (services/knowledge/importer.py). Before each batch
it asks whether to stop: when the service is stopping, or the caller went away (a streamed
request whose client closed it), it ends at that batch boundary, within a batch's time (about
2 s), and records how far it got; the same import again continues from there. With
``stream`` the caller gets ``progress`` events after every batch. An import of more than
``embedding.background_import_over`` turns leaves their vectors to the service's background
(workers/vector_catch_up.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from services.knowledge.history_formats import parse_history_text
from services.knowledge.import_checkpoints import file_checkpoint
from services.knowledge.importer import import_history
from thea.api import paths
from thea.api.models import ImportRequest, ImportResult
from thea.errors import ImportInterrupted, TheaError
from thea.service.auth import Caller
from thea.service.context import ServiceContext, caller_of, context_of
from thea.service.errors import error_body
from thea.service.streaming import queued_events, sse

log = logging.getLogger(__name__)

router = APIRouter(tags=["knowledge"])

ProgressFn = Callable[[int, int], None]


def _importer(
    ctx: ServiceContext, body: ImportRequest, user_id: str, gone: threading.Event
) -> Callable[[ProgressFn | None], ImportResult]:
    memory = ctx.rt.memory
    settings = ctx.settings
    checkpoint = file_checkpoint(settings.data_dir, user_id, body.text, body.format, body.source)

    def should_stop() -> str | None:
        if ctx.stopping is not None:
            return "the service is stopping"
        if gone.is_set():
            return "the caller went away"
        return None

    def run(progress: ProgressFn | None) -> ImportResult:
        # the whole file is validated before anything is written: a bad file changes nothing
        conversations = parse_history_text(body.text, body.source, body.format)
        # a large import leaves the embedding to the background (VectorCatchUp): it is almost all
        # of an import's time, and keyword recall finds the turns meanwhile
        embed_later = sum(len(c.turns) for c in conversations) > settings.embedding.background_import_over
        try:
            result = import_history(
                memory,
                conversations,
                user_id,
                progress=progress,
                should_stop=should_stop,
                checkpoint=checkpoint,
                short_context_only=settings.tuning.short_reply_context,
                # a message over the turn limit is stored as a document of chunks, as a chat paste is
                document_over=settings.max_impulse_chars,
                embed_later=embed_later,
            )
        finally:
            if embed_later and ctx.rt.catch_up is not None:
                ctx.rt.catch_up.wake()
        return ImportResult(user_id=user_id, **dataclasses.asdict(result))

    return run


def _streamed(run: Callable[[ProgressFn | None], ImportResult], gone: threading.Event) -> StreamingResponse:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    def put(item: bytes | None) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        try:
            result = run(lambda done, total: put(sse("progress", {"done": done, "total": total})))
            put(sse("done", result))
        except ImportInterrupted as exc:
            put(sse("stopped", {"done": exc.done, "total": exc.total, "error": str(exc)}))
        except TheaError as exc:
            put(sse("error", error_body(exc)[1]))
        except Exception as exc:  # never leave a client hanging
            log.exception("import failed")
            put(sse("error", error_body(exc)[1]))
        finally:
            put(None)

    thread = threading.Thread(target=work, name="thea-import", daemon=True)
    thread.start()

    async def events() -> AsyncIterator[bytes]:
        try:
            async for item in queued_events(queue):
                yield item
        finally:
            gone.set()  # a client that went away stops the import at its next batch
            await asyncio.to_thread(thread.join)  # the service stops only after the batch

    response = StreamingResponse(events(), media_type="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post(
    paths.IMPORT,
    response_model=ImportResult,
    summary="Import conversation history (LoCoMo JSON or JSONL) with its dates",
)
async def import_file(
    body: ImportRequest, request: Request, caller: Caller = Depends(caller_of)
) -> ImportResult | StreamingResponse:
    ctx = context_of(request)
    gone = threading.Event()
    run = _importer(ctx, body, caller.user_id, gone)
    if body.stream:
        return _streamed(run, gone)
    return await asyncio.to_thread(run, None)
