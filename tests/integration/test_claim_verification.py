"""An LLM verification step for strong models: per claim, only ever stricter (issue 13)."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.prompts import REFERENCE_CLOSE, REFERENCE_OPEN
from services.reflection.crystallizer import crystal_id, stated_id
from services.reflection.verification import MODEL_REASON, verification_enabled
from thea.config import Settings, load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import KnowledgeCrystal
from thea.runtime import Runtime


def script(llm: FakeChatModel, insight: str, verdicts: list[str]) -> None:
    llm.answer(PromptId.CRYSTALLIZE, json.dumps({"insight": insight, "seed": "", "tags": [], "triples": []}))
    llm.answer(PromptId.VERIFY_CLAIMS, json.dumps({"verdicts": verdicts}))


@pytest.fixture
def settings(tmp_path) -> Settings:  # type: ignore[no-untyped-def]
    return load_settings(
        "embedded", data_dir=tmp_path / "data", llm={"provider": "fake"}, knowledge={"verify_with_llm": "on"}
    )


@pytest.fixture
def runtime(runtime: Runtime) -> Runtime:
    """The shared runtime (tests/conftest.py), with slow-loop jobs run in this process."""
    return runtime


async def crystallized(rt: Runtime, text: str) -> tuple[str, KnowledgeCrystal]:
    result = await rt.orchestrator.handle_impulse(text, "priya", "s1")
    await asyncio.to_thread(rt.run_jobs)
    (found,) = rt.memory.get([crystal_id(result.impulse_id)])
    assert isinstance(found, KnowledgeCrystal)
    return result.impulse_id, found


async def test_the_model_can_reject_a_claim_the_lexical_check_let_through(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    # both claims use only the user's words; the second says something the user did not
    script(
        llm,
        "The user works on Tidewatch. The user's office is Tidewatch.\x1b[2J",
        ["supported", "unsupported"],
    )
    impulse_id, insight = await crystallized(runtime, "I work on Tidewatch from the harbour office.")
    first, second = insight.claims
    assert first.status == "supported"
    assert (second.status, second.reason) == ("unsupported", MODEL_REASON)
    assert insight.verification == "unverified"
    assert not insight.active
    assert insight.verification_reason == MODEL_REASON
    # the user's own words are still remembered
    assert runtime.memory.get([stated_id(impulse_id)])
    (prompt,) = llm.prompts_for(PromptId.VERIFY_CLAIMS)
    body = str(prompt[-1].content)
    # the evidence only inside the marked block, the claims after it, control characters gone
    block = body[body.index(REFERENCE_OPEN) : body.index(REFERENCE_CLOSE)]
    assert "I work on Tidewatch from the harbour office." in block
    assert "The user works on Tidewatch." not in block
    assert "\x1b" not in body


async def test_the_model_never_promotes_a_claim_the_lexical_check_rejected(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    script(
        llm,
        "The user works on Tidewatch. Tidewatch is a famous award-winning startup.",
        ["supported", "supported"],
    )
    _, insight = await crystallized(runtime, "I work on Tidewatch from the harbour office.")
    assert insight.verification == "unverified"
    assert [c.status for c in insight.claims] == ["supported", "unsupported"]
    (prompt,) = llm.prompts_for(PromptId.VERIFY_CLAIMS)
    assert "award-winning" not in str(prompt[-1].content)  # only the supported claim was asked about


async def test_a_failing_verifier_leaves_the_offline_verdict(runtime: Runtime, llm: FakeChatModel) -> None:
    script(llm, "The user works on Tidewatch.", [])
    llm.fail = {PromptId.VERIFY_CLAIMS}
    _, insight = await crystallized(runtime, "I work on Tidewatch from the harbour office.")
    assert insight.verification == "supported"
    assert insight.active


def test_auto_verifies_with_configured_remote_models_only() -> None:
    assert verification_enabled("auto", "openai")
    assert verification_enabled("auto", "ollama")
    assert not verification_enabled("auto", "local")
    assert not verification_enabled("auto", "fake")
    assert verification_enabled("on", "local")
    assert not verification_enabled("off", "openai")
    assert load_settings("embedded", llm={"provider": "fake"}).knowledge.verify_with_llm == "auto"
