"""Test doubles: a scripted chat model that records every prompt it receives."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

Responder = Callable[[list[BaseMessage]], str]


def role_of(messages: list[BaseMessage]) -> str:
    """Which thea prompt this is, from its system message."""
    system = str(messages[0].content) if messages else ""
    if "plan memory searches" in system:
        return "planner"
    if "instinct and search planner" in system:
        return "first_look"
    if "thea's instinct" in system:
        return "instinct"
    if "Summarise this exchange" in system:
        return "distill"
    if "long-term memory" in system:
        return "synthesis"
    if "You crystallize knowledge" in system:
        return "crystallize"
    if "You merge related insights" in system:
        return "reflect"
    if "You compare a NEW CLAIM" in system:
        return "fact_check"
    if "You check numbered CLAIMS" in system:
        return "verify"
    return "other"


CRYSTAL_JSON = {
    "insight": "Ana works on Redis queues.",
    "seed": "Ana, Redis, queues",
    "tags": ["work", "redis"],
    "triples": [
        {"subject": "Ana", "predicate": "USED_WITH", "object": "Redis", "confidence": 0.8},
        {"subject": "Redis", "predicate": "IS_A", "object": "database", "confidence": 0.7},
    ],
}


def reference_lines(messages: list[BaseMessage]) -> list[str]:
    """The memories inside the reference block of the last message, without their labels."""
    body = str(messages[-1].content)
    return [line.split(") ", 1)[1] for line in body.splitlines() if line.startswith("[") and ") " in line]


def plain_text(messages: list[BaseMessage]) -> str:
    """All of a prompt's text as a reader takes it: quoted memories (« », ^ for spaces) unquoted,
    so a check that some text is *absent* cannot pass just because it was datamarked."""
    text = "\n".join(str(m.content) for m in messages)
    return text.replace("^", " ").replace("«", "").replace("»", "")


def count_memories(messages: list[BaseMessage]) -> int:
    return len(reference_lines(messages))


def default_responder(messages: list[BaseMessage]) -> str:
    role = role_of(messages)
    if role == "planner":
        return json.dumps({"queries": ["work"], "concepts": ["Redis"], "time_window": "none"})
    if role == "instinct":
        return "A question about work."
    if role == "first_look":
        return json.dumps(
            {
                "reaction": "A question about work.",
                "queries": ["work"],
                "concepts": ["Redis"],
                "time_window": "none",
            }
        )
    if role == "distill":
        return "The user talked about their work on Redis queues."
    if role == "crystallize":
        return json.dumps(CRYSTAL_JSON)
    if role == "reflect":
        return "In short: " + reference_lines(messages)[0]
    if role == "fact_check":
        return json.dumps({"verdicts": ["unrelated"] * count_memories(messages)})
    return "Here is my answer."


class ScriptedChatModel(BaseChatModel):
    """Answers by role; can raise or stall for chosen roles; records calls."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responder: Responder = default_responder
    fail_roles: set[str] = Field(default_factory=set)
    slow_roles: set[str] = Field(default_factory=set)
    slow_seconds: float = 5.0
    calls: list[tuple[str, list[BaseMessage]]] = Field(default_factory=list)
    #: the keyword arguments of each call (e.g. max_tokens), in call order
    call_kwargs: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        role = role_of(messages)
        self.calls.append((role, messages))
        if role in self.fail_roles:
            raise RuntimeError(f"scripted failure in {role}")
        text = self.responder(messages)
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.call_kwargs.append(kwargs)
        if role_of(messages) in self.slow_roles:  # background calls run the sync path in a thread
            time.sleep(self.slow_seconds)
        return self._reply(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> ChatResult:
        self.call_kwargs.append(kwargs)
        if role_of(messages) in self.slow_roles:
            await asyncio.sleep(self.slow_seconds)
        return self._reply(messages)

    def prompts_for(self, role: str) -> list[list[BaseMessage]]:
        return [m for r, m in self.calls if r == role]
