"""Concepts are per user: one user's concepts and concept relations never reach another user,
through recall, activation, facts, insights or the graph, on the real embedded engines. Shared
concepts of an older data directory are ignored by every read and given owners by repair."""

from __future__ import annotations

from typing import Any

from services.recall.cascade import RecallService
from services.recall.types import RecallQuery, Stage
from services.reflection.merge import Reflector
from services.views.insights import list_insights
from tests.graph_reads import asserted
from thea.memory.consistency import Issue, check, repair
from thea.memory.universal import UniversalMemory
from thea.models import (
    Concept,
    Edge,
    EdgeType,
    Fact,
    KnowledgeCrystal,
    UserImpulse,
    normalize_name,
    relation,
    stable_id,
)
from thea.runtime import Runtime
from thea.runtime.commands import ChatSession, run_command

ANA, BOB = ChatSession("ana", "s-ana"), ChatSession("bob", "s-bob")


async def _recall(rt: Runtime, user: str, **query: Any) -> list[str]:
    stages = query.pop("stages")
    result = await RecallService(rt.memory).recall(RecallQuery(texts=["zzz"], user_id=user, **query), stages)
    return [h.id for h in result.hits]


async def test_one_users_relations_never_steer_another_users_recall(runtime: Runtime) -> None:
    ana_fact = (await run_command(runtime, ANA, "!fact memory leak -> outage")).data["fact_id"]
    bob_fact = (await run_command(runtime, BOB, "!fact memory leak::bug")).data["fact_id"]

    # ana: outage -> (her CAUSES relation) -> memory leak -> her fact
    assert await _recall(runtime, "ana", concepts=["outage"], stages=frozenset({Stage.ACTIVATION})) == [
        ana_fact
    ]
    # bob never said anything about outages: ana's relation must not lead him to his own fact
    for stages in ({Stage.ACTIVATION}, {Stage.TRIPLES}, {Stage.TRIPLES, Stage.ACTIVATION}):
        assert await _recall(runtime, "bob", concepts=["outage"], stages=frozenset(stages)) == []
    pattern = await _recall(
        runtime, "bob", triple_pattern=("memory leak", "CAUSES", None), stages=frozenset({Stage.TRIPLES})
    )
    assert pattern == []
    assert await _recall(runtime, "bob", concepts=["memory leak"], stages=frozenset({Stage.TRIPLES})) == [
        bob_fact
    ]


async def test_facts_make_each_user_their_own_concepts_and_relations(runtime: Runtime) -> None:
    ana_fact = (await run_command(runtime, ANA, "!fact my salary::182000 dollars")).data["fact_id"]
    bob_fact = (await run_command(runtime, BOB, "!fact my salary::90000 dollars")).data["fact_id"]
    memory = runtime.memory

    ana_c = memory.graph.concepts_by_norm(["my salary", "182000 dollars"], "ana")
    bob_c = memory.graph.concepts_by_norm(["my salary", "182000 dollars"], "bob")
    assert set(ana_c) == {"my salary", "182000 dollars"}
    assert set(bob_c) == {"my salary"}  # bob never named 182000 dollars
    assert ana_c["my salary"].id != bob_c["my salary"].id
    assert {c.user_id for c in [*ana_c.values(), *bob_c.values()]} == {"ana", "bob"}

    # even a walk that does not filter by user cannot get from bob's fact to anything of ana's
    around = memory.neighbourhood(bob_fact, depth=3)
    assert {n.user_id for n in around.nodes} == {"bob"}
    assert ana_fact not in {n.id for n in around.nodes}
    assert asserted(memory, bob_fact) == [("my salary", "IS_A", "90000 dollars")]


async def test_insight_concept_lists_and_reflection_groups_stay_per_user(runtime: Runtime) -> None:
    memory = runtime.memory
    for user in ("ana", "bob"):
        concepts = memory.get_or_create_concepts(["Redis", "queues"], user)
        crystals = [
            KnowledgeCrystal(content=f"{user} note {i} on Redis queues", user_id=user) for i in range(2)
        ]
        memory.record(
            crystals,
            [
                Edge(src=k.id, dst=c.id, type=EdgeType.INSIGHT_FROM_CONCEPT)
                for k in crystals
                for c in concepts.values()
            ],
        )
    ana_rows = list_insights(memory, user_id="ana", concept="redis")
    assert len(ana_rows) == 2
    assert {r.insight.user_id for r in ana_rows} == {"ana"}
    candidates = Reflector(memory, None).load_candidates("ana")
    ana_ids = {c.id for c in memory.get_or_create_concepts(["Redis", "queues"], "ana").values()}
    assert {c for cand in candidates for c in cand.concepts} == ana_ids


