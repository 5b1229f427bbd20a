"""Reciprocal rank fusion and the weights applied after it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RRF_K = 60


def rrf(
    rankings: Mapping[str, Sequence[str]], k: int = RRF_K, weights: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Fuse several best-first id lists: score(id) = sum over lists of w / (k + rank)."""
    scores: dict[str, float] = {}
    for stage, ids in rankings.items():
        w = (weights or {}).get(stage, 1.0)
        for rank, node_id in enumerate(ids, start=1):
            scores[node_id] = scores.get(node_id, 0.0) + w / (k + rank)
    return scores


def memory_weight(strength: float | None, confidence: float | None) -> float:
    """Stronger insights and more confident facts rank higher; neutral for plain memories.

    strength 1 -> 1.0, strength 3 -> ~1.69, strength 0 -> ~0.31; confidence 0.5 is neutral.
    """
    weight = 1.0
    if strength is not None:
        weight *= 1.0 + math.log(max(strength, 0.0) + 0.5) - math.log(1.5)
        weight = max(weight, 0.1)
    if confidence is not None:
        weight *= 0.5 + max(0.0, min(1.0, confidence))
    return weight
