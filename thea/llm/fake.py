"""A deterministic, zero-latency chat model for benchmarks and demos without a model.

Plain requests get a short canned reply; requests with a JSON schema (``response_format``
or a system prompt asking for JSON) get a minimal valid instance of that schema.
Tests use LangChain's own fakes (or tests/fakes.py) instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


def minimal_instance(schema: dict[str, Any]) -> Any:
    """The smallest value matching a (pydantic-generated) JSON schema."""
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return minimal_instance(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal_instance(v) for k, v in props.items() if k in schema.get("required", [])}
    if kind == "string":
        text = "fake"
        return (text * (int(schema.get("minLength", 0)) // len(text) + 1))[
            : max(len(text), int(schema.get("minLength", 0)))
        ]
    return {"array": [], "integer": 0, "number": 0.0, "boolean": False}.get(str(kind))


class FakeChatModel(BaseChatModel):
    reply: str = "(fake model) I heard you."
    model_name: str = "fake"
    supports_json_schema: bool = True
    #: stream replies word by word at this many words per second (0 = all at once)
    words_per_s: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "thea-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fmt = kwargs.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
        text = json.dumps(minimal_instance(schema)) if schema else self.reply
        words = sum(len(str(m.content).split()) for m in messages)
        usage = {
            "input_tokens": words,
            "output_tokens": len(text.split()),
            "total_tokens": words + len(text.split()),
        }
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        result = self._generate(messages, stop=stop, **kwargs)
        message = result.generations[0].message
        words = str(message.content).split(" ")
        for i, word in enumerate(words):
            if self.words_per_s and i:
                time.sleep(1.0 / self.words_per_s)
            last = i == len(words) - 1
            chunk = AIMessageChunk(
                content=word if last else word + " ",
                usage_metadata=message.usage_metadata if last and isinstance(message, AIMessage) else None,
            )
            yield ChatGenerationChunk(message=chunk)
