"""What is remembered is what the user said: grounded replacements, per-claim evidence,
promotion by later evidence, lowered confidence on contradiction (issue 13, item 1)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage

from services.crystallizer import crystal_id, stated_id
from services.insights import list_insights
from tests.fakes import ScriptedChatModel, default_responder, role_of
from thea.config import Settings
from thea.models import KnowledgeCrystal
from thea.runtime import Runtime, build_runtime
from workers.worker import run_burst

ACTRESS = {
    "insight": "Priya Ramanathan is a renowned Indian actress who works on Tidewatch.",
    "seed": "Priya Ramanathan, Tidewatch",
    "tags": ["tidewatch"],
    "triples": [],
}


def crystal_saying(crystal: dict[str, object]) -> ScriptedChatModel:
    def respond(messages: list[BaseMessage]) -> str:
        if role_of(messages) == "crystallize":
            return json.dumps(crystal)
        return default_responder(messages)

    return ScriptedChatModel(responder=respond)


@pytest.fixture
def llm() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
def runtime(settings: Settings, llm: ScriptedChatModel) -> Iterator[Runtime]:
    rt = build_runtime(settings, llm=llm)
    rt.install_worker_context()
    try:
        yield rt
    finally:
        rt.close()


async def say(rt: Runtime, text: str, user: str = "priya", session: str = "s1") -> str:
    result = await rt.orchestrator.handle_impulse(text, user, session)
    await asyncio.to_thread(run_burst, rt.jobs.connection)
    return result.impulse_id


def crystal(rt: Runtime, node_id: str) -> KnowledgeCrystal | None:
    found = rt.memory.get([node_id])
    assert not found or isinstance(found[0], KnowledgeCrystal)
    return found[0] if found else None  # type: ignore[return-value]


async def test_an_unsupported_insight_of_a_statement_is_replaced_by_the_users_own_words(
    runtime: Runtime, llm: ScriptedChatModel
) -> None:
    llm.responder = crystal_saying(ACTRESS).responder
    said = "My name is Priya Ramanathan and I work on Tidewatch."
    impulse_id = await say(runtime, said)
    invented = crystal(runtime, crystal_id(impulse_id))
    assert invented is not None
    assert invented.verification == "unverified"  # the invention stays, with its reason
    assert not invented.active
    assert "actress" in invented.verification_reason
    stated = crystal(runtime, stated_id(impulse_id))
    assert stated is not None
    assert stated.content == "The user's name is Priya Ramanathan and the user works on Tidewatch."
    assert stated.active
    assert stated.verification == "supported"
    assert [(e.source_id, e.quote) for e in stated.evidence] == [(impulse_id, said)]
    active = list_insights(runtime.memory, user_id="priya", state="active")
    assert [r.insight.id for r in active] == [stated.id]
    assert "tidewatch" in {c.lower() for c in active[0].concepts} or active[0].concepts == []
    later = await runtime.orchestrator.handle_impulse("What is my name?", "priya", "s2")
    assert stated.id in later.recalled_ids  # remembered and recallable
    assert invented.id not in later.recalled_ids


async def test_a_supported_insight_gets_no_restated_twin(runtime: Runtime, llm: ScriptedChatModel) -> None:
    llm.responder = crystal_saying(
        {"insight": "The user's name is Priya Ramanathan.", "seed": "", "tags": [], "triples": []}
    ).responder
    impulse_id = await say(runtime, "My name is Priya Ramanathan.")
    assert crystal(runtime, crystal_id(impulse_id)) is not None
    assert crystal(runtime, stated_id(impulse_id)) is None


async def test_each_claim_carries_its_own_status_evidence_and_reason(
    runtime: Runtime, llm: ScriptedChatModel
) -> None:
    llm.responder = crystal_saying(
        {
            "insight": "The user works on Tidewatch. Tidewatch is a famous award-winning startup.",
            "seed": "",
            "tags": [],
            "triples": [],
        }
    ).responder
    said = "I work on Tidewatch at the harbour office."
    impulse_id = await say(runtime, said)
    insight = crystal(runtime, crystal_id(impulse_id))
    assert insight is not None
    assert insight.verification == "unverified"  # one claim fails: the insight is unverified
    first, second = insight.claims
    assert (first.text, first.status) == ("The user works on Tidewatch.", "supported")
    assert [(e.source_id, e.quote) for e in first.evidence] == [(impulse_id, said)]
    assert second.status == "unsupported"
    assert "award" in second.reason
    assert "famous" in second.reason
    assert insight.verification_reason == second.reason
