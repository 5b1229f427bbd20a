"""Calling the chat model from services: timeouts, streaming, usage accounting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from pydantic import BaseModel

from services.prompts import PromptSpec
from thea.errors import LLMError, LLMTimeout, MalformedOutput
from thea.llm.prompt_ids import asking, prompt_config
from thea.models import LLMUsage

T = TypeVar("T", bound=BaseModel)

#: Longest model output a step accepts (~25k tokens, far above any configured answer length).
#: A runaway model is cut off and its step fails instead of flooding memory and the screen.
MAX_OUTPUT_CHARS = 100_000

TokenSink = Callable[[str], Awaitable[None] | None]


def model_name(llm: BaseChatModel) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(llm, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(llm).__name__


def _too_long(prompt: PromptSpec, chars: int, limit: int) -> MalformedOutput:
    return MalformedOutput(
        f"{prompt.name}: the model returned {chars:,}+ characters; the limit is {limit:,} (output discarded)"
    )


def usage_of(
    message: AIMessage | AIMessageChunk, llm: BaseChatModel, prompt: PromptSpec, started: float
) -> LLMUsage:
    meta = message.usage_metadata
    return LLMUsage(
        model=model_name(llm),
        prompt_name=prompt.name,
        prompt_version=prompt.version,
        tokens_in=meta["input_tokens"] if meta else 0,
        tokens_out=meta["output_tokens"] if meta else 0,
        calls=1,
        latency_ms=(time.perf_counter() - started) * 1000,
    )


def _as_chunk(item: object) -> AIMessageChunk:
    """A streamed piece (a model that cannot stream yields its whole reply as one message)."""
    if isinstance(item, AIMessageChunk):
        return item
    if isinstance(item, AIMessage):
        return AIMessageChunk(
            content=item.content,
            usage_metadata=item.usage_metadata,
            response_metadata=item.response_metadata,
        )
    raise LLMError(f"model returned {type(item).__name__}, not a message")


async def ask_text(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    prompt: PromptSpec,
    *,
    timeout_s: float,
    on_token: TokenSink | None = None,
    max_chars: int = MAX_OUTPUT_CHARS,
    stop_when: Callable[[str], bool] | None = None,
    max_tokens: int | None = None,
) -> tuple[str, LLMUsage]:
    """Plain-text answer; streams tokens to ``on_token`` when given.

    The reply is always read as a stream, so a call that times out or is cancelled stops the
    model (the local model stops decoding at the next token) instead of generating on unseen
    while the next step waits for it. ``max_tokens`` bounds the generation. ``stop_when`` is
    asked after each piece with the text so far; when it says so the stream is closed and the
    text so far returned.
    Raises LLMTimeout after ``timeout_s`` and MalformedOutput when the output exceeds
    ``max_chars`` (a stream is stopped there).
    """
    started = time.perf_counter()
    extra: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
    merged: AIMessageChunk | None = None
    try:
        with asking(prompt.id):
            async with asyncio.timeout(timeout_s):
                received = 0
                so_far: list[str] = []
                stream = llm.astream(list(messages), prompt_config(prompt.id, prompt.version), **extra)
                try:
                    async for item in stream:
                        chunk = _as_chunk(item)
                        piece = chunk.text
                        received += len(piece)
                        if received > max_chars:
                            raise _too_long(prompt, received, max_chars)
                        if piece and on_token is not None:
                            result = on_token(piece)
                            if result is not None:
                                await result
                        merged = chunk if merged is None else merged + chunk
                        if stop_when is not None and piece:
                            so_far.append(piece)
                            if stop_when("".join(so_far)):
                                break
                finally:
                    close = getattr(stream, "aclose", None)
                    if close is not None:
                        await close()  # stops the model's decoding now, not when collected
    except TimeoutError as exc:
        raise LLMTimeout(f"{prompt.name}: no answer within {timeout_s:g} s") from exc
    if merged is None:
        return "", LLMUsage(
            model=model_name(llm), prompt_name=prompt.name, prompt_version=prompt.version, calls=1
        )
    return str(merged.text), usage_of(merged, llm, prompt, started)


async def ask_structured(
    llm: BaseChatModel,
    schema: type[T],
    messages: Sequence[BaseMessage],
    prompt: PromptSpec,
    *,
    timeout_s: float,
    retries: int = 1,
    max_chars: int = MAX_OUTPUT_CHARS,
    max_tokens: int | None = None,
) -> tuple[T, LLMUsage]:
    """A pydantic object from the model; one corrective retry, then MalformedOutput.

    Raises LLMTimeout when the model does not answer within ``timeout_s``, and
    MalformedOutput when the accepted output is longer than ``max_chars``.
    """
    from thea.llm.structured import ainvoke_structured

    with asking(prompt.id):
        result = await ainvoke_structured(
            llm,
            schema,
            list(messages),
            retries=retries,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
            config=prompt_config(prompt.id, prompt.version),
        )
    if len(result.raw) > max_chars:
        raise _too_long(prompt, len(result.raw), max_chars)
    usage = LLMUsage(
        model=model_name(llm),
        prompt_name=prompt.name,
        prompt_version=prompt.version,
        tokens_in=result.usage.tokens_in,
        tokens_out=result.usage.tokens_out,
        calls=result.usage.calls,
        latency_ms=result.usage.latency_ms,
    )
    return result.value, usage
