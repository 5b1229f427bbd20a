"""A health or diet claim the reader did not read as a change adds to the user's constraints:
the supersession model's "replaces" never closes one (first contact set 13, then live: "I'm
vegan as well these days" closed "no gluten", and the coeliac user's requests stopped minding
it). A change the reader read as one still closes it, and other labels stay the model's to judge."""

from __future__ import annotations

import asyncio

import pytest

from services.prompts.extract_claims import ClaimKind
from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "kai"

# (first told, its claim; then told, its claim; both under one constraint label)
CASES = [
    pytest.param(
        "I was diagnosed coeliac in March, so no gluten for me",
        ("no gluten for me", "diet", "no gluten"),
        "I'm vegan as well these days",
        ("I'm vegan as well these days", "diet", "vegan"),
        id="diet",
    ),
    pytest.param(
        "I'm allergic to peanuts",
        ("allergic to peanuts", "allergy", "peanuts"),
        "turns out shellfish does it to me too",
        ("shellfish does it to me too", "allergy", "shellfish"),
        id="allergy",
    ),
    pytest.param(
        "I take sertraline every morning",
        ("I take sertraline", "medication", "sertraline"),
        "taking ibuprofen for my knee this week",
        ("taking ibuprofen for my knee", "medication", "ibuprofen"),
        id="medication",
    ),
]


async def _tell(
    runtime: Runtime, llm: FakeChatModel, told: str, claim: tuple[str, str, str], **kw: ClaimKind
) -> None:
    quote, attribute, value = claim
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: [said(quote, attribute, value, **kw)]}))
    await runtime.orchestrator.handle_impulse(told, USER, f"s-{value}")
    await asyncio.to_thread(runtime.run_jobs)


def _current(runtime: Runtime) -> list[str]:
    return sorted(
        f.value or "" for f in runtime.memory.facts.facts_of_record(USER, current_only=True, limit=50)
    )


@pytest.mark.parametrize(("first", "first_claim", "then", "then_claim"), CASES)
async def test_a_new_constraint_beside_an_old_one_adds_to_it_whatever_the_judge_says(
    runtime: Runtime,
    llm: FakeChatModel,
    first: str,
    first_claim: tuple[str, str, str],
    then: str,
    then_claim: tuple[str, str, str],
) -> None:
    llm.answer(PromptId.SUPERSESSION, '{"decision": "replaces"}')  # the 1.5B's reading of these pairs
    await _tell(runtime, llm, first, first_claim)
    await _tell(runtime, llm, then, then_claim)
    assert _current(runtime) == sorted([first_claim[2], then_claim[2]])


async def test_a_constraint_read_as_changed_is_closed_and_other_labels_are_still_judged(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.SUPERSESSION, '{"decision": "replaces"}')
    await _tell(runtime, llm, "I'm vegan", ("I'm vegan", "diet", "vegan"))
    await _tell(
        runtime,
        llm,
        "I eat fish again now, pescatarian",
        ("I eat fish again now, pescatarian", "diet", "pescatarian"),
        kind=ClaimKind.REPLACES,
    )
    assert _current(runtime) == ["pescatarian"]
    await _tell(runtime, llm, "I live in Bristol", ("I live in Bristol", "home", "Bristol"))
    await _tell(runtime, llm, "our place in Bath is lovely", ("our place in Bath", "home", "Bath"))
    assert _current(runtime) == ["Bath", "pescatarian"]
