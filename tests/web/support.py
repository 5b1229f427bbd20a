"""Helpers for the web tests and scripts/screenshots.py: a streaming scripted model,
seeded memories and a uvicorn server in a background thread."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from fastapi.testclient import TestClient
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from tests.fakes import ScriptedChatModel, role_of
from thea.memory.universal import UniversalMemory
from thea.models import Concept, Edge, EdgeType, KnowledgeCrystal, UserImpulse


class StreamingChatModel(ScriptedChatModel):
    """The scripted model, streaming its answers word by word (optionally with a pause)."""

    token_delay_s: float = 0.0

    def _pieces(self, messages: list[BaseMessage]) -> list[str]:
        role = role_of(messages)
        self.calls.append((role, messages))
        if role in self.fail_roles:
            raise RuntimeError(f"scripted failure in {role}")
        words = self.responder(messages).split(" ")
        return [w if i == len(words) - 1 else w + " " for i, w in enumerate(words)]

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for piece in self._pieces(messages):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        pieces = self._pieces(messages)
        for i, piece in enumerate(pieces):
            if self.token_delay_s and i:
                await asyncio.sleep(self.token_delay_s)
            usage = None
            if i == len(pieces) - 1:
                usage = {"input_tokens": 10, "output_tokens": len(pieces), "total_tokens": 10 + len(pieces)}
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))


@dataclass
class SeededInsights:
    concept: Concept
    first: KnowledgeCrystal
    second: KnowledgeCrystal
    merged: KnowledgeCrystal
    weak: KnowledgeCrystal


def seed_insights(memory: UniversalMemory, *, user_id: str = "ana", concept: str = "Redis") -> SeededInsights:
    """Two archived insights merged into a stronger active one, plus a weak unrelated one."""
    topic = memory.get_or_create_concepts([concept], user_id)[concept]
    other = memory.get_or_create_concepts(["Gardening"], user_id)["Gardening"]
    source = UserImpulse(
        content=f"I use {concept} streams for my job queue.", user_id=user_id, session_id="s0"
    )
    source.correlation_id = source.id
    first = KnowledgeCrystal(
        content=f"The user builds job queues on {concept} streams.",
        seed="job queues",
        strength=1.0,
        active=False,
        confidence=0.7,
        user_id=user_id,
        source_impulse_id=source.id,
    )
    second = KnowledgeCrystal(
        content=f"The user relies on {concept} consumer groups.",
        seed="consumer groups",
        strength=1.5,
        active=False,
        confidence=0.6,
        user_id=user_id,
    )
    merged = KnowledgeCrystal(
        content=f"The user runs their job queues on {concept} streams with consumer groups.",
        seed="queues",
        strength=2.5,
        active=True,
        confidence=0.8,
        tags=["work"],
        user_id=user_id,
    )
    weak = KnowledgeCrystal(
        content="The user mentioned tomatoes once.",
        strength=0.3,
        active=True,
        user_id=user_id,
    )
    links = [
        Edge(src=first.id, dst=source.id, type=EdgeType.DERIVED_FROM),
        Edge(src=merged.id, dst=first.id, type=EdgeType.MERGED_FROM),
        Edge(src=merged.id, dst=second.id, type=EdgeType.MERGED_FROM),
        Edge(src=weak.id, dst=other.id, type=EdgeType.INSIGHT_FROM_CONCEPT),
        *(Edge(src=k.id, dst=topic.id, type=EdgeType.INSIGHT_FROM_CONCEPT) for k in (first, second, merged)),
    ]
    memory.record([source, first, second, merged, weak], links)
    return SeededInsights(concept=topic, first=first, second=second, merged=merged, weak=weak)


#: what the test clients call the server: a loopback name, as a browser on this machine would
LOCAL_URL = "http://localhost"


def local_client(app: Any, **kwargs: Any) -> TestClient:
    """A TestClient that names the server ``localhost`` (TestClient's own default host,
    ``testserver``, is refused like any non-loopback name when no token is set)."""
    return TestClient(app, base_url=LOCAL_URL, **kwargs)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """uvicorn serving an ASGI app (e.g. ``tests.services.service_app``) on 127.0.0.1 in a daemon thread."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=f"uvicorn-{self.port}", daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
