"""Token estimates for budgets (context window, recall block).

A fast heuristic (about four characters a token for English, one token per CJK
character) keeps budgets model-agnostic; the exact count only matters up to the
safety margin the budgets leave.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    wide = sum(1 for ch in text if ord(ch) > 0x2E80)
    return max(1, math.ceil((len(text) - wide) / 4) + wide)


def _prefix_within(text: str, budget: float) -> int:
    """Length of the longest prefix of ``text`` whose estimated tokens stay within ``budget``."""
    used = 0.0
    for i, ch in enumerate(text):
        used += 1.0 if ord(ch) > 0x2E80 else 0.25
        if used > budget:
            return i
    return len(text)


def clip_for_prompt(text: str, max_tokens: int | None) -> str:
    """The user's text as a prompt may carry it: whole when it fits ``max_tokens`` (estimated),
    else its head (three quarters of the budget) and tail (one quarter) around a marker saying
    how much was left out. The stored memory always keeps the whole text."""
    if max_tokens is None or estimate_tokens(text) <= max_tokens:
        return text
    head = _prefix_within(text, max_tokens * 0.75)
    tail = _prefix_within(text[::-1], max_tokens * 0.2)
    if head + tail >= len(text):
        return text
    left_out = len(text) - head - tail
    return (
        f"{text[:head]}\n[… {left_out:,} characters of this message left out …]\n{text[len(text) - tail :]}"
    )
