"""Records exchanged with the memory ports (not graph nodes themselves)."""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from thea.models.edges import Edge
from thea.models.nodes import Node, now_ms


class Collection(StrEnum):
    """Vector collections: what kind of memory an embedding belongs to."""

    EXPERIENCE = "experience"  # impulses, responses, dialogue turns, facts
    CONCEPTS = "concepts"
    INSIGHTS = "insights"  # knowledge crystals


class VectorRecord(BaseModel):
    """One embedding to store. ``id`` is the node id it belongs to."""

    model_config = ConfigDict(extra="forbid")

    id: str
    collection: Collection
    vector: list[float]
    type: str
    text: str
    user_id: str | None = None
    session_id: str | None = None
    active: bool = True
    created_at: int = Field(default_factory=now_ms)
    #: For chunked texts: which chunk of the node this is (0 for the first).
    chunk: int = 0

    def payload(self) -> dict[str, Any]:
        return self.model_dump(exclude={"vector", "collection"})


class VectorHit(BaseModel):
    id: str
    score: float
    type: str
    text: str
    user_id: str | None = None
    active: bool = True
    created_at: int = 0
    chunk: int = 0


class VectorFilter(BaseModel):
    """Filter for vector search; None means "do not filter on this field"."""

    types: list[str] | None = None
    user_id: str | None = None
    active: bool | None = None
    created_from: int | None = None
    created_to: int | None = None
    #: only these nodes (e.g. to score given candidates exactly)
    node_ids: list[str] | None = None


class ChronicleEvent(BaseModel):
    """One entry of the temporal log: what happened when."""

    model_config = ConfigDict(extra="forbid")

    id: str
    type: str
    time: int = Field(default_factory=now_ms)
    user_id: str | None = None
    session_id: str | None = None
    correlation_id: str | None = None
    summary: str = ""


class Subgraph(BaseModel):
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)


class HealthStatus(BaseModel):
    component: str
    backend: str
    ok: bool
    detail: str = ""
    latency_ms: float | None = None

    @classmethod
    def probe(
        cls,
        component: str,
        backend: str,
        check: Callable[[], str],
        *,
        describe: Callable[[Exception], str] = str,
    ) -> HealthStatus:
        """The status of one component: ``check()`` timed (its result is the detail line), or
        ``describe(error)`` when it raises. Never raises: a health check reports, it does not fail."""
        started = time.perf_counter()
        try:
            detail = check()
        except Exception as exc:  # health never raises
            return cls(component=component, backend=backend, ok=False, detail=describe(exc))
        latency = (time.perf_counter() - started) * 1000
        return cls(component=component, backend=backend, ok=True, detail=detail, latency_ms=latency)


class LLMUsage(BaseModel):
    """LLM accounting of one step: which model and prompt, tokens, calls, time."""

    model: str | None = None
    prompt_name: str | None = None
    prompt_version: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    latency_ms: float = 0.0

    def add(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            model=other.model or self.model,
            prompt_name=other.prompt_name or self.prompt_name,
            prompt_version=other.prompt_version or self.prompt_version,
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            calls=self.calls + other.calls,
            latency_ms=self.latency_ms + other.latency_ms,
        )
