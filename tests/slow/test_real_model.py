"""The default path with the real offline model (Qwen2.5-Coder-0.5B GGUF via xllamacpp).

Slow (model load + CPU inference): run with ``python -m pytest -m slow``.
"""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage

from services.reflection.crystallizer import crystal_id
from tests.graph_reads import asserted, cycle_props
from thea.errors import LLMError
from thea.models import KnowledgeCrystal, TaskStatus
from thea.runtime import Runtime

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


async def test_the_real_model_answers_from_memory(runtime: Runtime) -> None:
    first = await runtime.orchestrator.handle_impulse(
        "My name is Ana and I work on Redis queues.", "ana", "s1"
    )
    assert first.answer.strip()
    # a new session: the answer must come from long-term memory, not the conversation cache
    second = await runtime.orchestrator.handle_impulse("What do I work on?", "ana", "s2")
    assert first.impulse_id in second.recalled_ids or any(second.recalled_ids)
    assert "redis" in second.answer.lower(), second.answer
    assert second.failed_steps == []


async def test_the_real_model_crystallizes_a_cycle_with_concepts(runtime: Runtime) -> None:
    cycle = await runtime.orchestrator.handle_impulse(
        "Caching -> lower latency. I use Redis for caching.", "ana", "s3"
    )
    await asyncio.to_thread(runtime.run_jobs)  # jobs run outside the event loop
    found = runtime.memory.get([crystal_id(cycle.impulse_id)])
    assert found, "no crystal after the crystallize job"
    crystal = found[0]
    assert isinstance(crystal, KnowledgeCrystal)
    assert len(crystal.content) >= 3
    assert ("Caching", "CAUSES", "lower latency") in set(asserted(runtime.memory, crystal.id))
    reports = [
        r
        for r in cycle_props(runtime.memory, cycle.impulse_id)
        if r["type"] == "Report" and r["step"] == "crystallize"
    ]
    assert [r["status"] for r in reports] == [TaskStatus.SUCCESS.value]
    assert reports[0]["tokens_out"] > 0


async def test_streamed_answers_arrive_in_pieces_and_count_tokens(runtime: Runtime) -> None:
    pieces: list[str] = []
    result = await runtime.orchestrator.handle_impulse(
        "Say hello to me.", "ana", "s4", on_token=pieces.append
    )
    assert len(pieces) > 1
    assert "".join(pieces).strip() == result.answer.strip()
    report = next(
        r
        for r in cycle_props(runtime.memory, result.impulse_id)
        if r["type"] == "Report" and r["step"] == "synthesis"
    )
    assert report["tokens_out"] > 0  # usage comes in the stream's last chunk


def test_a_prompt_longer_than_the_window_is_a_clear_model_error(runtime: Runtime) -> None:
    # streamed (every text step streams): llama.cpp's refusal must reach the caller, not an
    # empty stream that LangChain reports as "No generation chunks were returned"
    with pytest.raises(LLMError, match=r"exceeds the available context size"):
        for _ in runtime.llm.stream([HumanMessage(content="word " * 6000)]):
            pass


def test_the_whole_conversation_baseline_fits_the_real_models_window(runtime: Runtime) -> None:
    # benchmarks/locomo_qa.py's whole-conversation baseline once sent ~6k tokens to a 4,096-token
    # window and failed every question; counted on the rendered prompt it fits the real tokenizer
    from benchmarks.locomo_data import default_data, load_conversations
    from benchmarks.locomo_qa import ConversationRun, RunConfig
    from services.prompts import synthesis as answer_prompt

    data = default_data()
    if not data.is_file():
        pytest.skip(f"needs the LoCoMo development data ({data}), kept beside the checkout")
    conv = load_conversations(data)[0]
    run = ConversationRun(conv, runtime.settings, runtime.llm, RunConfig(max_answer_tokens=8))
    refs = run.whole_conversation("What did they talk about last?")
    assert len(refs) > 20
    reply = runtime.llm.invoke(answer_prompt.build("What did they talk about last?", refs), max_tokens=8)
    assert reply.usage_metadata
    assert reply.usage_metadata["input_tokens"] <= runtime.settings.llm.context_window
