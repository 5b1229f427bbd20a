"""Pack recalled memories into a token budget: whole items, most relevant first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from services.common.tokens import estimate_tokens

T = TypeVar("T")


def recall_budget(context_window: int, share: float, cap: int) -> int:
    """Tokens allowed for the reference block: min(cap, share of the window)."""
    return max(0, min(cap, int(context_window * share)))


def pack(items: Sequence[T], texts: Sequence[str], budget: int, overhead: int = 12) -> list[T]:
    """Take items in the given (relevance) order while they fit; never cut an item.

    An item too large for the remaining room is skipped and smaller later ones may
    still fit. ``overhead`` accounts for the per-item id/kind prefix.
    """
    chosen: list[T] = []
    used = 0
    for item, text in zip(items, texts, strict=True):
        cost = estimate_tokens(text) + overhead
        if used + cost <= budget:
            chosen.append(item)
            used += cost
    return chosen
