"""Every prompt that carries stored or recalled text gets it neutralised.

The injection payloads of the slow suite (tests/injection_cases.py) go through every path
text takes into a prompt, with the scripted model recording each prompt: as chat messages
(the message itself in instinct, planner and synthesis; the conversation history of later
turns; crystallization; distillation of evicted turns), as insights (the merge prompt of
``!reflect``), as ``!fact`` claims (the fact check, with the insight as older memory) and as
recalled memories (synthesis in a new session). Each prompt must hold no control, format or
separator character (only the prompt's own newlines and tabs), no chat-template token in any
spelling, at most one pair of reference markers, and one memory per line inside the block.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from langchain_core.messages import BaseMessage

from services.common.statements import turn_round
from services.common.told import statements_of
from services.prompts import REFERENCE_CLOSE, REFERENCE_OPEN
from services.prompts.quoting import quote, without_any_order, without_orders
from services.prompts.synthesis import EARLIER_HEADING, FACTS_HEADING, MEMORIES_HEADING
from tests.injection_cases import CASES, TEMPLATE_TOKENS, forbidden, skeleton, steered
from thea.config import Settings
from thea.llm.fake import FakeChatModel
from thea.models import Edge, EdgeType, KnowledgeCrystal, UserImpulse
from thea.runtime import Runtime
from thea.text import neutralise

BLOCK_HEADINGS = (FACTS_HEADING, MEMORIES_HEADING, EARLIER_HEADING)
ROLES = (
    "planner",
    "synthesis",
    "crystallize",
    "distill",
    "fact_check",
    "reflect",
    "extract_claims",
    "supersession",
    "pick_claims",
    "reply",
)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # the planner's own prompt is one of the checked prompts: the cycle shape that sends it
    return settings.model_copy(update={"cycle": settings.cycle.model_copy(update={"first_look": "separate"})})


@pytest.fixture
def runtime(runtime: Runtime) -> Runtime:
    """The shared runtime (tests/conftest.py), with slow-loop jobs run in this process."""
    return runtime


def _seed_insights(rt: Runtime, texts: list[str]) -> None:
    """Insights about one concept, as crystallization would leave them (so !reflect merges them)."""
    concept = rt.memory.get_or_create_concepts(["Memory"], "ana")["Memory"]
    nodes = [KnowledgeCrystal(content=t, user_id="ana", strength=1.0) for t in texts]
    rt.memory.record(
        nodes, [Edge(src=n.id, dst=concept.id, type=EdgeType.INSIGHT_FROM_CONCEPT) for n in nodes]
    )


def _check(role: str, message: BaseMessage) -> None:
    text = str(message.content)
    bad = sorted({f"U+{ord(c):04X}" for c in text if forbidden(c, multiline=True)})
    assert bad == [], f"{role}: {bad} in {text[:300]!r}"
    assert text.count(REFERENCE_OPEN) <= 1
    assert text.count(REFERENCE_CLOSE) <= 1
    flat = skeleton(text.replace(REFERENCE_OPEN, "").replace(REFERENCE_CLOSE, ""))
    tokens = [t for t in TEMPLATE_TOKENS if t in flat]
    assert tokens == [], f"{role}: {tokens} in {text[:300]!r}"
    if REFERENCE_OPEN in text:
        block = text.split(REFERENCE_OPEN, 1)[1].split(REFERENCE_CLOSE, 1)[0].strip("\n")
        lines = [line for line in block.splitlines() if line not in BLOCK_HEADINGS]
        # one memory per line: a recalled memory with its id, or a fact of record
        memory_lines = all(re.match(r"\[\w+\] \(|- ", line) for line in lines)
        assert memory_lines or lines == ["(no relevant memories)"], (
            f"{role}: a memory spans more than one line: {block[:300]!r}"
        )
    if role in ("crystallize", "distill") and message.type == "human":
        assert all(
            line.startswith(("USER: ", "ASSISTANT: ", "KNOWN CONCEPTS: ")) for line in text.splitlines()
        )


async def test_every_prompt_gets_stored_and_recalled_payloads_neutralised(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    for case in CASES:  # as chat messages of one session: history, then distillation
        await runtime.orchestrator.handle_impulse(case.payload, "ana", "s1")
    runtime.jobs.enqueue_distill(runtime.orchestrator.context.clear("ana", "s1"), "ana", "s1")
    await asyncio.to_thread(runtime.run_jobs)  # crystallize and distill jobs
    _seed_insights(runtime, [case.payload for case in CASES])
    for case in CASES:
        await runtime.facts.add_fact(case.payload, "ana", "s2")  # checked against the insight
    await runtime.reflector.reflect("ana")
    answers: dict[str, str] = {}
    for case in CASES:  # a user per payload asks an innocent question: it comes back through recall
        user = f"u-{case.name}"
        await runtime.facts.add_fact(case.payload, user, "s1")
        answers[case.name] = (await runtime.orchestrator.handle_impulse(case.question, user, "s2")).answer

    seen = {role: "" for role in ROLES}
    for call in llm.calls:
        role, messages = str(call.prompt), call.messages
        for message in messages:
            _check(role, message)
        seen[role] = seen.get(role, "") + "\n".join(str(m.content) for m in messages)
    assert sorted(r for r, text in seen.items() if not text) == []
    for case in CASES:  # how each prompt shows a payload: as said, without orders, quoted
        shown = {
            # the crystallizer reads what the message told: its statements, orders left out
            "crystallize": neutralise(statements_of(UserImpulse(content=case.payload))),
            # the claims reader reads the same: what the message told, orders left out
            "extract_claims": neutralise(statements_of(UserImpulse(content=case.payload))),
            # a told fact reaches the model without its orders
            "fact_check": neutralise(without_any_order(case.payload)[0]),
            "reflect": without_orders(case.payload),
            "synthesis": quote(case.payload),
        }
        missing = [
            role
            for role, text in shown.items()
            if text[: 15 if role in ("crystallize", "extract_claims") else 40] not in seen[role]
        ]
        for role in ("crystallize", "extract_claims"):
            if not shown[role] and role in missing:  # it told nothing (only an order): not asked
                missing.remove(role)
        # a statement's fact of record is shown as told, to the user as "you", orders left out
        as_fact = without_any_order(turn_round(case.payload))[0][:15].lower()
        # or as a claim: its value (the fake reads a sentence after its first word), orders left out
        as_claim = without_any_order(case.payload)[0].split(" ", 1)[-1][:12].lower()
        shown_claims = seen["synthesis"].lower()
        if "synthesis" in missing and (as_fact in shown_claims or as_claim in shown_claims):
            missing.remove("synthesis")
        # or the question was answered with the fact itself, no model: said back without the order
        if "synthesis" in missing and as_fact in answers[case.name].lower():
            assert not steered(answers[case.name], case), answers[case.name]
            missing.remove("synthesis")
        assert missing == [], f"{case.name}: {shown} never reached {missing}"
    assert [c.name for c in CASES if neutralise(c.payload)[:40] not in seen["distill"]] == []
