"""Typed step outputs keep the Report's JSON: only the fields a step set, read back typed."""

from __future__ import annotations

from thea.models.step_outputs import PlanOutput, PromptRecord, RecalledHit, RecallOutput, SynthesisOutput


def test_a_report_stores_only_the_fields_its_step_set() -> None:
    plan = PlanOutput(
        node_id="p1", queries=["hi"], concepts=[], time_from=None, time_to=None, triple_pattern=None
    )
    assert plan.wire() == {
        "node_id": "p1",
        "queries": ["hi"],
        "concepts": [],
        "time_from": None,
        "time_to": None,
        "triple_pattern": None,
    }
    recall = RecallOutput(hits=[RecalledHit(id="m1", type="Fact", score=0.5, stages=["keywords"])])
    recall.failed_stages = ["vectors"]
    assert set(recall.wire()) == {"hits", "failed_stages"}
    synthesis = SynthesisOutput(node_id="a1", answer="Yes.", references=[], facts=["f1"])
    synthesis.prompt = PromptRecord(id="synthesis", version="3")
    assert synthesis.wire()["prompt"] == {"id": "synthesis", "version": "3"}
    assert "mode" not in synthesis.wire()


def test_an_older_or_damaged_report_is_read_for_what_it_holds() -> None:
    read = SynthesisOutput.of({"answer": "Yes.", "facts": "not a list", "mode": "facts of record"})
    assert (read.answer, read.facts, read.mode) == ("Yes.", [], "facts of record")
    older = SynthesisOutput.of({"facts": [{"id": "f1", "text": "I ride a Canyon."}, "f2"]})
    assert older.fact_ids == ["f1", "f2"]
    assert RecallOutput.of(None).hits == []
