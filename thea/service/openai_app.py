"""The OpenAI-compatible face of the service: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Any OpenAI client or chat UI talks to a thea that remembers: every request runs one cognitive
cycle for its user. Rules (docs/interfaces.md):

* **Users.** The caller is found as for the v1 API (unix socket: the local user; tokens: the
  token *is* the user). OpenAI's ``user`` field selects a user only on the unix socket; on
  TCP (always with a token) it is ignored (chat UIs fill it with their own ids), so no token
  can reach another user's memory through it.
* **Messages.** Only the last message is the impulse and must be the user's. The earlier
  messages pick the conversation: its thea session is ``session_id`` (body or
  ``X-Thea-Session``) or derived from the user and the first user message. thea's prompts carry
  that session's own context (the exchanges thea answered in it), never the client's copy of
  them: a client cannot plant assistant turns. A request with no earlier turns starts the
  conversation afresh (the session's context is handed to distillation).
* **Errors** come in OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.common.impulse_input import validate_impulse_text
from services.common.llm_calls import TokenSink
from services.cycle.orchestrator import CycleResult
from thea.api import IMPULSE_HEADER
from thea.api.openai import (
    MODEL_ID,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionRequest,
    Choice,
    CompletionUsage,
    ModelCard,
    ModelList,
    OpenAIError,
    OpenAIErrorDetail,
    chunk,
)
from thea.errors import InputError, NotFoundError, TheaError
from thea.models import new_id
from thea.service.auth import Caller
from thea.service.context import ServiceContext
from thea.service.errors import error_body, safe_text, validation_message
from thea.text import MarkdownStream, for_markdown

log = logging.getLogger(__name__)

SESSION_HEADER = "X-Thea-Session"
KEEPALIVE_S = 1.0
_USER_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 409: "conflict_error", 413: "invalid_request_error",
          422: "invalid_request_error"}  # fmt: skip


def openai_error(
    status: int, message: str, code: str | None = None, param: str | None = None
) -> JSONResponse:
    detail = OpenAIErrorDetail(
        message=safe_text(message), type=_TYPES.get(status, "server_error"), param=param, code=code
    )
    response = JSONResponse(OpenAIError(error=detail).model_dump(mode="json"), status_code=status)
    if status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def error_of(exc: BaseException) -> tuple[int, OpenAIErrorDetail]:
    status, body = error_body(exc)
    return status, OpenAIErrorDetail(
        message=body["error"], type=_TYPES.get(status, "server_error"), code=body["kind"]
    )


def user_of(caller: Caller, named: str | None) -> str:
    """The request's user: the ``user`` field only on the unix socket (as ``X-Thea-User``)."""
    if named is None or not caller.on_socket:
        return caller.user_id
    if not _USER_ID.match(named):
        raise InputError("user must be 1-128 letters, digits or _.:@-")
    return named


def session_of(body: ChatCompletionRequest, request: Request, user_id: str) -> str:
    given = body.session_id or request.headers.get(SESSION_HEADER)
    if given:
        if not _USER_ID.match(given):
            raise InputError(f"{SESSION_HEADER} must be 1-128 letters, digits or _.:@-")
        return given
    first = next((m.text() for m in body.messages if m.role == "user"), "")
    digest = hashlib.sha256(f"{user_id}\x1f{first}".encode("utf-8", "replace")).hexdigest()
    return "oai-" + digest[:16]


def impulse_text(body: ChatCompletionRequest, max_chars: int) -> str:
    last = body.messages[-1]
    if last.role != "user":
        raise InputError("the last message must be the user's (role 'user'): it is what thea answers")
    return validate_impulse_text(last.text(), max_chars)


def usage_of(cycle: CycleResult) -> CompletionUsage:
    tokens_in, tokens_out = cycle.usage.tokens_in, cycle.usage.tokens_out
    return CompletionUsage(
        prompt_tokens=tokens_in, completion_tokens=tokens_out, total_tokens=tokens_in + tokens_out
    )


async def _fresh_conversation(ctx: ServiceContext, user_id: str, session_id: str) -> None:
    """A request without earlier turns starts its conversation over: the session's context goes
    to distillation (nothing is lost), the prompts start empty."""
    runtime = ctx.rt
    try:
        exchanges = await asyncio.to_thread(runtime.orchestrator.context.clear, user_id, session_id)
        if exchanges:
            await asyncio.to_thread(runtime.jobs.enqueue_distill, exchanges, user_id, session_id)
    except TheaError as exc:
        log.warning("session %s: could not hand its context to distillation: %s", session_id, exc)


def create_openai_app(ctx: ServiceContext) -> FastAPI:
    app = FastAPI(title="thea (OpenAI-compatible)", openapi_url=None, docs_url=None, redoc_url=None)
    app.state.ctx = ctx
    _install_error_handlers(app)

    @app.get("/models")
    async def models(request: Request) -> ModelList:
        ctx.auth.caller(request)
        return ModelList(data=[ModelCard(created=int(ctx.started_at))])

    @app.post("/chat/completions")
    async def completions(body: ChatCompletionRequest, request: Request) -> Response:
        return await _completion(ctx, body, request)

    return app


