"""`!` commands of the chat: facts and beliefs, forgetting, feedback, reflection."""

from __future__ import annotations

import json

import pytest

from services.recall.cascade import RecallService
from services.recall.types import RecallQuery
from tests.graph_reads import asserted
from thea.errors import InputError, NotFoundError
from thea.llm.fake import FakeCall, FakeChatModel, Handler, count_memories
from thea.llm.prompt_ids import PromptId
from thea.models import EdgeType, Fact, KnowledgeCrystal
from thea.runtime import Runtime
from thea.runtime.commands import ChatSession, run_command


@pytest.fixture
def chat() -> ChatSession:
    return ChatSession(user_id="ana", session_id="s1")


def verdicts(value: str) -> Handler:
    """A fact check that gives every memory it is shown this verdict."""

    def respond(call: FakeCall) -> str:
        return json.dumps({"verdicts": [value] * count_memories(call.messages)})

    return respond


async def test_fact_is_stored_with_provenance_and_a_neutral_confidence(
    runtime: Runtime, chat: ChatSession
) -> None:
    result = await run_command(runtime, chat, "!fact Ana::vegetarian")
    fact = runtime.memory.get([result.data["fact_id"]])[0]
    assert isinstance(fact, Fact)
    assert (fact.attribute, fact.value, fact.quote) == ("note", "Ana::vegetarian", "Ana::vegetarian")
    assert fact.source == "ana"
    assert fact.valid_from is not None
    assert 0.0 < fact.confidence < 1.0  # estimated, never blindly "verified"
    assert asserted(runtime.memory, fact.id) == [("Ana", "IS_A", "vegetarian")]
    with pytest.raises(InputError, match="usage"):
        await run_command(runtime, chat, "!fact   ")


async def test_agreement_raises_confidence(runtime: Runtime, chat: ChatSession, llm: FakeChatModel) -> None:
    first = await run_command(runtime, chat, "!fact Ana drinks green tea every morning")
    llm.answer(PromptId.FACT_CHECK, verdicts("agrees"))
    second = await run_command(runtime, chat, "!fact Every morning Ana drinks green tea")
    assert second.data["agreed"] == [first.data["fact_id"]]
    assert second.data["confidence"] > first.data["confidence"]


async def test_contradiction_supersedes_the_old_fact_but_keeps_its_history(
    runtime: Runtime, chat: ChatSession, llm: FakeChatModel
) -> None:
    old = await run_command(runtime, chat, "!fact Ana::vegetarian")
    old_id = old.data["fact_id"]
    llm.answer(PromptId.FACT_CHECK, verdicts("contradicts"))
    llm.answer(PromptId.SUPERSESSION, '{"decision": "replaces"}')  # the model compares the two
    new = await run_command(runtime, chat, "!fact Ana is not a vegetarian anymore, Ana::meat eater")
    assert new.data["superseded"] == [old_id]
    old_fact = runtime.memory.get([old_id])[0]
    assert isinstance(old_fact, Fact)
    assert old_fact.valid_until is not None  # kept, but no longer valid
    relation = runtime.memory.insight_views.relations_by_source(old_id)[0]
    assert relation.valid_until is not None
    lineage = runtime.memory.neighbourhood(new.data["fact_id"], 1, [EdgeType.SUPERSEDES])
    assert old_id in {n.id for n in lineage.nodes}
    hits = (
        await RecallService(runtime.memory).recall(RecallQuery(texts=["is Ana vegetarian"], user_id="ana"))
    ).hits
    ids = [h.id for h in hits]
    assert old_id not in ids
    assert new.data["fact_id"] in ids


async def test_forget_archives_a_memory_so_recall_skips_it(runtime: Runtime, chat: ChatSession) -> None:
    crystal = KnowledgeCrystal(content="Ana's cat is called Miso.", user_id="ana")
    runtime.memory.record([crystal])
    query = RecallQuery(texts=["what is the name of Ana's cat"], user_id="ana")
    assert crystal.id in [h.id for h in (await RecallService(runtime.memory).recall(query)).hits]
    result = await run_command(runtime, chat, f"!forget {crystal.id[:8]}")
    assert "forgot insight" in result.text
    assert crystal.id not in [h.id for h in (await RecallService(runtime.memory).recall(query)).hits]
    stored = runtime.memory.get([crystal.id])[0]
    assert getattr(stored, "active", None) is False  # archived, not deleted
    with pytest.raises(NotFoundError):
        await run_command(runtime, ChatSession(user_id="bob", session_id="s2"), f"!forget {crystal.id[:8]}")