def _old_concept(name: str) -> Concept:
    """A concept as data directories from before per-user concepts hold it: no owner."""
    norm = normalize_name(name)
    return Concept(id=stable_id("concept", norm), name=name, norm=norm)


async def test_shared_concepts_of_an_old_data_dir_leak_nothing_and_repair_gives_them_owners(
    runtime: Runtime,
) -> None:
    memory: UniversalMemory = runtime.memory
    pin, bank = _old_concept("PIN"), _old_concept("bank")
    ana_said = UserImpulse(content="My PIN is 4321.", user_id="ana")
    bob_said = UserImpulse(content="I forgot my PIN.", user_id="bob")
    ana_fact = Fact(content="PIN::bank", user_id="ana")
    ana_insight = KnowledgeCrystal(content="Ana's PIN is 4321.", user_id="ana")
    memory.record(
        [pin, bank, ana_said, bob_said, ana_fact, ana_insight],
        [
            Edge(src=ana_said.id, dst=pin.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src=bob_said.id, dst=pin.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src=ana_fact.id, dst=pin.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src=ana_fact.id, dst=bank.id, type=EdgeType.CONTAINS_CONCEPT),
            Edge(src=ana_insight.id, dst=pin.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
            relation(pin.id, EdgeType.IS_A, bank.id, source=ana_fact.id),
        ],
    )
    memory.graph._execute(  # type: ignore[attr-defined]  # an alias as the old code wrote it
        "MATCH (c:Concept {id: $id}) MERGE (a:ConceptAlias {norm: 'personal number'}) "
        "MERGE (a)-[:ALIAS_OF]->(c)",
        {"id": pin.id},
    )

    # every read ignores the shared nodes
    assert memory.graph.concepts_by_norm(["pin", "bank"], "bob") == {}
    assert memory.graph.concepts_by_norm(["pin", "bank"], "ana") == {}
    assert await _recall(runtime, "bob", concepts=["PIN"], stages=frozenset({Stage.TRIPLES})) == []
    assert list_insights(memory, user_id="ana")[0].concepts == []

    found = check(memory)
    assert found.found[Issue.SHARED_CONCEPTS] == 2
    assert sorted(found.examples[Issue.SHARED_CONCEPTS]) == sorted([pin.id, bank.id])

    fixed = repair(memory)
    assert fixed.repaired[Issue.SHARED_CONCEPTS] == 2
    assert memory.get([pin.id, bank.id]) == []  # the shared nodes are gone
    ana_c = memory.graph.concepts_by_norm(["pin", "bank"], "ana")
    bob_c = memory.graph.concepts_by_norm(["pin", "bank"], "bob")
    assert set(ana_c) == {"pin", "bank"}
    assert set(bob_c) == {"pin"}  # bob only ever mentioned the PIN
    assert memory.graph.concepts_by_norm(["personal number"], "bob") == {"personal number": bob_c["pin"]}
    # each user's memories now point at their own copy, and ana's relation went to ana only
    assert await _recall(runtime, "bob", concepts=["PIN"], stages=frozenset({Stage.TRIPLES})) == [bob_said.id]
    assert set(await _recall(runtime, "ana", concepts=["PIN"], stages=frozenset({Stage.TRIPLES}))) == {
        ana_said.id,
        ana_fact.id,
        ana_insight.id,
    }
    assert list_insights(memory, user_id="ana")[0].concepts == ["PIN"]
    assert asserted(memory, ana_fact.id) == [("PIN", "IS_A", "bank")]
    assert {n.user_id for n in memory.neighbourhood(bob_said.id, depth=3).nodes} == {"bob"}
    assert check(memory).ok
    assert repair(memory).total_repaired == 0
