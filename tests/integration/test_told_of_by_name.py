"""What the user said of someone by name reaches the answer when the question asks about them
in other words (first contact, set 17: "How many years old is my dog, really?" -> "Eleven",
from the message that introduced Tango; the correction "I told you Tango was eleven, but … he is
in fact thirteen" holds no word of "my dog" nor its meaning, and recall never found it)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from tests.claims_support import said, scripted_reader
from thea.llm.fake import FakeCall, FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

# (the message naming them first, their name and relation, what was said of them later by name
# only, read by the claims model as the user's (as the 1.5B did), the question, the answer)
CASES = [
    pytest.param(
        "I live alone now, apart from my dog Tango, an old mixed-breed who follows me everywhere.",
        ("Tango", "dog"),
        "I told you Tango was eleven, but I found the booklet and he is in fact thirteen.",
        "How many years old is my dog, really?",
        "thirteen",
        id="dog-age",
    ),
    pytest.param(
        "My brother Ruairi lives out in Galway with his wife.",
        ("Ruairi", "brother"),
        "Big news from Ruairi last night, they bought a house in Athenry!",
        "where's my brother living these days",
        "Athenry",
        id="brother-home",
    ),
    pytest.param(
        "Our daughter Maite is in her second year at school.",
        ("Maite", "daughter"),
        "Maite lost her first tooth today and is very proud of the gap.",
        "what happened to my little girl's teeth?",
        "lost her first tooth",
        id="daughter-tooth",
    ),
]


@pytest.mark.parametrize(("first", "who", "later", "question", "answer"), CASES)
async def test_what_was_said_of_someone_by_name_is_read_for_a_question_naming_them_otherwise(
    runtime: Runtime,
    llm: FakeChatModel,
    first: str,
    who: tuple[str, str],
    later: str,
    question: str,
    answer: str,
) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    name, relation = who
    script = {
        first: [said(first, "name", name, subject=name, relation=relation)],
        later: [said(later, "event", answer)],  # the misreading: put on the user
    }
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(script))
    await runtime.orchestrator.handle_impulse(first, user, "s1")
    # small talk in between, so the later message is not the newest one
    for filler in ("It rained all day here.", "Work was busy, as usual.", "I made soup for dinner."):
        await runtime.orchestrator.handle_impulse(filler, user, "s1")
    await runtime.orchestrator.handle_impulse(later, user, "s2")
    for filler in ("The garden needs weeding.", "I watched a film about whales."):
        await runtime.orchestrator.handle_impulse(filler, user, "s2")
    await asyncio.to_thread(runtime.run_jobs)
    shown: list[str] = []

    def copy(call: FakeCall) -> str:
        shown.append(str(call.messages[-1].content))
        copied = [answer] if answer in str(call.messages[-1].content) else []
        return json.dumps({"about": relation, "quotes": copied, "answer": answer if copied else ""})

    llm.answer(PromptId.ANSWER_FROM_TOLD, copy)
    asked = await runtime.orchestrator.handle_impulse(question, user, "s3")
    assert shown, asked.answer
    assert later.split(",")[0].split("!")[0][:30] in shown[0], shown[0]
    assert answer.lower() in asked.answer.lower(), asked.answer


async def test_the_messages_naming_someone_are_theirs_newest_first_by_whole_word(runtime: Runtime) -> None:
    user, other = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    told = [
        "My friend Al runs the bakery on Mill Road.",
        "I also started pottery classes.",  # "Al" is no word of "also"
        "Al and his wife are expecting twins!",
        "Can Al come to dinner on Friday?",  # a question tells nothing
    ]
    for text in told:
        await runtime.orchestrator.handle_impulse(text, user, "s1")
    await runtime.orchestrator.handle_impulse("Al is my cousin, he lives in Cork.", other, "s1")
    found = runtime.memory.facts.statements_naming(user, ["Al"], 5)
    assert [m.content for m in found] == [told[2], told[0]]
    assert runtime.memory.facts.statements_naming(user, ["Al"], 1) == found[:1]
    assert runtime.memory.facts.statements_naming(user, ["Mill Road"], 5)[0].content == told[0]
    assert runtime.memory.facts.statements_naming(user, [], 5) == []
