"""The recall cascade on real engines: planted memories come back, the rest stays out."""

from __future__ import annotations

import pytest

from services.knowledge.history_formats import HistoryConversation, HistoryTurn
from services.knowledge.importer import import_history, turn_id
from services.recall.activation import ActivationConfig, spread
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery, Stage
from thea.models import DialogueTurn, Edge, EdgeType, KnowledgeCrystal, UserImpulse, relation
from thea.runtime import Runtime
from thea.tuning import RecallTuning

DAY = 86_400_000
NOW = 1_790_000_000_000


def plant(rt: Runtime) -> dict[str, str]:
    nodes = {
        "redis": UserImpulse(content="I run Redis queues for the billing service.", user_id="ana"),
        "cat": UserImpulse(content="My cat Miso sleeps on the keyboard.", user_id="ana"),
        "hike": UserImpulse(content="We hiked up Mount Tamalpais last spring.", user_id="ana"),
        "bob": UserImpulse(content="Bob runs Redis queues for payroll.", user_id="bob"),
    }
    rt.memory.record(list(nodes.values()))
    return {k: v.id for k, v in nodes.items()}


async def ids_for(rt: Runtime, query: RecallQuery, **config: object) -> list[str]:
    result = await RecallService(rt.memory, RecallTuning(**config)).recall(query)  # type: ignore[arg-type]
    return [h.id for h in result.hits]


async def test_the_planted_memory_comes_back_and_unrelated_ones_do_not(runtime: Runtime) -> None:
    planted = plant(runtime)
    found = await ids_for(runtime, RecallQuery(texts=["which queues do I run for billing?"], user_id="ana"))
    assert found[0] == planted["redis"]
    assert planted["hike"] not in found
    assert planted["bob"] not in found  # another user's memory
    nothing = await ids_for(runtime, RecallQuery(texts=["quantum chromodynamics lattice"], user_id="ana"))
    assert nothing == []  # below the relevance floor, nothing is better than noise


