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
