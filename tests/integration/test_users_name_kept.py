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


# (what was told, the quote the model put on the user's name, the name it read, as what kind)
RENAMES_WITH_NO_NAME_ON_RECORD = [
    pytest.param(
        "Isla declared the name to be false advertising and ruled that a dog who lounges about like "
        "that should be called Duchess.",
        "a dog who lounges about like that should be called Duchess",
        "Duchess",
        ClaimKind.REPLACES,
        id="a-dog-renamed-by-a-grandchild",
    ),
    pytest.param(
        "The greyhound is no longer Lightning.",
        "The greyhound is no longer Lightning",
        "Lightning",
        ClaimKind.ENDS,
        id="an-old-name-no-longer",
    ),
    pytest.param(
        "the kids renamed the cat Miso at the weekend",
        "the kids renamed the cat Miso",
        "Miso",
        ClaimKind.REPLACES,
        id="a-cat-renamed-by-the-kids",
    ),
]


async def _told_as(
    runtime: Runtime, llm: FakeChatModel, told: str, quote: str, name: str, kind: ClaimKind
) -> None:
    claim = said(quote, "name", name, relation="self", kind=kind)
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({quote: [claim]}))
    await runtime.orchestrator.handle_impulse(told, USER, f"s-{name}")
    await asyncio.to_thread(runtime.run_jobs)


@pytest.mark.parametrize(("told", "quote", "name", "kind"), RENAMES_WITH_NO_NAME_ON_RECORD)
async def test_another_s_new_name_is_not_the_user_s_when_none_is_on_record(
    runtime: Runtime, llm: FakeChatModel, told: str, quote: str, name: str, kind: ClaimKind
) -> None:
    """First contact set 23: the user's introduction was lost, and "The greyhound is no longer
    Lightning. Isla declared … should be called Duchess" became "Your name: Duchess". With no name
    on record there is none of the user's to change: a change of name from a sentence with no word
    of the writer's, or one speaking of someone else, is not theirs."""
    await _told_as(runtime, llm, told, quote, name, kind)
    assert _names(runtime) == []
    asked = await runtime.orchestrator.handle_impulse("what's my name?", USER, "later")
    assert name not in asked.answer, asked.answer


async def test_a_new_name_the_user_gives_themselves_is_kept_with_none_on_record(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    await _told_as(
        runtime,
        llm,
        "we got married in June, I'm Dana Okafor now",
        "I'm Dana Okafor now",
        "Dana Okafor",
        ClaimKind.REPLACES,
    )
    assert _names(runtime) == ["Dana Okafor"]