async def test_time_windows_filter_by_when_it_happened(runtime: Runtime) -> None:
    old = UserImpulse(content="I ate ramen in Tokyo.", user_id="ana", created_at=NOW - 30 * DAY)
    new = UserImpulse(content="I ate ramen in Osaka.", user_id="ana", created_at=NOW - DAY // 2)
    runtime.memory.record([old, new])
    query = RecallQuery(texts=["where did I eat ramen"], user_id="ana", time_from=NOW - DAY, time_to=NOW)
    found = await ids_for(runtime, query)
    assert found == [new.id]


async def test_archived_insights_are_not_recalled(runtime: Runtime) -> None:
    live = KnowledgeCrystal(content="Ana prefers tea over coffee.", user_id="ana")
    gone = KnowledgeCrystal(content="Ana prefers coffee over tea.", user_id="ana", active=False)
    runtime.memory.record([live, gone])
    found = await ids_for(runtime, RecallQuery(texts=["does Ana prefer tea or coffee"], user_id="ana"))
    assert live.id in found
    assert gone.id not in found


async def test_spreading_activation_reaches_two_hops_and_stops_below_threshold(runtime: Runtime) -> None:
    c = runtime.memory.get_or_create_concepts(["outage", "memory leak", "cron job", "full moon"], "ana")
    insight = KnowledgeCrystal(content="The nightly cron job is restarted by hand.", user_id="ana")
    runtime.memory.record(
        [insight],
        [
            relation(c["memory leak"].id, EdgeType.CAUSES, c["outage"].id, confidence=1.0),
            relation(c["cron job"].id, EdgeType.CAUSES, c["memory leak"].id, confidence=1.0),
            relation(c["full moon"].id, EdgeType.RELATED_TO, c["cron job"].id, confidence=0.5),
            Edge(src=insight.id, dst=c["cron job"].id, type=EdgeType.INSIGHT_FROM_CONCEPT),
        ],
    )
    query = RecallQuery(texts=["zzz"], concepts=["outage"], user_id="ana")
    result = await RecallService(runtime.memory).recall(query, frozenset({Stage.ACTIVATION}))
    assert [h.id for h in result.hits] == [insight.id]  # outage -> memory leak -> cron job
    # the same graph with a high threshold stops after one hop
    strict = RecallTuning(activation=ActivationConfig(threshold=0.6))
    result = await RecallService(runtime.memory, strict).recall(query, frozenset({Stage.ACTIVATION}))
    assert result.hits == []


def test_activation_values_decay_per_relation_and_respect_the_threshold() -> None:
    edges = {
        "a": [("a", "b", "IS_A", 1.0)],
        "b": [("b", "c", "RELATED_TO", 1.0)],
        "c": [("c", "d", "RELATED_TO", 1.0)],
    }

    def fetch(frontier: list[str]):  # type: ignore[no-untyped-def]
        return [e for f in frontier for e in edges.get(f, [])]

    act = spread(["a"], fetch, ActivationConfig(threshold=0.3))
    assert act["b"] == pytest.approx(0.8)
    assert act["c"] == pytest.approx(0.4)
    assert "d" not in act  # 0.2 < threshold


async def test_a_triple_pattern_finds_what_causes_something(runtime: Runtime) -> None:
    c = runtime.memory.get_or_create_concepts(["disk full", "outage", "tea"], "ana")
    insight = KnowledgeCrystal(content="Full disks took the site down twice.", user_id="ana")
    runtime.memory.record(
        [insight],
        [
            relation(c["disk full"].id, EdgeType.CAUSES, c["outage"].id, confidence=0.9),
            Edge(src=insight.id, dst=c["disk full"].id, type=EdgeType.INSIGHT_FROM_CONCEPT),
        ],
    )
    query = RecallQuery(texts=["zzz"], triple_pattern=(None, "CAUSES", "outage"), user_id="ana")
    result = await RecallService(runtime.memory).recall(query, frozenset({Stage.TRIPLES}))
    assert [h.id for h in result.hits] == [insight.id]


def _conversation(*lines: tuple[str, str]) -> HistoryConversation:
    turns = [HistoryTurn(f"D1:{i}", who, text, "1", NOW + i * 1000) for i, (who, text) in enumerate(lines)]
    return HistoryConversation("chat", turns)


async def test_a_short_reply_is_found_by_what_it_answers(runtime: Runtime) -> None:
    conv = _conversation(
        ("Bob", "Did you go to the Coldplay concert at Wembley?"),
        ("Ana", "Yes! Wembley was the best night of my year."),
        ("Bob", "I stayed home and baked bread."),
    )
    import_history(runtime.memory, [conv], "ana")
    reply = turn_id("ana", "chat", "D1:1")
    (node,) = runtime.memory.get([reply])
    assert isinstance(node, DialogueTurn)
    assert node.context == "Did you go to the Coldplay concert at Wembley?"
    assert node.embedding_text() == f"{node.context}\n{node.content}"  # its vector knows the question
    query = RecallQuery(texts=["How was the Coldplay concert at Wembley?"], user_id="ana")
    assert reply in (await ids_for(runtime, query))[:2]
    service = RecallService(runtime.memory)
    keywords = frozenset({Stage.KEYWORDS})
    scores = {h.id: h.score for h in (await service.recall(query, keywords)).hits}
    # nearly as good a match as the question itself: the words it answers weigh half its own
    # (tuning.recall.context_weight 0.5, issue 26), so the question's own turn stays ahead
    assert scores[reply] > 0.6 * max(scores.values())
    plain = RecallService(runtime.memory, RecallTuning(reply_context=False))
    scores = {h.id: h.score for h in (await plain.recall(query, keywords)).hits}
    assert scores[reply] < 0.5 * max(scores.values())  # without what it replies to: "Wembley" only


async def test_a_when_question_prefers_the_memory_that_says_when(runtime: Runtime) -> None:
    conv = _conversation(
        ("Ana", "I did a pottery class with my friends."),
        ("Bob", "Sounds lovely."),
        ("Ana", "I did a pottery class yesterday."),
    )
    import_history(runtime.memory, [conv], "ana")
    dated, other = turn_id("ana", "chat", "D1:2"), turn_id("ana", "chat", "D1:0")

    async def ratio(text: str, **config: float) -> float:
        service = RecallService(runtime.memory, RecallTuning(**config))  # type: ignore[arg-type]
        scores = {
            h.id: h.score for h in (await service.recall(RecallQuery(texts=[text], user_id="ana"))).hits
        }
        return scores[dated] / scores[other]

    when = "When did Ana do a pottery class?"
    assert await ratio(when) > 1.0  # the one that says when comes first
    assert await ratio(when) == pytest.approx(1.3 * await ratio(when, when_boost=0.0))
    why = "Why did Ana do a pottery class?"
    assert await ratio(why) == pytest.approx(await ratio(why, when_boost=0.0))  # no boost: not about time
