"""Grounding thresholds and the answer's relevance floor are settings (issue 15: one typed place
for tunables, reachable from Settings), and they change what thea does."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cycle.answer_inputs import references_for
from services.recall.types import RecallHit
from services.reflection.grounding import Sources, check_claims
from thea.config import load_settings
from thea.errors import ConfigError
from thea.runtime.assembly import build_crystallizer, build_orchestrator
from thea.tuning import GroundingTuning


def sources(text: str) -> Sources:
    return Sources([("m1", "UserImpulse", text)], frozenset())


def test_a_stricter_lexical_threshold_rejects_a_claim_the_default_accepts() -> None:
    said = sources("I run the Redis queues for the billing team on Tuesdays.")
    claim = "The user runs Redis queues for billing and payroll."
    assert check_claims(claim, said, None, GroundingTuning(min_lexical=0.6)).supported
    assert not check_claims(claim, said, None, GroundingTuning(min_lexical=0.95)).supported


def hit(node_id: str, score: float) -> RecallHit:
    return RecallHit(id=node_id, type="UserImpulse", text=f"memory {node_id}", score=score, created_at=0)


def test_the_relevance_floor_decides_which_memories_reach_the_prompt() -> None:
    hits = [hit("best", 1.0), hit("weak", 0.3)]
    assert [r.source_id for r in references_for(hits, 1000)] == ["best"]
    assert [r.source_id for r in references_for(hits, 1000, floor_share=0.2)] == ["best", "weak"]


def test_settings_reach_the_services_that_use_them(tmp_path: Path) -> None:
    settings = load_settings(
        "embedded",
        data_dir=tmp_path / "data",
        llm={"provider": "fake"},
        tuning={"grounding": {"min_lexical": 0.9}, "relevance_floor": 0.1},
    )
    from thea.llm.fake import FakeChatModel
    from thea.memory.factory import open_memory

    memory = open_memory(settings)
    try:
        assert build_crystallizer(settings, memory, FakeChatModel()).grounding.min_lexical == 0.9
        orchestrator = build_orchestrator(settings, memory, FakeChatModel())
        assert orchestrator.synthesis.relevance_floor == 0.1
    finally:
        memory.close()


def test_an_out_of_range_threshold_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings("embedded", data_dir=tmp_path / "data", tuning={"grounding": {"min_lexical": 2}})
    assert "\n" not in str(caught.value)


def test_the_rerank_depth_has_one_name(tmp_path: Path) -> None:
    from thea.memory.factory import open_memory
    from thea.runtime.assembly import build_recall

    settings = load_settings("embedded", data_dir=tmp_path / "data", tuning={"recall": {"rerank_depth": 7}})
    memory = open_memory(settings)
    try:
        assert build_recall(settings, memory).config.rerank_depth == 7
    finally:
        memory.close()
    # the old second name is a typo now, said in one line
    with pytest.raises(ConfigError) as caught:
        load_settings("embedded", data_dir=tmp_path / "data", recall={"rerank_depth": 7})
    assert "rerank_depth" in str(caught.value)
    assert "\n" not in str(caught.value)
