"""What recalling a told message looks like: the message itself, or a claim read from it (a
statement's claims stand for it in recall once the slow loop has read them)."""

from __future__ import annotations

from collections.abc import Collection

from services.knowledge.claims.keeper import claim_id
from services.views.trace import load_trace
from thea.memory.universal import UniversalMemory

#: more facts than one test message tells
_MOST_FACTS = 64


def told_ids(impulse_id: str) -> set[str]:
    """The ids under which what a message told can be recalled."""
    return {impulse_id, *(claim_id(impulse_id, i) for i in range(_MOST_FACTS))}


def recalled_told(impulse_id: str, recalled: Collection[str]) -> bool:
    """The answer recalled what that message told."""
    return bool(told_ids(impulse_id) & set(recalled))


def recall_found(memory: UniversalMemory, impulse_id: str) -> list[str]:
    """The ids recall found for a message, whether or not its answer needed them (a question
    the facts of record answer plainly is answered with those facts alone)."""
    trace = load_trace(memory, impulse_id)
    report = next(s.report for s in trace.steps if s.task.step == "recall")
    assert report is not None
    return [str(h["id"]) for h in report.output["hits"]]
