"""A question about the user in words no claim holds is matched with the claims on what it asks
about in the model's words (first contact, set 20: "Which ingredient could trigger a serious
reaction for me?" -> "I don't know", the model reading it as about "my allergies", with "Your
allergy: peanut" on record: no word of the question matched the claim, so it was never shown)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.claims_support import picks_line_with, said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "thandi"

# (what was told; the claim read from it: quote, attribute, value; the question, in words the
# claim does not hold; what the model says it asks about)
CASES = [
    pytest.param(
        "heads up, i've got a peanut allergy, like proper epipen level",
        ("i've got a peanut allergy", "allergy", "peanut"),
        "Which ingredient could trigger a serious reaction for me?",
        "my allergies",
        id="allergy",
    ),
    pytest.param(
        "so these days I'm a teacher's assistant in a grade 2 classroom",
        ("I'm a teacher's assistant", "job", "teacher's assistant"),
        "What keeps me busy on weekdays these days?",
        "my job",
        id="job",
    ),
    pytest.param(
        "we just got a flat in Observatory, the mountain views r lekker",
        ("we just got a flat in Observatory", "home", "Observatory"),
        "Which neighbourhood am I in now?",
        "my home",
        id="home",
    ),
]


@pytest.mark.parametrize(("told", "claim", "question", "about"), CASES)
async def test_the_claims_are_matched_on_what_the_question_asks_about_in_the_models_words(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    claim: tuple[str, str, str],
    question: str,
    about: str,
) -> None:
    quote, attribute, value = claim
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: [said(quote, attribute, value)]}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.QUESTION_SCOPE, json.dumps({"about": about, "known": "the user's own"}))
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [], "answer": ""}))
    llm.answer(PromptId.PICK_CLAIMS, '{"facts": [1]}')
    llm.calls.clear()
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    shown = llm.prompts_for(PromptId.PICK_CLAIMS)
    assert shown, "the claims were never shown to the pick"
    assert f": {value}." in str(shown[-1][-1].content)
    assert value in asked.answer, asked.answer
    assert "don't know" not in asked.answer


@pytest.mark.parametrize(
    "question",
    [
        "What do I do for a living nowadays?",
        "what's my line of work these days?",
        "where am I working at present?",
    ],
)
async def test_a_question_the_model_reads_as_about_the_user_is_never_answered_with_anothers_claim(
    runtime: Runtime, llm: FakeChatModel, question: str
) -> None:
    """First contact, set 20: "What do I do for a living nowadays?" -> "Naledi (your sister), job:
    law student.", the words reader having read it as about "me" (the user's job was closed by
    a misreading, so only the sister's matched)."""
    told = "my sis Naledi is studying law at ukzn, and I live in Durban"
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                told: [
                    said(
                        "my sis Naledi is studying law",
                        "job",
                        "law student",
                        subject="Naledi",
                        relation="sister",
                    ),
                    said("I live in Durban", "home", "Durban"),
                ]
            }
        ),
    )
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "me", "quotes": [], "answer": ""}))
    llm.answer(PromptId.PICK_CLAIMS, picks_line_with("law student"))
    llm.calls.clear()
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert "law student" not in asked.answer, asked.answer
    assert "Naledi" not in asked.answer
    for shown in llm.prompts_for(PromptId.PICK_CLAIMS):
        assert "law student" not in str(shown[-1].content)

    # asked about her, read as about her: her claim answers
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "my sister", "quotes": [], "answer": ""}))
    theirs = await runtime.orchestrator.handle_impulse("What does my sister do these days?", USER, "s3")
    assert "law student" in theirs.answer, theirs.answer


# (what was told; its claim: quote, attribute, value, subject, relation; the question; whom the
# words reader reads it as about; whether the claims model reads the claim as about them)
PICKED_OF_SOMEONE = [
    pytest.param(
        "we have a ginger cat called Mango",
        ("we have a ginger cat called Mango", "cat", "Mango", "user", "self"),
        "What's my sister called?",
        "my sister",
        False,
        id="a-sister-never-told",
    ),
    pytest.param(
        "I'm a pharmacist at the Boots in Leicester",
        ("I'm a pharmacist at the Boots in Leicester", "workplace", "Boots", "user", "self"),
        "Where does my husband work?",
        "my husband",
        False,
        id="a-husband-never-told",
    ),
    pytest.param(
        "my little brother Liam turned 17 on Sunday",
        ("my little brother Liam turned 17", "age", "17", "Liam", "brother"),
        "How old is my younger sibling?",
        "my younger sibling",
        True,
        id="a-brother-asked-as-a-sibling",
    ),
]


@pytest.mark.parametrize(("told", "claim", "question", "about", "same"), PICKED_OF_SOMEONE)
async def test_a_claim_picked_for_someone_it_never_names_answers_only_when_it_speaks_of_them(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    claim: tuple[str, str, str, str, str],
    question: str,
    about: str,
    same: bool,
) -> None:
    """A live trial (Chromium, real models): "What's my sister called?", nobody's sister ever
    told, got "Your cat: Mango.": the words reader read it as about "my sister", the pick chose
    the cat among the claims shown, and the answer check let it through. A claim chosen that holds
    no word of whom the question asks about answers only when the claims model reads it as
    speaking of them in other words ("Liam (your brother)" for "my younger sibling")."""
    quote, attribute, value, subject, relation = claim
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader({told: [said(quote, attribute, value, subject=subject, relation=relation)]}),
    )
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": about, "quotes": [], "answer": ""}))
    llm.answer(PromptId.PICK_CLAIMS, '{"facts": [1]}')
    verdict = "same" if same else "someone else"
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": subject, "verdict": verdict}))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert llm.prompts_for(PromptId.PICK_CLAIMS), "the claims were never shown to the pick"
    if same:
        assert value in asked.answer, asked.answer
    else:
        assert value not in asked.answer, asked.answer
        assert "don't know" in asked.answer or "not sure" in asked.answer, asked.answer


async def test_a_claim_about_someone_named_by_a_relation_told_elsewhere_is_not_asked_whom_it_names(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    """First contact set 20, re-run: "What position did my cousin just land?" -> "I don't know",
    with "sipho, job: field ranger" read from "sipho just got hired as a field ranger" (the
    cousin told as "me n my cousin sipho" in another message): the claim's line alone cannot say
    Sipho is the cousin, so a claim about someone else is never dropped by whom it names."""
    told = "sipho just got hired as a field ranger near Kruger!!"
    claim = said(
        "sipho just got hired as a field ranger", "job", "field ranger", subject="Sipho", relation=""
    )
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: [claim]}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "my cousin", "quotes": [], "answer": ""}))
    llm.answer(PromptId.PICK_CLAIMS, '{"facts": [1]}')
    asked = await runtime.orchestrator.handle_impulse("What position did my cousin just land?", USER, "s2")
    assert "field ranger" in asked.answer, asked.answer
