"""Worst-case messages cost a bounded amount of graph, vectors and prompt (services/common/limits.py).

Each message is as long as a message may be (200,000 characters) and shaped to be expensive:
a ``~`` chain of tens of thousands of names, thousands of ``a::b`` and ``a -> b`` lines,
thousands of distinct capitalised words, one giant word, CJK text. It goes through the real
cycle and the real crystallize job (or ``!fact``) on the embedded engines; what it wrote is
counted. Before the caps, 1,000 names in a 4.9 kB ``!fact`` wrote 500,500 edges, and a chain
of 4,000 names in a message ran the crystallize job out of memory.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from services.common.limits import (
    DOCUMENT_CHUNK_CHARS,
    MAX_CRYSTAL_CONCEPTS,
    MAX_FACT_CONCEPTS,
    MAX_LINKED_CONCEPTS,
    MAX_NOTATION_TRIPLES,
)
from services.common.tokens import estimate_tokens
from thea.llm.fake import FakeChatModel
from thea.memory.universal import MAX_CHUNKS
from thea.models import CONCEPT_RELATIONS, Collection, UserImpulse
from thea.runtime import Runtime
from thea.runtime.assembly import prompt_tokens
from thea.runtime.commands import ChatSession, run_command
from workers import jobs
from workers.context import running

LIMIT = 200_000


def _fill(parts: list[str]) -> str:
    return "\n".join(parts)[:LIMIT]


WORST = {
    "tilde chain": "~".join(f"c{i}" for i in range(LIMIT // 4))[:LIMIT],
    "mixed": _fill(
        [f"a{i}::b{i}" for i in range(4000)]
        + [f"x{i} -> y{i}" for i in range(4000)]
        + [" ".join(f"Word{i}x{j}" for j in range(40)) for i in range(100)]
        + ["Z" + "z" * 30_000, "中文" * 10_000]
        + [f"p{i}~q{i}~r{i}~s{i}~t{i}~u{i}~v{i}~w{i}" for i in range(2000)]
    ),
}


def _count(rt: Runtime) -> dict[str, int]:
    counts = rt.memory.graph.count_by_type()
    relations = sum(
        int(r["n"])
        for rel in CONCEPT_RELATIONS
        for r in rt.memory.graph._execute(  # type: ignore[attr-defined]
            f"MATCH (:Concept)-[r:{rel.value}]->(:Concept) RETURN count(r) AS n"
        )
    )
    return {"edges": counts["edges"], "concepts": counts.get("Concept", 0), "relations": relations}


def _points_of(rt: Runtime, node_id: str, collection: Collection = Collection.EXPERIENCE) -> int:
    points, cursor = 0, None
    while True:
        ids, cursor = rt.memory.vectors.scan_node_ids(collection, cursor, 1000)
        points += ids.count(node_id)
        if cursor is None:
            return points


def _longest_prompt_message(llm: FakeChatModel) -> int:
    return max(
        estimate_tokens(str(m.content)) for c in llm.calls for m in c.messages if isinstance(m, HumanMessage)
    )


@pytest.mark.parametrize("shape", list(WORST))
async def test_a_worst_case_message_through_the_cycle_and_the_crystallize_job_stays_within_the_caps(
    runtime: Runtime, llm: FakeChatModel, shape: str
) -> None:
    text = WORST[shape]
    assert len(text) == LIMIT
    before = _count(runtime)
    result = await runtime.orchestrator.handle_impulse(text, "ana", "s1")
    assert result.failed_steps == []
    with running(runtime.worker_context):  # the job as a worker runs it (to_thread copies the context)
        out: dict[str, Any] = await asyncio.to_thread(jobs.crystallize, result.impulse_id)
    after = _count(runtime)

    concepts = after["concepts"] - before["concepts"]
    relations = after["relations"] - before["relations"]
    assert concepts <= MAX_LINKED_CONCEPTS + MAX_CRYSTAL_CONCEPTS, concepts
    assert len(out["concepts"]) <= MAX_CRYSTAL_CONCEPTS
    # triples kept: at most every pair of the crystal's concepts, and never more than the notation cap
    assert relations <= min(MAX_NOTATION_TRIPLES + 6, MAX_CRYSTAL_CONCEPTS * (MAX_CRYSTAL_CONCEPTS - 1))
    # stored whole, as a document: its chunks joined are the message
    (impulse,) = runtime.memory.get([result.impulse_id])
    assert isinstance(impulse, UserImpulse)
    assert impulse.document_id is not None
    chunks = runtime.memory.document_chunks(impulse.document_id, "ana")
    assert "".join(c.content for c in chunks) == text
    assert len(chunks) <= 2 * LIMIT // DOCUMENT_CHUNK_CHARS
    # the whole cycle (4 tasks, 4 reports, plan, answer, links), the crystal, and one edge per
    # chunk and one to the document
    edges = after["edges"] - before["edges"] - len(chunks) - 1
    assert edges <= 60 + 3 * relations, edges
    assert 1 <= _points_of(runtime, result.impulse_id) <= MAX_CHUNKS
    # every prompt carried at most its share of the context window (plus the system text)
    budget = prompt_tokens(runtime.settings)
    assert _longest_prompt_message(llm) <= budget + 400
    # and so does the conversation cache that feeds the next prompts
    question = runtime.orchestrator.context.exchanges("ana", "s1")[0].question
    assert estimate_tokens(question) <= budget + 20


async def test_a_fact_with_a_thousand_names_writes_a_bounded_number_of_edges(runtime: Runtime) -> None:
    """The issue's case: a 4.9 kB `!fact` with 1,000 names wrote 500,500 edges (53 s, 1.9 GB)."""
    chat = ChatSession("ana", "s1")
    text = "~".join(f"n{i}" for i in range(1000))[:4900]
    before = _count(runtime)
    await run_command(runtime, chat, f"!fact {text}")
    after = _count(runtime)
    assert after["concepts"] - before["concepts"] <= MAX_FACT_CONCEPTS
    assert after["relations"] - before["relations"] <= MAX_NOTATION_TRIPLES
    assert after["edges"] - before["edges"] <= MAX_NOTATION_TRIPLES + MAX_FACT_CONCEPTS


@pytest.mark.parametrize("shape", list(WORST))
async def test_a_worst_case_fact_stays_within_the_caps(runtime: Runtime, shape: str) -> None:
    before = _count(runtime)
    result = await run_command(runtime, ChatSession("ana", "s1"), "!fact " + WORST[shape][: LIMIT - 6])
    after = _count(runtime)
    assert after["concepts"] - before["concepts"] <= MAX_FACT_CONCEPTS
    assert after["relations"] - before["relations"] <= MAX_NOTATION_TRIPLES
    assert after["edges"] - before["edges"] <= MAX_NOTATION_TRIPLES + MAX_FACT_CONCEPTS
    assert 1 <= _points_of(runtime, result.data["fact_id"]) <= MAX_CHUNKS
