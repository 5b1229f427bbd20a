"""Test helpers over the typed graph operations: a cycle's stored properties, as tests assert them."""

from __future__ import annotations

from typing import Any

from services.reflection.merge import ReflectionReport
from thea.memory.universal import UniversalMemory
from thea.runtime import Runtime


def cycle_props(memory: UniversalMemory, correlation_id: str) -> list[dict[str, Any]]:
    """The stored properties of every node of one cycle, oldest first."""
    return [n.to_props() for n in memory.traces.cycle_nodes(correlation_id)]


def reports_by_step(memory: UniversalMemory, correlation_id: str) -> dict[str, dict[str, Any]]:
    """The stored properties of each Report of one cycle, by step."""
    return {p["step"]: p for p in cycle_props(memory, correlation_id) if p["type"] == "Report"}


def asserted(memory: UniversalMemory, source_id: str) -> list[tuple[str, str, str]]:
    """(subject, relation, object) of the concept relations one memory asserted."""
    return [(r.subject, r.relation, r.object) for r in memory.insight_views.relations_by_source(source_id)]


async def reflected(runtime: Runtime, user_id: str = "ana") -> ReflectionReport:
    """A reflection a worker finished within a minute (its report; failing when it only queued)."""
    done = await runtime.reflect(user_id, wait_s=60)
    assert isinstance(done, ReflectionReport), done
    return done
