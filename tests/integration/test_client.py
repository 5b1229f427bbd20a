"""``thea.Client`` and ``thea.AsyncClient`` end to end against a real service process (fake model):
typed results, streaming, errors as thea exceptions, and the local service started on first use."""

from __future__ import annotations

from pathlib import Path

import pytest

import thea
from thea.api.models import AskResult
from thea.client import Done, Token
from thea.client.errors import ServiceUnavailable
from thea.config import Settings, load_settings
from thea.errors import InputError, NotFoundError


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings("embedded", data_dir=tmp_path / "data", llm={"provider": "fake"})


def test_the_client_starts_the_service_and_gives_typed_results(settings: Settings) -> None:
    with thea.Client(settings=settings) as client:
        told = client.ask("My cat is called Tom.", session_id="nb")
        assert isinstance(told, AskResult)
        assert told.answer == "Noted: your cat is called Tom. I'll remember that."
        assert told.session_id == "nb"

        events = list(client.stream("What is my cat called?"))
        assert isinstance(events[-1], Done)
        assert "".join(e.text for e in events if isinstance(e, Token)) == events[-1].result.answer
        asked = events[-1].result
        assert told.impulse_id in asked.recalled_ids

        trace = client.trace(asked.impulse_id[:8])
        assert [s.step for s in trace.steps][:4] == ["instinct", "plan", "recall", "synthesis"]
        assert trace.impulse.content == "What is my cat called?"

        fact = client.fact("Tom is a tabby cat.")
        assert 0 < fact.confidence < 1
        forgot = client.forget(fact.fact_id[:10])
        assert forgot.kind == "Fact"
        rated = client.feedback(1, response_id=asked.response_id)
        assert rated.feedback == 1
        assert client.whoami().user_id == "local"
        assert client.reflect(wait_s=60).status == "done"
        assert client.memory_stats().graph["UserImpulse"] == 2
        assert client.status().workers == 1

        with pytest.raises(NotFoundError):
            client.trace("ffffffff")
        with pytest.raises(InputError, match="empty"):
            client.ask("   ")
        client.stop_service()


async def test_the_async_client_streams_and_maps_errors(settings: Settings) -> None:
    async with thea.AsyncClient(settings=settings) as client:
        await client.connect()
        pieces = [e async for e in client.stream("Hello there.")]
        assert isinstance(pieces[-1], Done)
        result = await client.ask("And again.")
        assert result.impulse_id != pieces[-1].result.impulse_id
        assert (await client.trace(result.impulse_id)).impulse.id == result.impulse_id
        assert [i.id for i in await client.insights()] == []
        with pytest.raises(NotFoundError):
            await client.insight("nothing-like-this")
        await client.stop_service()


def test_an_unreachable_remote_service_is_a_clear_error() -> None:
    with thea.Client("http://127.0.0.1:9", token="x") as client, pytest.raises(ServiceUnavailable) as err:
        client.health()
    assert "cannot reach http://127.0.0.1:9" in str(err.value)