def _install_error_handlers(app: FastAPI) -> None:
    """Every error in OpenAI's shape."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return openai_error(400, validation_message(list(exc.errors())), "invalid_request")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return openai_error(exc.status_code, str(exc.detail))

    @app.exception_handler(TheaError)
    async def thea_error(request: Request, exc: TheaError) -> JSONResponse:
        status, detail = error_of(exc)
        return openai_error(status, detail.message, detail.code)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s: internal error", request.method, request.url.path, exc_info=exc)
        status, detail = error_of(exc)
        return openai_error(status, detail.message, detail.code)


@dataclass(frozen=True)
class _Completion:
    """One completion request as a cycle: who asks what in which conversation, and the ids its
    answer goes out under."""

    ctx: ServiceContext
    text: str
    user_id: str
    session_id: str
    impulse_id: str = field(default_factory=new_id)
    created: int = field(default_factory=lambda: int(time.time()))

    @property
    def completion_id(self) -> str:
        return f"chatcmpl-{self.impulse_id}"

    @property
    def headers(self) -> dict[str, str]:
        return {IMPULSE_HEADER: self.impulse_id, SESSION_HEADER: self.session_id}

    async def cycle(self, on_token: TokenSink | None = None) -> CycleResult:
        return await self.ctx.rt.orchestrator.handle_impulse(
            self.text, self.user_id, self.session_id, on_token=on_token, impulse_id=self.impulse_id
        )

    def piece(self, delta: dict[str, Any], finish: bool = False) -> dict[str, Any]:
        return chunk(self.completion_id, self.created, self.impulse_id, delta, finish)


async def _completion(ctx: ServiceContext, body: ChatCompletionRequest, request: Request) -> Response:
    caller = ctx.auth.caller(request)
    if body.model != MODEL_ID:
        raise NotFoundError(f"unknown model {body.model[:60]!r}: thea serves one model, {MODEL_ID!r}")
    user_id = user_of(caller, body.user)
    text = impulse_text(body, ctx.rt.settings.max_impulse_chars)
    session_id = session_of(body, request, user_id)
    if not any(m.role in ("user", "assistant") for m in body.messages[:-1]):
        await _fresh_conversation(ctx, user_id, session_id)
    ctx.sessions.get(user_id, session_id)  # the replica's status counts it
    completion = _Completion(ctx, text, user_id, session_id)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return _streamed(completion, include_usage)
    result = await completion.cycle()
    whole = ChatCompletion(
        id=completion.completion_id,
        created=completion.created,
        choices=[Choice(message=AssistantMessage(content=for_markdown(result.answer)))],
        usage=usage_of(result),
        impulse_id=completion.impulse_id,
        session_id=session_id,
    )
    return JSONResponse(whole.model_dump(mode="json"), headers=completion.headers)


def _streamed(completion: _Completion, include_usage: bool) -> StreamingResponse:
    """The answer as ``chat.completion.chunk`` events while the cycle runs."""
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def run() -> None:
        try:
            shown = MarkdownStream()  # a client may render markdown: no link or image half-sent

            def send(text: str) -> None:
                if text:
                    queue.put_nowait(completion.piece({"content": text}))

            result = await completion.cycle(lambda text_piece: send(shown.feed(text_piece)))
            send(shown.finish())
            queue.put_nowait(completion.piece({}, finish=True))
            if include_usage:
                queue.put_nowait(
                    {**completion.piece({}), "choices": [], "usage": usage_of(result).model_dump()}
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never leave a client hanging; the error in OpenAI's shape
            if not isinstance(exc, TheaError):
                log.exception("streamed completion failed")
            queue.put_nowait(OpenAIError(error=error_of(exc)[1]).model_dump(mode="json"))
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(run())
    return StreamingResponse(
        _events(task, queue, completion.piece({"role": "assistant", "content": ""})),
        media_type="text/event-stream",
        headers={**completion.headers, "Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _events(
    task: asyncio.Task[None], queue: asyncio.Queue[dict[str, Any] | None], first: dict[str, Any]
) -> AsyncIterator[bytes]:
    """``data:`` lines until ``[DONE]``; a keep-alive comment each second of silence; the cycle
    is cancelled (and recorded as cancelled) when the client goes away."""
    try:
        yield f"data: {json.dumps(first)}\n\n".encode()
        failed = False
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            if item is None:
                break
            failed = failed or "error" in item
            yield f"data: {json.dumps(item)}\n\n".encode()
        if not failed:
            yield b"data: [DONE]\n\n"
    finally:
        if not task.done():
            log.info("client went away: cancelling its completion")
            task.cancel()
