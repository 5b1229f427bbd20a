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


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        (
            "THEA_LLM__PROVDER",
            "unknown setting llm.provder (from THEA_LLM__PROVDER): did you mean llm.provider?",
        ),
        (
            "THEA_SERVICE__PORTT",
            "unknown setting service.portt (from THEA_SERVICE__PORTT): did you mean service.port?",
        ),
        ("THEA_DATA_DIRR", "unknown setting THEA_DATA_DIRR: did you mean THEA_DATA_DIR?"),
        ("THEA_LOGLEVEL", "unknown setting THEA_LOGLEVEL: did you mean THEA_LOG_LEVEL?"),
    ],
)
def test_a_misspelt_variable_is_named_with_the_setting_it_meant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, message: str
) -> None:
    """Before: a misspelt variable was ignored and thea ran on the default it was meant to change."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, "openai")
    with pytest.raises(ConfigError) as err:
        load_settings("embedded")
    assert str(err.value) == message


def test_a_misspelt_key_in_the_config_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "thea.toml"
    config.write_text('[embedded]\n[embedded.llm]\nprovidr = "openai"\n')
    with pytest.raises(
        ConfigError, match=r"unknown setting llm.providr \(from \[embedded\] llm.providr in the "
    ):
        load_settings("embedded", config)
    config.write_text('[embedded]\ndatadir = "/srv/thea"\n')
    with pytest.raises(
        ConfigError, match=r"unknown setting datadir in the config file's \[embedded\] section"
    ):
        load_settings("embedded", config)


def test_other_tools_variables_and_env_files_are_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only near misses of a setting count: a .env shared with other programs, or a THEA_
    variable of some other tool, does not stop thea."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("DATABASE_URL=postgres://x\nTHEA_CYPHER_LINT_DIR=/tmp/lint\n")
    monkeypatch.setenv("THEA_DEPLOYMENT_COLOUR", "blue")
    assert load_settings("embedded", data_dir=tmp_path / "d").llm.provider == "local"


def test_the_graph_vector_backend_is_a_choice_and_a_typo_of_it_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("THEA_VECTOR__BACKEND", "graph")
    assert load_settings("server").vector.backend == "graph"
    monkeypatch.setenv("THEA_VECTOR__BACKEND", "grpah")
    with pytest.raises(ConfigError) as err:
        load_settings("server")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("invalid setting vector.backend = 'grpah' (from THEA_VECTOR__BACKEND): ")
    assert message.endswith("choose one of qdrant_edge, qdrant, graph")
