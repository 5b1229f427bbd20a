"""How the model waits: no busy-wait polling by default, and a step that times out stops the
model's generation instead of letting it run on unseen while the next step waits."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from services.common.llm_calls import ask_text
from services.prompts import PromptId, PromptSpec
from thea.config import load_settings
from thea.errors import LLMTimeout
from thea.llm.local import LocalChatModel


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The llama.cpp parameters the local model loads with (a stand-in xllamacpp records them)."""
    loaded: list[Any] = []

    class Params:
        def __init__(self) -> None:
            self.model = types.SimpleNamespace(path="")
            self.cpuparams = types.SimpleNamespace(n_threads=0, poll=50)
            self.cpuparams_batch = types.SimpleNamespace(n_threads=0, poll=50)

    fake = types.SimpleNamespace(CommonParams=Params, Server=lambda params: loaded.append(params) or object())
    monkeypatch.setitem(sys.modules, "xllamacpp", fake)
    return loaded


def test_the_local_model_threads_sleep_instead_of_busy_waiting(seen: list[Any]) -> None:
    assert load_settings("embedded").llm.poll == 0
    LocalChatModel(model_path="m.gguf", poll=load_settings("embedded").llm.poll).warm_up()
    assert (seen[0].cpuparams.poll, seen[0].cpuparams_batch.poll) == (0, 0)


def test_the_local_model_uses_no_more_threads_than_it_has_cores(
    seen: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})  # e.g. taskset -c 0 thea ...
    LocalChatModel(model_path="m.gguf", threads=2).warm_up()
    assert (seen[0].cpuparams.n_threads, seen[0].cpuparams_batch.n_threads) == (1, 1)


class SlowStream(BaseChatModel):
    """Streams one token every 0.1 s for a long time; remembers whether it was stopped."""

    _stopped: list[bool] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "slow-stream"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(2.0)  # a whole generation nobody can interrupt
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="late"))])

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        try:
            for _ in range(100):
                await asyncio.sleep(0.1)
                yield ChatGenerationChunk(message=AIMessageChunk(content="x"))
        finally:
            self._stopped.append(True)


async def test_a_call_that_times_out_stops_the_generation() -> None:
    model = SlowStream()
    with pytest.raises(LLMTimeout):
        await ask_text(
            model, [HumanMessage(content="hi")], PromptSpec(PromptId.SYNTHESIS, "1"), timeout_s=0.3
        )
    assert model._stopped == [True]  # stopped at once, not after the whole generation
