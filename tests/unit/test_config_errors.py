"""Settings mistakes become one ConfigError line (CLI cases: tests/e2e/test_cli_errors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thea.config import load_settings
from thea.errors import ConfigError


def test_several_bad_settings_name_the_first_and_count_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("THEA_LLM__PROVIDER", "nope")
    monkeypatch.setenv("THEA_GRAPH__BATCH_SIZE", "0")
    with pytest.raises(ConfigError) as err:
        load_settings("embedded", context={"fifo_share": 3})
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("invalid setting graph.batch_size = '0' (from THEA_GRAPH__BATCH_SIZE): ")
    assert message.endswith("must be at least 1 (and 2 more: llm.provider, context.fifo_share)")


def test_a_bad_argument_says_it_came_from_the_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"context.fifo_share = 3 \(from an argument of the caller\): must"):
        load_settings("embedded", context={"fifo_share": 3})


def test_a_bad_secret_is_not_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_settings("embedded", llm={"api_key": ["sk-very-secret"]})
    assert "llm.api_key = (hidden)" in str(err.value)
    assert "sk-very-secret" not in str(err.value)
