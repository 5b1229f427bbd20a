"""With a network model (an OpenAI-compatible endpoint or Ollama), claims, picks and the user's
words are read by the same model at temperature 0, whatever the answering temperature: the same
reading every time. Building a client calls nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from thea.config import load_settings
from thea.llm.factory import build_chat_model, build_claims_model
from thea.llm.guard import block_network_llms, unblock_network_llms


@pytest.fixture
def network_allowed() -> Iterator[None]:
    unblock_network_llms()
    try:
        yield
    finally:
        block_network_llms()


@pytest.mark.parametrize("provider", ["openai", "ollama"])
@pytest.mark.usefixtures("network_allowed")
def test_a_network_model_reads_at_temperature_0_and_answers_at_its_own(provider: str, tmp_path: Path) -> None:
    llm = {"provider": provider, "base_url": "http://127.0.0.1:9/v1", "model": "m", "temperature": 0.2}
    settings = load_settings("embedded", data_dir=tmp_path / "data", llm=llm)
    answering = build_chat_model(settings)
    reading = build_claims_model(settings)
    assert reading is not None
    assert type(reading) is type(answering)
    assert getattr(answering, "temperature", None) == pytest.approx(0.2)
    assert getattr(reading, "temperature", None) == 0.0
    assert getattr(reading, "model_name", getattr(reading, "model", None)) == "m"
    # already at 0: one model does both
    still = load_settings("embedded", data_dir=tmp_path / "data", llm={**llm, "temperature": 0.0})
    assert build_claims_model(still) is None


def test_the_fake_and_the_offline_answering_model_keep_their_readers(tmp_path: Path) -> None:
    fake = load_settings("embedded", data_dir=tmp_path / "data", llm={"provider": "fake"})
    assert build_claims_model(fake) is None
