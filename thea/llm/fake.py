"""A deterministic chat model driven by functions, one per prompt: for tests, benchmarks, demos
and the ``fake`` provider (no model needed).

Every call thea makes names its prompt (:class:`thea.llm.prompt_ids.PromptId`, see
:func:`thea.llm.prompt_ids.asking`); the fake answers it with the handler registered for that
id. The default handlers give a valid answer for every prompt (the structured ones: JSON their
schema accepts). A call
without a handler gets the smallest instance of its JSON schema (``response_format``), else
:attr:`FakeChatModel.reply`. The model records every call, and can fail or stall on chosen
prompts. :class:`StreamingFakeChatModel` streams its answers word by word.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from thea.llm.prompt_ids import PromptId, current_prompt


@dataclass(frozen=True)
class FakeCall:
    """One call the fake received: which prompt (None: not one of thea's), its messages, the
    JSON schema it asked for (if any) and its other keyword arguments (e.g. ``max_tokens``)."""

    prompt: PromptId | None
    messages: list[BaseMessage]
    schema: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[FakeCall], str]


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest value matching a (pydantic-generated) JSON schema."""
    defs = {**(defs or {}), **schema.get("$defs", {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return minimal_instance(defs[ref.removeprefix("#/$defs/")], defs)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return minimal_instance(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal_instance(v, defs) for k, v in props.items() if k in schema.get("required", [])}
    if kind == "string":
        text = "fake"
        return (text * (int(schema.get("minLength", 0)) // len(text) + 1))[
            : max(len(text), int(schema.get("minLength", 0)))
        ]
    return {"array": [], "integer": 0, "number": 0.0, "boolean": False}.get(str(kind))


def reference_lines(messages: list[BaseMessage]) -> list[str]:
    """The memories inside the reference block of the last message, without their labels."""
    body = str(messages[-1].content)
    return [line.split(") ", 1)[1] for line in body.splitlines() if line.startswith("[") and ") " in line]


def count_memories(messages: list[BaseMessage]) -> int:
    return len(reference_lines(messages))


def count_claims(messages: list[BaseMessage]) -> int:
    """The numbered claims after ``CLAIMS:`` in the last message (the claim verification prompt)."""
    body = str(messages[-1].content).split("CLAIMS:", 1)
    return (
        sum(1 for line in body[-1].splitlines() if line.split(". ", 1)[0].isdigit()) if len(body) > 1 else 0
    )


def plain_text(messages: list[BaseMessage]) -> str:
    """All of a prompt's text as a reader takes it: quoted memories (« », ^ for spaces) unquoted,
    so a check that some text is *absent* cannot pass just because it was datamarked."""
    text = "\n".join(str(m.content) for m in messages)
    return text.replace("^", " ").replace("«", "").replace("»", "")


CRYSTAL_JSON: dict[str, Any] = {
    "insight": "Ana works on Redis queues.",
    "seed": "Ana, Redis, queues",
    "tags": ["work", "redis"],
    "triples": [
        {"subject": "Ana", "predicate": "USED_WITH", "object": "Redis", "confidence": 0.8},
        {"subject": "Redis", "predicate": "IS_A", "object": "database", "confidence": 0.7},
    ],
}
PLAN_JSON: dict[str, Any] = {"queries": ["work"], "concepts": ["Redis"], "time_window": "none"}
REACTION = "A question about work."
#: what the fake answers the synthesis (and any prompt without a handler or schema)
DEFAULT_REPLY = "Here is my answer."
#: what the stand-in model (:meth:`FakeChatModel.minimal`) answers in plain text
STAND_IN_REPLY = "(fake model) I heard you."


def _notes(call: FakeCall) -> str:
    """The fake's reading of a statement (the extraction prompt): every sentence of it one note
    about the user, quoted as said, its value the sentence after its first word. Deterministic
    and language-neutral: tests through the service get claims without any model, and never a
    rule about wording."""
    message = str(call.messages[-1].content) if call.messages else ""
    if message.startswith("(before this"):  # the part before, for context only
        message = message.split("\n", 1)[-1]
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", message) if s.strip()]
    claims = [
        {
            "quote": s.rstrip(".!?"),
            "subject": "user",
            "relation": "self",
            "attribute": "note",
            # the sentence but its first word: a quote of the value alone is no claim
            "value": s.rstrip(".!?").split(" ", 1)[-1],
            "when": "",
            "kind": "new",
        }
        for s in sentences[:8]
    ]
    return json.dumps({"claims": claims})


def _reflect(call: FakeCall) -> str:
    lines = reference_lines(call.messages)
    return "In short: " + (lines[0] if lines else "nothing to merge.")


def reply_output(text: str, feeling: str = "neutral") -> str:
    """The reply prompt's output for a reaction (services/prompts/reply.py), as a model gives it."""
    return json.dumps({"feeling": feeling, "reply": text})


def _always(text: str) -> Handler:
    return lambda _: text


def default_handlers() -> dict[PromptId, Handler]:
    """A valid answer for every prompt except the synthesis (that one answers :attr:`reply`)."""
    return {
        PromptId.PLANNER: lambda _: json.dumps(PLAN_JSON),
        PromptId.FIRST_LOOK: lambda _: json.dumps({"reaction": REACTION, **PLAN_JSON}),
        PromptId.DISTILL: lambda _: "The user talked about their work on Redis queues.",
        PromptId.CRYSTALLIZE: lambda _: json.dumps(CRYSTAL_JSON),
        PromptId.CRYSTALLIZE_SESSION: lambda _: json.dumps(CRYSTAL_JSON),
        PromptId.REFLECT: _reflect,
        PromptId.FACT_CHECK: lambda c: json.dumps({"verdicts": ["unrelated"] * count_memories(c.messages)}),
        PromptId.VERIFY_CLAIMS: lambda c: json.dumps({"verdicts": ["supported"] * count_claims(c.messages)}),
        # each sentence a note (tests script other readings: tests/claims_support.py); two claims
        # both stay
        PromptId.EXTRACT_CLAIMS: _notes,
        # every claim read is a lasting fact unless a test scripts another sort
        PromptId.SORT_CLAIMS: lambda _: json.dumps({"kind": "identity"}),
        PromptId.SUPERSESSION: lambda _: json.dumps({"decision": "adds"}),
        # picks nothing unless a test scripts it: the model then answers in its own words
        PromptId.PICK_CLAIMS: lambda _: json.dumps({"facts": []}),
        # reads nothing from what was told unless a test scripts it (no JSON: the question goes on
        # to the claims' pick and the model, as when a reader fails)
        PromptId.ANSWER_FROM_TOLD: _always(""),
        # any question the rest leaves open is one anyone could answer: the model answers it
        PromptId.QUESTION_SCOPE: _always(json.dumps({"about": "", "known": "general"})),
        # every line chosen as an answer states it unless a test scripts otherwise
        PromptId.ANSWER_CHECK: _always(json.dumps({"asked": "", "answer": "", "verdict": "answers"})),
        # a line without the words of whom the question asks about speaks of someone else unless
        # a test scripts otherwise
        PromptId.SAME_SUBJECT: _always(json.dumps({"named": "", "verdict": "someone else"})),
        # a new message changes no earlier claim unless a test scripts otherwise
        PromptId.REVISE_CLAIMS: _always(json.dumps({"quote": "", "verdict": "unchanged", "value": ""})),
        # no verdict on a claim's value unless a test scripts one: every claim read is kept
        PromptId.VALUE_CHECK: _always(json.dumps({"answer": ""})),
        # every question put as a request asks for help unless a test scripts otherwise
        PromptId.HELP_OR_RECALL: _always(json.dumps({"wanted": "", "asks": "help"})),
        # news is not read for what it asks unless a test scripts it (no JSON: the reading of acts
        # by sentence stands, as when the reader fails)
        PromptId.ASKED_BESIDE_NEWS: _always(""),
        # no reaction unless a test scripts one: statements get the plain acknowledgement
        PromptId.REPLY: _always(""),
        # an end that names someone is of them unless a test scripts otherwise ("Rex died")
        PromptId.STILL_THEIRS: _always(json.dumps({"still": False})),
        PromptId.ASKED_WHEN: _always(json.dumps({"at": ""})),
    }


def _usage(messages: list[BaseMessage], text: str) -> dict[str, int]:
    """Token counts as words: the prompt's and the answer's."""
    words_in = sum(len(str(m.content).split()) for m in messages)
    words_out = len(text.split())
    return {"input_tokens": words_in, "output_tokens": words_out, "total_tokens": words_in + words_out}


class FakeChatModel(BaseChatModel):
    """Answers each prompt with its handler (whole replies); can fail or stall; records calls."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_name: str = "fake"
    supports_json_schema: bool = True
    #: the answer of prompts without a handler and without a schema (the synthesis by default)
    reply: str = DEFAULT_REPLY
    handlers: dict[PromptId, Handler] = Field(default_factory=default_handlers)
    #: prompts whose calls raise (a model error)
    fail: set[PromptId] = Field(default_factory=set)
    #: prompts whose calls take ``slow_seconds`` before answering
    slow: set[PromptId] = Field(default_factory=set)
    slow_seconds: float = 5.0
    #: keep every call in :attr:`calls` (off for long runs: the ``fake`` provider, benchmarks)
    record: bool = True
    calls: list[FakeCall] = Field(default_factory=list)

    @classmethod
    def minimal(cls, **fields: Any) -> Self:
        """The stand-in for a model (the ``fake`` provider, benchmarks): statements read as notes,
        schema-minimal JSON for the other structured prompts and ``reply`` for the rest; records
        nothing."""
        handlers: dict[PromptId, Handler] = {
            PromptId.EXTRACT_CLAIMS: _notes,
            PromptId.SORT_CLAIMS: lambda _: json.dumps({"kind": "identity"}),
            PromptId.SUPERSESSION: lambda _: json.dumps({"decision": "adds"}),
            PromptId.REPLY: _always(""),
            # as the default: nothing read from what was told, the question goes on (schema-minimal
            # JSON would copy nothing and answer every personal question "I don't know")
            PromptId.ANSWER_FROM_TOLD: _always(""),
            PromptId.QUESTION_SCOPE: _always(json.dumps({"about": "", "known": "general"})),
            PromptId.ANSWER_CHECK: _always(json.dumps({"asked": "", "answer": "", "verdict": "answers"})),
            PromptId.SAME_SUBJECT: _always(json.dumps({"named": "", "verdict": "someone else"})),
            PromptId.REVISE_CLAIMS: _always(json.dumps({"quote": "", "verdict": "unchanged", "value": ""})),
            PromptId.VALUE_CHECK: _always(json.dumps({"answer": ""})),
            PromptId.HELP_OR_RECALL: _always(json.dumps({"wanted": "", "asks": "help"})),
            PromptId.ASKED_BESIDE_NEWS: _always(""),
            PromptId.STILL_THEIRS: _always(json.dumps({"still": False})),
            PromptId.ASKED_WHEN: _always(json.dumps({"at": ""})),
            PromptId.ASKED_WHEN: _always(json.dumps({"at": ""})),
        }
        return cls(**{"handlers": handlers, "reply": STAND_IN_REPLY, "record": False, **fields})

    @property
    def _llm_type(self) -> str:
        return "thea-fake"

    def answer(self, prompt: PromptId, handler: Handler | str) -> None:
        """Answer ``prompt`` with ``handler`` (or always with this text) from now on."""
        self.handlers[prompt] = handler if callable(handler) else _always(handler)

    def prompts_for(self, prompt: PromptId) -> list[list[BaseMessage]]:
        """The messages of every call of ``prompt``, in call order."""
        return [c.messages for c in self.calls if c.prompt is prompt]

    def _call(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> FakeCall:
        fmt = kwargs.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
        call = FakeCall(
            prompt=current_prompt(),
            messages=messages,
            schema=schema,
            kwargs=dict(kwargs),
        )
        if self.record:
            self.calls.append(call)
        return call

    def _text(self, call: FakeCall) -> str:
        if call.prompt is not None and call.prompt in self.fail:
            raise RuntimeError(f"scripted failure in {call.prompt.value}")
        handler = self.handlers.get(call.prompt) if call.prompt is not None else None
        if handler is not None:
            return handler(call)
        return json.dumps(minimal_instance(call.schema)) if call.schema else self.reply

    def _stalls(self, call: FakeCall) -> bool:
        return call.prompt is not None and call.prompt in self.slow

    def _result(self, call: FakeCall) -> ChatResult:
        text = self._text(call)
        message = AIMessage(content=text, usage_metadata=_usage(call.messages, text))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        call = self._call(messages, kwargs)
        if self._stalls(call):  # background calls run the sync path in a thread
            time.sleep(self.slow_seconds)
        return self._result(call)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        call = self._call(messages, kwargs)
        if self._stalls(call):
            await asyncio.sleep(self.slow_seconds)
        return self._result(call)


class StreamingFakeChatModel(FakeChatModel):
    """The fake, streaming its answers word by word (``token_delay_s`` apart)."""

    token_delay_s: float = 0.0

    def _pieces(self, call: FakeCall) -> list[tuple[str, dict[str, int] | None]]:
        text = self._text(call)
        words = text.split(" ")
        usage = _usage(call.messages, text)
        return [(w, usage) if i == len(words) - 1 else (w + " ", None) for i, w in enumerate(words)]

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        call = self._call(messages, kwargs)
        if self._stalls(call):
            time.sleep(self.slow_seconds)
        for i, (piece, usage) in enumerate(self._pieces(call)):
            if self.token_delay_s and i:
                time.sleep(self.token_delay_s)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        call = self._call(messages, kwargs)
        if self._stalls(call):
            await asyncio.sleep(self.slow_seconds)
        for i, (piece, usage) in enumerate(self._pieces(call)):
            if self.token_delay_s and i:
                await asyncio.sleep(self.token_delay_s)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))
