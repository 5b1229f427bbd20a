"""The user's name is never replaced by someone else's new name that the model put on them (first
contact set 13 and a probe: the 1.5B read each of six renames of a pet or a child, "we renamed
him Mr Biscuit", as the user's own name, and the user's name was replaced). A name the user gives
themselves still changes it."""

from __future__ import annotations

import asyncio

import pytest

from services.prompts.extract_claims import ClaimKind
from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "dana"

# (what was told, the quote the model put on the user's name, the name it read)
RENAMES = [
    pytest.param(
        "the rescue pup came as Rex but we renamed him Mr Biscuit",
        "we renamed him Mr Biscuit",
        "Mr Biscuit",
        id="pet",
    ),
    pytest.param("our eldest is Robert but he goes by Bobby now", "he goes by Bobby now", "Bobby", id="son"),
    pytest.param(
        "the cat was called Pumpkin at the shelter, I call her Miso now",
        "I call her Miso now",
        "Miso",
        id="cat-with-I",
    ),
]


async def _tell(runtime: Runtime, llm: FakeChatModel, told: str, quote: str, name: str) -> None:
    claim = said(quote, "name", name, relation="self", kind=ClaimKind.REPLACES)
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({quote: [claim]}))
    await runtime.orchestrator.handle_impulse(told, USER, f"s-{name}")
    await asyncio.to_thread(runtime.run_jobs)


def _names(runtime: Runtime) -> list[str]:
    facts = runtime.memory.facts.facts_of_record(USER, current_only=True, limit=50)
    return sorted(f.value or "" for f in facts if f.subject_key == "user" and f.attribute == "name")


@pytest.mark.parametrize(("told", "quote", "name"), RENAMES)
async def test_another_s_new_name_never_replaces_the_user_s(
    runtime: Runtime, llm: FakeChatModel, told: str, quote: str, name: str
) -> None:
    await _tell(runtime, llm, "hi, I'm Dana", "I'm Dana", "Dana")
    assert _names(runtime) == ["Dana"]
    await _tell(runtime, llm, told, quote, name)
    assert _names(runtime) == ["Dana"]
    asked = await runtime.orchestrator.handle_impulse("what's my name?", USER, "later")
    assert name not in asked.answer, asked.answer


async def test_a_name_the_user_gives_themselves_still_changes_it(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    await _tell(runtime, llm, "hi, I'm Dana", "I'm Dana", "Dana")
    await _tell(
        runtime, llm, "we got married in June, I'm Dana Okafor now", "I'm Dana Okafor now", "Dana Okafor"
    )
    assert _names(runtime) == ["Dana Okafor"]
