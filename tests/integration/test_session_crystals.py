"""Session-level crystallization of imported history: one model call per session, knowledge that
recall can walk to the turns."""

from __future__ import annotations

import pytest

from services.knowledge.history_formats import HistoryConversation, HistoryTurn
from services.knowledge.importer import import_history, turn_nodes
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery, Stage
from services.reflection.session_crystals import SessionCrystallizer, session_crystal_id
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import DialogueTurn, EdgeType, KnowledgeCrystal
from thea.runtime import Runtime

T0 = 1_683_554_160_000  # 8 May 2023


def history() -> HistoryConversation:
    texts = [
        ("Ana", "I moved our job queues to Redis last week."),
        ("Bob", "Nice, how is it going?"),
        ("Ana", "Redis handles the billing jobs fine now."),
    ]
    turns = [HistoryTurn(f"D1:{i}", who, text, "1", T0 + i * 1000) for i, (who, text) in enumerate(texts)]
    return HistoryConversation("chat", turns)


async def test_a_session_becomes_one_crystal_linked_to_its_turns_and_concepts(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    conv = history()
    import_history(runtime.memory, [conv], "ana")
    turns = [turn.node for turn in turn_nodes(conv, "ana")]
    crystallizer = SessionCrystallizer(runtime.memory, llm)
    outcome = await crystallizer.crystallize("ana", turns[0].session_id or "", turns)
    assert outcome.created
    assert len(llm.prompts_for(PromptId.CRYSTALLIZE_SESSION)) == 1  # one call for the whole session
    (crystal,) = runtime.memory.get([session_crystal_id("ana", turns[0].session_id or "")])
    assert isinstance(crystal, KnowledgeCrystal)
    assert crystal.content == "Ana works on Redis queues."
    assert crystal.created_at == T0  # dated when the session happened
    around = runtime.memory.neighbourhood(crystal.id, 1, [EdgeType.DERIVED_FROM])
    assert {n.id for n in around.nodes if isinstance(n, DialogueTurn)} == {t.id for t in turns}
    # the model said Redis IS_A database: asking about "database" reaches the Redis turns by activation
    query = RecallQuery(texts=["zzz"], concepts=["database"], user_id="ana")
    found = await RecallService(runtime.memory).recall(query, frozenset({Stage.ACTIVATION}))
    assert {turns[0].id, turns[2].id} <= {h.id for h in found.hits}
    # a second run adds nothing and asks nothing
    again = await crystallizer.crystallize("ana", turns[0].session_id or "", turns)
    assert not again.created
    assert len(llm.prompts_for(PromptId.CRYSTALLIZE_SESSION)) == 1


async def test_a_model_failure_is_recorded_and_raised(runtime: Runtime, llm: FakeChatModel) -> None:
    conv = history()
    import_history(runtime.memory, [conv], "ana")
    turns = [turn.node for turn in turn_nodes(conv, "ana")]
    llm.fail = {PromptId.CRYSTALLIZE_SESSION}
    with pytest.raises(Exception, match="crystallize session"):
        await SessionCrystallizer(runtime.memory, llm).crystallize("ana", "s", turns)
    assert runtime.memory.get([session_crystal_id("ana", "s")]) == []