async def test_forget_deletes_a_fact_for_good_with_its_words_in_the_message(
    runtime: Runtime, chat: ChatSession, llm: FakeChatModel
) -> None:
    import asyncio

    from tests.claims_support import said, scripted_reader

    told = "My PIN is 4471 and my cat is Miso."
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {"4471": [said("My PIN is 4471", "PIN", "4471"), said("my cat is Miso", "cat", "Miso")]}
        ),
    )
    impulse = (await runtime.orchestrator.handle_impulse(told, "ana", "s1")).impulse_id
    await asyncio.to_thread(runtime.run_jobs)
    facts = {f.value: f for f in runtime.memory.facts.facts_of_record("ana", current_only=True, limit=10)}
    result = await run_command(runtime, chat, f"!forget {facts['4471'].id[:8]}")
    assert "deleted" in result.text
    assert runtime.memory.get([facts["4471"].id]) == []  # gone, not archived
    (message,) = runtime.memory.get([impulse])
    assert "4471" not in message.content
    assert "my cat is Miso" in message.content
    assert [f.value for f in runtime.memory.facts.facts_of_record("ana", current_only=True, limit=10)] == [
        "Miso"
    ]


async def test_good_and_bad_need_an_answer_and_reweight_what_it_recalled(
    runtime: Runtime, chat: ChatSession
) -> None:
    with pytest.raises(NotFoundError, match="no answer"):
        await run_command(runtime, chat, "!good")
    crystal = KnowledgeCrystal(content="Ana works on Redis queues.", user_id="ana")
    runtime.memory.record([crystal])
    cycle = await runtime.orchestrator.handle_impulse("What do I work on with Redis queues?", "ana", "s1")
    assert crystal.id in cycle.recalled_ids
    good = await run_command(runtime, chat, "!good")
    assert good.data["changed"] == [crystal.id]
    stronger = runtime.memory.get([crystal.id])[0]
    assert isinstance(stronger, KnowledgeCrystal)
    assert stronger.strength == 1.5
    assert "already" in (await run_command(runtime, chat, "!good")).text
    await run_command(runtime, chat, "!bad")
    weaker = runtime.memory.get([crystal.id])[0]
    assert isinstance(weaker, KnowledgeCrystal)
    assert weaker.strength == 0.5


async def test_reflect_command_reports_what_it_merged(runtime: Runtime, chat: ChatSession) -> None:
    concepts = runtime.memory.get_or_create_concepts(["Redis", "queues"], "ana")
    from thea.models import Edge

    crystals = [
        KnowledgeCrystal(content=t, user_id="ana") for t in ("Redis queues are fast.", "Queues in Redis.")
    ]
    edges = [
        Edge(src=k.id, dst=c.id, type=EdgeType.INSIGHT_FROM_CONCEPT)
        for k in crystals
        for c in concepts.values()
    ]
    runtime.memory.record(crystals, edges)
    runtime.start_background_worker()
    result = await run_command(runtime, chat, "!reflect")
    assert "1 merged" in result.text
    assert "2 archived" in result.text
    help_text = (await run_command(runtime, chat, "!help")).text
    for command in ("!reflect", "!fact", "!forget", "!good", "!bad", "!trace"):
        assert command in help_text


async def test_a_fact_may_spell_one_concept_two_ways(runtime: Runtime, chat: ChatSession) -> None:
    result = await run_command(runtime, chat, "!fact Redis::database, redis~cache")
    found = {(s.lower(), r, o) for s, r, o in asserted(runtime.memory, result.data["fact_id"])}
    assert found == {("redis", "IS_A", "database"), ("redis", "RELATED_TO", "cache")}
    concepts = runtime.memory.get_or_create_concepts(["Redis", "REDIS ", "redis"], chat.user_id)
    assert set(concepts) == {"Redis", "REDIS ", "redis"}
    assert len({c.id for c in concepts.values()}) == 1
