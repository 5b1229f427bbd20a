"""Foreground first: the gate, and background generations that give the model up to a cycle."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import Field

from thea.llm.local import LocalChatModel
from thea.llm.scheduler import LocalForegroundGate, ScheduledChatModel, foreground


class CountingStream(BaseChatModel):
    """Streams ``words`` words, one every ``delay_s``; records how many it produced per call."""

    words: int = 20
    delay_s: float = 0.01
    produced: list[int] = Field(default_factory=list)
    closed: list[bool] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "counting"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        raise NotImplementedError

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self.produced.append(0)
        try:
            for i in range(self.words):
                time.sleep(self.delay_s)
                self.produced[-1] += 1
                yield ChatGenerationChunk(message=AIMessageChunk(content=f"w{i} "))
            self.closed.append(False)
        except GeneratorExit:
            self.closed.append(True)  # the consumer stopped it: the local model stops decoding here
            raise


def test_the_gate_is_busy_while_held_and_for_a_grace_period_after() -> None:
    gate = LocalForegroundGate(grace_s=0.2)
    assert not gate.busy()
    gate.enter("cycle-1")
    gate.enter("cycle-2")
    assert gate.busy()
    gate.leave("cycle-1")
    assert gate.busy()
    gate.leave("cycle-2")
    assert gate.busy()  # grace: the next step or a quick follow-up need not preempt anything
    assert not gate.wait_quiet(0.05)
    assert gate.wait_quiet(1.0)
    assert not gate.busy()


async def test_foreground_holds_the_gate_for_the_duration_of_a_block() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    async with foreground(gate, "impulse"):
        assert gate.busy()
    assert not gate.busy()
    async with foreground(None):  # no gate: nothing to hold
        pass


def test_background_work_waits_until_no_cycle_runs() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    inner = CountingStream(words=3, delay_s=0.0)
    model = ScheduledChatModel(inner=inner, gate=gate)
    gate.enter("cycle")
    started = threading.Event()
    result: list[str] = []

    def background() -> None:
        started.set()
        result.append(str(model.invoke([HumanMessage(content="crystallize")]).content))

    thread = threading.Thread(target=background)
    thread.start()
    started.wait()
    time.sleep(0.2)
    assert inner.produced == [], "background work started while a cycle held the model"
    gate.leave("cycle")
    thread.join(5)
    assert result == ["w0 w1 w2 "]


def test_a_running_background_generation_is_preempted_and_retried() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    inner = CountingStream(words=30, delay_s=0.01)
    model = ScheduledChatModel(inner=inner, gate=gate)
    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(str(model.invoke([HumanMessage("x")]).content)))
    thread.start()
    while not inner.produced or inner.produced[-1] < 5:
        time.sleep(0.005)
    gate.enter("cycle")  # a question arrives
    time.sleep(0.1)
    stopped_at = inner.produced[0]
    assert stopped_at < 30, "the background generation ran to the end while a cycle waited"
    assert inner.closed[0] is True, "the generation was not stopped (the model would keep decoding)"
    assert len(inner.produced) == 1, "background retried while the cycle still ran"
    gate.leave("cycle")
    thread.join(5)
    assert len(inner.produced) == 2  # retried from the start once the cycle was over
    assert result == ["".join(f"w{i} " for i in range(30))]


async def test_async_background_calls_run_in_a_thread_and_never_block_the_loop() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    model = ScheduledChatModel(inner=CountingStream(words=5, delay_s=0.05), gate=gate)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    reply = await model.ainvoke([HumanMessage(content="x")])
    task.cancel()
    assert reply.content == "w0 w1 w2 w3 w4 "
    assert ticks >= 10  # the loop kept running during the 0.25 s generation


async def test_a_background_call_whose_caller_gave_up_never_takes_the_model_later() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    inner = CountingStream(words=3, delay_s=0.0)
    model = ScheduledChatModel(inner=inner, gate=gate)
    gate.enter("cycle")  # questions keep the model busy: the job's own timeout runs out
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(model.ainvoke([HumanMessage(content="crystallize")]), 0.2)
    gate.leave("cycle")
    await asyncio.sleep(1.0)
    assert inner.produced == [], "an abandoned background call took the model for nobody"


class FakeServer:
    """xllamacpp's server as the local model drives it: records whether a cycle held the gate
    at the moment each prompt started to be evaluated."""

    def __init__(self, gate: LocalForegroundGate) -> None:
        self.gate = gate
        self.started_while_busy: list[bool] = []
        self.requests: list[dict[str, Any]] = []
        #: called with the number of requests so far, after each one (a question may arrive)
        self.after: Any = None

    def handle_chat_completions(self, request: dict[str, Any], on_chunk: Any = None) -> None:
        self.started_while_busy.append(self.gate.busy())
        self.requests.append(request)
        if self.after is not None:
            self.after(len(self.requests))
        if on_chunk is None:  # a slice of a background prompt: evaluated, one token thrown away
            return
        for word in ("a ", "b "):
            if on_chunk({"choices": [{"delta": {"content": word}}]}):
                return
            time.sleep(0.01)


def test_a_background_call_queued_behind_a_step_does_not_take_the_model_between_steps() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    local = LocalChatModel(model_path="unused.gguf")
    server = FakeServer(gate)
    local._server = server
    model = ScheduledChatModel(inner=local, gate=gate)
    result: list[str] = []
    local._run_lock.acquire()  # the model is busy (say, the end of a previous generation)
    thread = threading.Thread(target=lambda: result.append(str(model.invoke([HumanMessage("x")]).content)))
    thread.start()
    time.sleep(0.2)  # the background call passed the quiet gate and waits for the model
    gate.enter("cycle")  # a question arrives...
    local._run_lock.release()  # ...and the model is free between two of its steps
    time.sleep(0.3)
    assert server.started_while_busy == [], "a background prompt was evaluated while a cycle ran"
    gate.leave("cycle")
    thread.join(5)
    assert result == ["a b "]
    assert server.started_while_busy == [False]


def test_a_long_background_prompt_is_evaluated_in_slices_a_question_can_cut_in_between() -> None:
    gate = LocalForegroundGate(grace_s=0.0)
    local = LocalChatModel(model_path="unused.gguf")
    server = FakeServer(gate)
    local._server = server
    server.after = lambda n: gate.enter("cycle") if n == 2 else None  # a question, mid-prompt
    model = ScheduledChatModel(inner=local, gate=gate)
    text = " ".join(f"word{i}" for i in range(600))  # ~4,700 characters
    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(str(model.invoke([HumanMessage(text)]).content)))
    thread.start()
    time.sleep(0.3)
    assert len(server.requests) == 2, "the background prompt kept being evaluated while a cycle ran"
    assert server.started_while_busy == [False, False]
    server.after = None
    gate.leave("cycle")
    thread.join(5)
    assert result == ["a b "]
    slices = [r for r in server.requests if r.get("max_tokens") == 1]
    assert len(slices) >= 7  # ~600 characters each
    contents = [r["messages"][-1]["content"] for r in slices]
    assert all(text.startswith(c) for c in contents)  # each slice is a prefix of the prompt
    assert server.requests[-1]["messages"][-1]["content"] == text  # then the whole prompt, once
    assert not any(server.started_while_busy)
