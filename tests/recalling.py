"""What recalling a told message looks like: the message itself, or a fact of record it told
(a statement's facts stand for it in recall)."""

from __future__ import annotations

from collections.abc import Collection

from services.knowledge.record.keeper import fact_id

#: more facts than one test message tells
_MOST_FACTS = 8


def told_ids(impulse_id: str) -> set[str]:
    """The ids under which what a message told can be recalled."""
    return {impulse_id, *(fact_id(impulse_id, i) for i in range(_MOST_FACTS))}


def recalled_told(impulse_id: str, recalled: Collection[str]) -> bool:
    """The answer recalled what that message told."""
    return bool(told_ids(impulse_id) & set(recalled))
