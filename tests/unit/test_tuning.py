"""Tunables live in thea.tuning and are set like every other setting: validated, one-line errors."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import MagicMock

import pytest

from thea.config import load_settings
from thea.errors import ConfigError
from thea.models import EdgeType, NodeType
from thea.runtime.assembly import build_recall
from thea.tuning import RECALL_PRESETS, RecallTuning, Stage


def test_recall_weights_are_keyed_by_stage_and_node_type() -> None:
    tuning = RecallTuning()
    assert set(tuning.stage_weights) <= set(Stage)
    assert all(isinstance(k, Stage) for k in tuning.stage_weights)
    assert all(isinstance(k, NodeType) for k in tuning.type_weights)
    assert tuning.stage_weights[Stage.KEYWORDS] == 1.0
    assert tuning.type_weights[NodeType.FACT] == 1.3


def test_the_service_recalls_with_the_configured_tuning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THEA_TUNING__RECALL__MIN_SIMILARITY", "0.42")
    monkeypatch.setenv("THEA_TUNING__RECALL__STAGE_WEIGHTS", '{"vectors": 0.9, "keywords": 1.0}')
    settings = load_settings("embedded", data_dir=tmp_path)
    config = build_recall(settings, MagicMock()).config
    assert config.min_similarity == 0.42
    assert config.stage_weights == {Stage.VECTORS: 0.9, Stage.KEYWORDS: 1.0}
    assert config.per_stage == RecallTuning().per_stage  # the rest keeps its defaults


def test_defaults_are_the_default_preset(tmp_path: Path) -> None:
    config = build_recall(load_settings("embedded", data_dir=tmp_path), MagicMock()).config
    assert config == RECALL_PRESETS["default"]


def test_a_preset_with_fields_set_over_it(tmp_path: Path) -> None:
    tuning = load_settings(
        "embedded", data_dir=tmp_path, tuning={"recall_preset": "rank-fusion", "recall": {"when_boost": 0.5}}
    ).tuning.effective_recall()
    assert tuning.fusion == "rrf"  # from the preset
    assert tuning.dense_fill == 0
    assert tuning.when_boost == 0.5  # set over it


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("THEA_TUNING__RECALL__MIN_SIMILARTY", "0.5", "tuning.recall.min_similarty"),
        ("THEA_TUNING__RECALL__MIN_SIMILARITY", "2", "must be at most 1.0"),
        ("THEA_TUNING__RECALL_PRESET", "fast", "choose one of default, rank-fusion"),
    ],
)
def test_a_mistake_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message) as caught:
        load_settings("embedded", data_dir=tmp_path)
    assert "\n" not in str(caught.value)
    assert name in str(caught.value)


def test_activation_decay_is_keyed_by_relation_and_read_by_the_graph_s_names() -> None:
    tuning = RecallTuning().activation
    assert all(isinstance(k, EdgeType) for k in tuning.decay)
    assert tuning.decay_of("IS_A") == tuning.decay[EdgeType.IS_A] == 0.8
    assert tuning.decay_of("NOT_A_RELATION") == 0.0
