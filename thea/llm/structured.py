"""Structured (pydantic) output from any chat model, robust to weak models.

Models that support JSON-schema decoding (``supports_json_schema``: the local
model, the fake) get the schema as ``response_format``; every model's text is
then parsed leniently (code fences and prose around the first JSON object are
tolerated) and validated. Malformed output gets one corrective retry, then
:class:`MalformedOutput`; callers degrade gracefully.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ValidationError

from thea.errors import LLMTimeout, MalformedOutput
from thea.models import LLMUsage

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass
class StructuredResult(Generic[T]):
    value: T
    usage: LLMUsage = field(default_factory=LLMUsage)
    raw: str = ""


def extract_json(text: str) -> Any:
    """The first JSON object (or array) in ``text``; raises ValueError if none."""
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1)] if fenced else []
    candidates.append(text)
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start, ch in enumerate(candidate):
            if ch in "{[":
                try:
                    value, _ = decoder.raw_decode(candidate[start:])
                except json.JSONDecodeError:
                    continue
                return value
    raise ValueError("no JSON object in the model output")


def parse_as(schema: type[T], text: str) -> T:
    try:
        return schema.model_validate(extract_json(text))
    except (ValueError, ValidationError) as exc:
        raise MalformedOutput(f"{schema.__name__}: {str(exc)[:300]}") from exc


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
    }


async def ainvoke_structured(
    model: BaseChatModel,
    schema: type[T],
    messages: list[BaseMessage],
    *,
    retries: int = 1,
    timeout_s: float = 120.0,
    max_tokens: int | None = None,
    config: RunnableConfig | None = None,
) -> StructuredResult[T]:
    """``config`` goes with every call (thea passes the prompt's id as run metadata)."""
    kwargs: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
    if getattr(model, "supports_json_schema", False):
        kwargs["response_format"] = response_format(schema)
    usage = LLMUsage()
    convo = list(messages)
    last_error: MalformedOutput | None = None
    for _attempt in range(retries + 1):
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout_s):
                reply = await model.ainvoke(convo, config, **kwargs)
        except TimeoutError as exc:
            raise LLMTimeout(f"{schema.__name__}: no answer within {timeout_s:.0f} s") from exc
        meta = reply.usage_metadata if isinstance(reply, AIMessage) else None
        usage = usage.add(
            LLMUsage(
                tokens_in=meta["input_tokens"] if meta else 0,
                tokens_out=meta["output_tokens"] if meta else 0,
                calls=1,
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        )
        text = str(reply.text)
        try:
            return StructuredResult(value=parse_as(schema, text), usage=usage, raw=text)
        except MalformedOutput as exc:
            last_error = exc
            convo = [
                *messages,
                AIMessage(content=text[:2000]),
                HumanMessage(
                    content=f"That was not valid JSON for the schema ({exc}). Reply with only the JSON."
                ),
            ]
    assert last_error is not None
    raise last_error
