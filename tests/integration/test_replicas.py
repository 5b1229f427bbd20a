"""Two replicas of the thea service on one memory (issue 24, item 3): a user whose requests
alternate between them sees one consistent memory and one conversation.

Two service apps (two runtimes, as two ``thea service run`` processes build them) with the
settings of the FalkorDB + Redis setup (``config/server-falkordb.env``), both on one real
FalkorDB server started as a process of its own (it is a Redis server too: the queue, the
chronicle and the shared conversations live there). The deployment test runs the same with real
processes (tests/slow/test_scaleout.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.service_support import answer_of, chat, done_of
from thea.api import PREFIX
from thea.config import Settings
from thea.llm.fake import FakeChatModel
from thea.memory.chronicle.redis import RedisChronicle
from thea.memory.graph.falkordb import FalkorDBGraphStore
from thea.memory.vector.graph_index import GraphIndexStore
from thea.runtime import Runtime, build_runtime
from thea.testing.deployment import RedisServer, environment_settings, thea_environment
from thea.testing.service import service_app
from workers.conversations import RedisConversationCache

TOKEN = "tok-ana-replicas-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    falkordb = RedisServer("falkordb", tmp_path / "falkordb", falkordb=True).start()
    try:
        yield falkordb
    finally:
        falkordb.stop()


def replica_settings(server: RedisServer, data_dir: Path) -> Settings:
    env = thea_environment(server.url, f"{server.url}/0", data_dir, {"ana": TOKEN})
    return environment_settings(env)


@pytest.fixture
def runtimes(server: RedisServer, tmp_path: Path) -> Iterator[list[Runtime]]:
    built: list[Runtime] = []
    try:
        for name in ("a", "b"):
            built.append(build_runtime(replica_settings(server, tmp_path / name), llm=FakeChatModel()))
        yield built
    finally:
        for rt in built:
            rt.close()


@pytest.fixture
def replicas(runtimes: list[Runtime]) -> list[TestClient]:
    return [TestClient(service_app(rt), headers=AUTH) for rt in runtimes]


def test_the_replicas_run_the_falkordb_setup(runtimes: list[Runtime]) -> None:
    for rt in runtimes:
        assert isinstance(rt.memory.graph, FalkorDBGraphStore)
        assert isinstance(rt.memory.vectors, GraphIndexStore)
        assert isinstance(rt.memory.chronicle, RedisChronicle)
        assert isinstance(rt.orchestrator.context, RedisConversationCache)
        assert not rt.workers  # the slow loop runs in `thea worker` processes


def _synthesis_history(client: TestClient, impulse_id: str) -> list[str]:
    """What the model was shown of the conversation before the message it answered."""
    trace = client.get(f"{PREFIX}/traces/{impulse_id}", params={"prompts": "true"}).json()
    (step,) = [s for s in trace["steps"] if s["step"] == "synthesis"]
    messages: list[dict[str, Any]] = step["report"]["output"]["prompt"]["messages"]
    return [str(m["content"]) for m in messages[1:-1]]


def test_a_conversation_alternating_between_two_replicas_is_one_conversation(
    replicas: list[TestClient],
) -> None:
    turns = [
        "Tell me about lighthouses.",
        "Why are they painted in stripes?",
        "Which one is the tallest?",
        "How do their lamps work?",
    ]
    ids = []
    for n, text in enumerate(turns):
        events = chat(replicas[n % 2], text, session="alt-1")
        ids.append(done_of(events)["impulse_id"])
        assert answer_of(events)
    for n in range(1, len(turns)):  # every turn's prompt holds every earlier turn, wherever it ran
        shown = _synthesis_history(replicas[n % 2], ids[n])
        assert [t for t in shown if t in turns] == turns[:n], f"turn {n + 1} on replica {n % 2}"


def test_what_one_replica_recorded_the_other_recalls_and_rates(replicas: list[TestClient]) -> None:
    a, b = replicas
    told = done_of(chat(a, "My bike is a green Surly.", session="alt-2"))
    found = b.post(f"{PREFIX}/recall", json={"query": "What bike do I have?"}).json()["memories"]
    assert any("Surly" in m["text"] for m in found)
    # the conversation's last answer is the one replica a gave: b traces and rates it
    last = b.get(f"{PREFIX}/whoami", params={"session_id": "alt-2"}).json()["last_impulse_id"]
    assert last == told["impulse_id"]
    trace = b.get(f"{PREFIX}/traces/last", params={"session_id": "alt-2"}).json()
    assert trace["impulse"]["id"] == told["impulse_id"]
    rated = b.post(f"{PREFIX}/feedback", json={"value": 1, "session_id": "alt-2"})
    assert rated.status_code == 200, rated.text
    assert rated.json()["response_id"] == told["response_id"]
