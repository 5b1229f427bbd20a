"""A line whose answer the record holds as the name of someone the question names by relation
answers it (first contact set 13: "What's the name of my brother's new baby?" -> "I don't know",
though "They've named her Anaya" was read as Anaya, the user's "baby", and copied as the answer:
code took the answer for someone else's)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

USER = "meera"

# (what was told; the line the name was read from; the relation read, which the question names;
# what the words reader says the question asks about, in words the line does not hold; the name)
CASES = [
    pytest.param(
        "my brother Vikram and his wife just had a baby girl. They've named her Anaya",
        "They've named her Anaya",
        "baby",
        "What's the name of my brother's new baby?",
        "my brother",
        "Anaya",
        id="brother's-baby",
    ),
    pytest.param(
        "my sister had her baby on Friday! She's called Ada",
        "She's called Ada",
        "baby",
        "what's my sister's new baby called",
        "my sister",
        "Ada",
        id="sister's-baby",
    ),
    pytest.param(
        "the neighbours got a puppy last week. They called him Bruno",
        "They called him Bruno",
        "puppy",
        "What did the neighbours call their puppy?",
        "the neighbours",
        "Bruno",
        id="neighbours'-puppy",
    ),
]


@pytest.mark.parametrize(("told", "line", "relation", "question", "about", "name"), CASES)
async def test_a_name_read_as_whom_the_question_names_answers_it(
    runtime: Runtime,
    llm: FakeChatModel,
    told: str,
    line: str,
    relation: str,
    question: str,
    about: str,
    name: str,
) -> None:
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader({told: [said(line, "name", name, subject=name, relation=relation)]}),
    )
    await runtime.orchestrator.handle_impulse(f"{told}.", USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": about, "quotes": [line], "answer": name}))
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": name, "verdict": "same"}))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert asked.answer.startswith(f"{name} (you told me"), asked.answer
    assert line in asked.answer  # the user's own words, dated
    # the claims model reads the line as about someone else: nothing told answers
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": name, "verdict": "someone else"}))
    again = await runtime.orchestrator.handle_impulse(question, USER, "s3")
    assert not again.answer.startswith(name), again.answer


# (what was told, the line; the question, naming them by relation and name; what the words
# reader says it asks about (the relation only); the answer)
NAMED_BOTH_WAYS = [
    pytest.param(
        "important: kuba has peanut allergy, proper one w epipen",
        "What does my son Kuba have to stay away from in food?",
        "my son",
        "peanuts",
        id="son-by-name",
    ),
    pytest.param(
        "nadia started at the dance school on saturdays",
        "Which day does my daughter Nadia go to dance?",
        "my daughter",
        "saturdays",
        id="daughter-by-name",
    ),
    pytest.param(
        "biscuit is 7 now, getting grey round the nose",
        "How old is our dog Biscuit?",
        "our dog",
        "7",
        id="dog-by-name",
    ),
]


@pytest.mark.parametrize(("told", "question", "about", "answer"), NAMED_BOTH_WAYS)
async def test_a_line_naming_them_by_the_name_the_question_gives_is_about_them(
    runtime: Runtime, llm: FakeChatModel, told: str, question: str, about: str, answer: str
) -> None:
    """First contact set 29: "What does my son Kuba have to stay away from in food?" -> "I don't
    know": the line "kuba has peanut allergy" holds the name, not "son", and the claims model,
    asked whom it speaks of, said "Kuba" and "someone else"."""
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: []}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(PromptId.ANSWER_FROM_TOLD, json.dumps({"about": about, "quotes": [told], "answer": answer}))
    name = next(w for w in question.rstrip("?").split() if w[:1].isupper() and w.lower() in told)
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": name, "verdict": "someone else"}))
    asked = await runtime.orchestrator.handle_impulse(question, USER, "s2")
    assert asked.answer.lower().startswith(answer.lower()), asked.answer
    assert told in asked.answer  # the user's own words, dated


async def test_a_line_naming_only_a_thing_the_question_names_is_still_the_models_to_judge(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    """The question's word for a thing is no name of whom it asks about ("what did my sister say
    about the dog?" is asked of the sister; "the dog barked all night" is not about her)."""
    told = "the dog barked all night again"
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader({told: []}))
    await runtime.orchestrator.handle_impulse(told, USER, "s1")
    await asyncio.to_thread(runtime.run_jobs)
    llm.answer(
        PromptId.ANSWER_FROM_TOLD, json.dumps({"about": "my sister", "quotes": [told], "answer": "barked"})
    )
    llm.answer(PromptId.SAME_SUBJECT, json.dumps({"named": "the dog", "verdict": "someone else"}))
    asked = await runtime.orchestrator.handle_impulse("what did my sister say about the dog?", USER, "s2")
    assert not asked.answer.lower().startswith("barked"), asked.answer
    assert told not in asked.answer or "nearest" in asked.answer.lower(), asked.answer
