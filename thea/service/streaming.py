"""Server-sent events for answers that stream: tokens as they come, then ``done`` or ``error``.

The work runs in its own task. If the client goes away (Ctrl-C in the terminal, a closed
page) the task is cancelled, so the cycle stops and records itself as cancelled. While
nothing is being sent, a comment line goes out every second: a dead client is noticed
within about a second even before the first token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from thea.errors import TheaError
from thea.service.errors import error_body

log = logging.getLogger(__name__)

TokenCallback = Callable[[str], None]
KEEPALIVE_S = 1.0


def sse(event: str, data: Any) -> bytes:
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


async def queued_events(queue: asyncio.Queue[bytes | None]) -> AsyncIterator[bytes]:
    """The server-sent events put on ``queue`` until ``None``, and a keep-alive comment each
    ``KEEPALIVE_S`` of silence (a proxy or client then never takes the stream for dead)."""
    while True:
        try:
            item = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
        except TimeoutError:
            yield b": keep-alive\n\n"
            continue
        if item is None:
            return
        yield item


def stream_events(
    work: Callable[[TokenCallback], Awaitable[tuple[str, Any]]],
    headers: dict[str, str] | None = None,
) -> StreamingResponse:
    """Run ``work(on_token)`` and stream its tokens; it returns the final (event, data)."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def run() -> None:
        try:
            event, data = await work(lambda piece: queue.put_nowait(sse("token", {"text": piece})))
            queue.put_nowait(sse(event, data))
        except asyncio.CancelledError:
            raise
        except TheaError as exc:
            queue.put_nowait(sse("error", error_body(exc)[1]))
        except Exception as exc:  # never leave a client hanging
            log.exception("streamed request failed")
            queue.put_nowait(sse("error", error_body(exc)[1]))
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(run())

    async def events() -> AsyncIterator[bytes]:
        try:
            async for item in queued_events(queue):
                yield item
        finally:
            if not task.done():
                log.info("client went away: cancelling its request")
                task.cancel()

    response = StreamingResponse(events(), media_type="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response
