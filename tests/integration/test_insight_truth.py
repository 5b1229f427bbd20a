"""What is remembered is what the user said: grounded replacements, per-claim evidence,
promotion by later evidence, lowered confidence on contradiction (issue 13, item 1)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from rich.console import Console

from services.knowledge.claims.keeper import claim_id as fact_id
from services.reflection.crystallizer import crystal_id, stated_id
from services.views.insights import insight_detail, list_insights
from tests.claims_support import said as claim_said
from tests.claims_support import scripted_reader
from tests.graph_reads import reflected
from tests.recalling import recall_found
from thea.api.models import InsightDetailView
from thea.cli.insights_cmd import detail_tree
from thea.llm.fake import FakeCall, FakeChatModel, Handler, default_handlers
from thea.llm.prompt_ids import PromptId
from thea.models import Edge, EdgeType, KnowledgeCrystal
from thea.runtime import Runtime
from thea.service.serialize import insight_detail_json

ACTRESS = {
    "insight": "Priya Ramanathan is a renowned Indian actress who works on Tidewatch.",
    "seed": "Priya Ramanathan, Tidewatch",
    "tags": ["tidewatch"],
    "triples": [],
}


def crystal_saying(crystal: dict[str, object]) -> Handler:
    return lambda _: json.dumps(crystal)


@pytest.fixture
def runtime(runtime: Runtime) -> Runtime:
    """The shared runtime (tests/conftest.py), with slow-loop jobs run in this process."""
    return runtime


async def say(rt: Runtime, text: str, user: str = "priya", session: str = "s1") -> str:
    result = await rt.orchestrator.handle_impulse(text, user, session)
    await asyncio.to_thread(rt.run_jobs)
    return result.impulse_id


def shown(rt: Runtime, insight_id: str) -> str:
    """What `thea insights show` prints for an insight (the API's view, rendered by the CLI)."""
    view = InsightDetailView.model_validate(insight_detail_json(insight_detail(rt.memory, insight_id), []))
    console = Console(record=True, width=200, no_color=True)
    console.print(detail_tree(view))
    return console.export_text()


def crystal(rt: Runtime, node_id: str) -> KnowledgeCrystal | None:
    found = rt.memory.get([node_id])
    assert not found or isinstance(found[0], KnowledgeCrystal)
    return found[0] if found else None  # type: ignore[return-value]


async def test_an_unsupported_insight_of_a_statement_is_replaced_by_the_users_own_words(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.CRYSTALLIZE, crystal_saying(ACTRESS))
    said = "My name is Priya Ramanathan and I work on Tidewatch."
    impulse_id = await say(runtime, said)
    invented = crystal(runtime, crystal_id(impulse_id))
    assert invented is not None
    assert invented.verification == "unverified"  # the invention stays, with its reason
    assert not invented.active
    assert "actress" in invented.verification_reason
    stated = crystal(runtime, stated_id(impulse_id))
    assert stated is not None
    assert stated.content == "The user's name is Priya Ramanathan and the user works on Tidewatch."
    assert stated.active
    assert stated.verification == "supported"
    assert [(e.source_id, e.quote) for e in stated.evidence] == [(impulse_id, said)]
    active = list_insights(runtime.memory, user_id="priya", state="active")
    assert [r.insight.id for r in active] == [stated.id]
    assert "tidewatch" in {c.lower() for c in active[0].concepts} or active[0].concepts == []
    later = await runtime.orchestrator.handle_impulse("What is my name?", "priya", "s2")
    found = recall_found(runtime.memory, later.impulse_id)
    assert stated.id in found  # remembered and recallable
    assert invented.id not in found


async def test_a_supported_insight_gets_no_restated_twin(runtime: Runtime, llm: FakeChatModel) -> None:
    llm.answer(
        PromptId.CRYSTALLIZE,
        crystal_saying(
            {"insight": "The user's name is Priya Ramanathan.", "seed": "", "tags": [], "triples": []}
        ),
    )
    impulse_id = await say(runtime, "My name is Priya Ramanathan.")
    assert crystal(runtime, crystal_id(impulse_id)) is not None
    assert crystal(runtime, stated_id(impulse_id)) is None


async def test_each_claim_carries_its_own_status_evidence_and_reason(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(
        PromptId.CRYSTALLIZE,
        crystal_saying(
            {
                "insight": "The user works on Tidewatch. Tidewatch is a famous award-winning startup.",
                "seed": "",
                "tags": [],
                "triples": [],
            }
        ),
    )
    said = "I work on Tidewatch at the harbour office."
    impulse_id = await say(runtime, said)
    insight = crystal(runtime, crystal_id(impulse_id))
    assert insight is not None
    assert insight.verification == "unverified"  # one claim fails: the insight is unverified
    first, second = insight.claims
    assert (first.text, first.status) == ("The user works on Tidewatch.", "supported")
    assert [(e.source_id, e.quote) for e in first.evidence] == [(impulse_id, said)]
    assert second.status == "unsupported"
    assert "award" in second.reason
    assert "famous" in second.reason
    assert insight.verification_reason == second.reason
    text = shown(runtime, insight.id)
    assert re.search(r"claims \(2\)\n.*supported 1  The user works on Tidewatch\.", text)
    assert "unsupported" in text


def crystals_by_message(by_message: dict[str, dict[str, object]]) -> Handler:
    """A crystal that depends on which user message the prompt holds."""

    def respond(call: FakeCall) -> str:
        prompt = str(call.messages[-1].content)
        for said, out in by_message.items():
            if said in prompt:
                return json.dumps(out)
        return default_handlers()[PromptId.CRYSTALLIZE](call)

    return respond


async def test_later_supporting_evidence_promotes_an_unverified_insight_and_records_why(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    first_said = "I work on Tidewatch at the harbour office."
    later_said = "Tidewatch is a tide prediction app for sailors."
    llm.answer(
        PromptId.CRYSTALLIZE,
        crystals_by_message(
            {
                first_said: {
                    "insight": "The user works on Tidewatch. Tidewatch is a tide prediction app.",
                    "seed": "Tidewatch",
                    "tags": [],
                    "triples": [
                        {
                            "subject": "Tidewatch",
                            "predicate": "PART_OF",
                            "object": "harbour office",
                            "confidence": 0.8,
                        }
                    ],
                },
                later_said: {"insight": later_said, "seed": "Tidewatch", "tags": [], "triples": []},
            }
        ),
    )
    first = await say(runtime, first_said)
    insight = crystal(runtime, crystal_id(first))
    assert insight is not None
    assert insight.verification == "unverified"
    later = await say(runtime, later_said)
    promoted = crystal(runtime, insight.id)
    assert promoted is not None
    assert promoted.verification == "promoted"
    assert promoted.active
    assert {e.source_id for e in promoted.evidence} == {first, later}  # the new evidence appended
    assert all(c.status == "supported" for c in promoted.claims)
    (revision,) = promoted.revisions
    assert revision.kind == "promoted"
    assert revision.evidence == [later]
    assert "supported by later evidence" in revision.reason
    assert revision.at > 0
    assert re.search(
        rf"revisions \(1\)\n.* promoted by {later[:8]}: supported by later evidence",
        shown(runtime, promoted.id),
    )
    asked = await runtime.orchestrator.handle_impulse("What is Tidewatch?", "priya", "s3")
    assert promoted.id in recall_found(runtime.memory, asked.impulse_id)


async def test_a_contradicting_statement_supersedes_the_old_insight(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(
        PromptId.CRYSTALLIZE,
        crystals_by_message(
            {
                "Priya Ramanathan": {
                    "insight": "The user's name is Priya Ramanathan.",
                    "seed": "",
                    "tags": [],
                    "triples": [],
                },
                "Anna Kowalski": {
                    "insight": "The user's name is Anna Kowalski.",
                    "seed": "",
                    "tags": [],
                    "triples": [],
                },
            }
        ),
    )
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                "Priya": [claim_said("My name is Priya Ramanathan", "name", "Priya Ramanathan")],
                "Anna": [claim_said("My name is Anna Kowalski", "name", "Anna Kowalski")],
            }
        ),
    )
    llm.answer(PromptId.SUPERSESSION, '{"decision": "replaces"}')  # one name at a time
    first = await say(runtime, "My name is Priya Ramanathan.")
    old = crystal(runtime, crystal_id(first))
    assert old is not None
    assert old.active
    await say(runtime, "My name is Anna Kowalski.", user="bob")  # another user's name
    untouched = crystal(runtime, old.id)
    assert untouched is not None
    assert (untouched.active, untouched.confidence, untouched.revisions) == (True, old.confidence, [])
    later = await say(runtime, "My name is Anna Kowalski.")
    superseded = crystal(runtime, old.id)
    assert superseded is not None
    assert superseded.confidence < old.confidence
    assert superseded.valid_until is not None
    assert not superseded.active
    assert [r.kind for r in superseded.revisions] == ["superseded"]
    # superseded by the claim that replaced the old name (the slow loop read it first)
    assert "Your name: Priya Ramanathan." in superseded.revisions[0].reason
    newer = fact_id(later, 0)
    edges = runtime.memory.neighbourhood(newer, 1, [EdgeType.SUPERSEDES]).edges
    assert (newer, old.id) in [(e.src, e.dst) for e in edges]
    text = shown(runtime, old.id)
    assert "superseded" in text.splitlines()[0]
    assert f"superseded by {newer[:8]}" in text
    asked = await runtime.orchestrator.handle_impulse("What is my name?", "priya", "s3")
    found = recall_found(runtime.memory, asked.impulse_id)
    assert old.id not in found
    assert crystal_id(later) in found
    assert asked.answer.startswith("Your name: Anna Kowalski.")


async def test_a_contradicting_fact_lowers_an_insights_confidence(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(
        PromptId.CRYSTALLIZE,
        crystal_saying(
            {"insight": "The user's favourite colour is blue.", "seed": "", "tags": [], "triples": []}
        ),
    )
    first = await say(runtime, "My favourite colour is blue.")
    old = crystal(runtime, crystal_id(first))
    assert old is not None
    outcome = await runtime.facts.add_fact("My favourite colour is green.", "priya", "s2")
    assert outcome.revised.superseded == [old.id]
    assert f"superseded insight {old.id[:8]}" in outcome.summary()
    after = crystal(runtime, old.id)
    assert after is not None
    assert after.valid_until is not None
    assert after.confidence == pytest.approx(0.2)


QUEUES = {
    "insight": "The user runs Redis queues.",
    "seed": "Redis, queues",
    "tags": ["redis"],
    "triples": [{"subject": "Redis", "predicate": "USED_WITH", "object": "queues", "confidence": 0.8}],
}


async def test_strength_counts_distinct_evidence_not_how_often_the_model_restated_it(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.CRYSTALLIZE, crystal_saying(QUEUES))
    first = await say(runtime, "I run Redis queues at work.", "ana")
    second = await say(runtime, "I run Redis queues on two servers.", "ana")
    a, b = crystal(runtime, crystal_id(first)), crystal(runtime, crystal_id(second))
    assert a is not None
    assert b is not None
    assert (a.proofs, a.strength) == (1, 1.0)
    # the model said the first message again in other words: the same evidence, no new proof
    again = a.model_copy(update={"id": "restated-again", "content": "Redis queues are what the user runs."})
    concepts = runtime.memory.neighbourhood(a.id, 1, [EdgeType.INSIGHT_FROM_CONCEPT]).nodes
    edges = [
        Edge(src=again.id, dst=c.id, type=EdgeType.INSIGHT_FROM_CONCEPT) for c in concepts if c.id != a.id
    ]
    runtime.memory.record([again], edges)
    runtime.start_background_worker()
    report = await reflected(runtime)
    assert report.merged == 1
    (row,) = list_insights(runtime.memory, user_id="ana", state="active")
    assert {e.source_id for e in row.insight.evidence} == {first, second}
    # two distinct messages: strength 2, not 3 (the sum counted the first message twice)
    assert (row.insight.proofs, row.insight.strength) == (2, 2.0)


async def test_a_merge_keeps_what_feedback_added(runtime: Runtime, llm: FakeChatModel) -> None:
    llm.answer(PromptId.CRYSTALLIZE, crystal_saying(QUEUES))
    first = await say(runtime, "I run Redis queues at work.", "ana")
    await say(runtime, "I run Redis queues on two servers.", "ana")
    liked = crystal(runtime, crystal_id(first))
    assert liked is not None
    runtime.memory.record([liked.model_copy(update={"strength": 1.5})])  # after a !good
    runtime.start_background_worker()
    await runtime.reflect("ana", wait_s=60)
    (row,) = list_insights(runtime.memory, user_id="ana", state="active")
    assert (row.insight.proofs, row.insight.strength) == (2, 2.5)


async def test_a_merge_whose_synthesis_adds_to_its_evidence_keeps_the_sources_words(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    llm.answer(PromptId.CRYSTALLIZE, json.dumps(QUEUES))
    llm.answer(PromptId.REFLECT, "The user runs Redis queues for a famous bank in Zurich.")
    await say(runtime, "I run Redis queues at work.", "ana")
    await say(runtime, "I run Redis queues on two servers.", "ana")
    runtime.start_background_worker()
    assert (await reflected(runtime)).merged == 1
    (row,) = list_insights(runtime.memory, user_id="ana", state="active")
    assert row.insight.content == "The user runs Redis queues."
    assert [c.status for c in row.insight.claims] == ["supported"]
    assert row.insight.verification == "supported"
