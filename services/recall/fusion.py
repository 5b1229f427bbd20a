"""Reciprocal rank fusion and the weights applied after it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RRF_K = 60


def ranked(scored: Sequence[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """(id, rank) best first for (id, score) pairs, at most ``limit`` of them.

    Equal scores share their mean rank (a stage that cannot tell two memories apart
    must not order them by accident), and a group of equal scores that crosses the
    cut is left out whole: e.g. 60 memories that all merely mention a speaker's name
    carry no ranking information, so the stage contributes nothing for them.
    """
    ordered = sorted(scored, key=lambda pair: -pair[1])
    out: list[tuple[str, float]] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and math.isclose(ordered[end + 1][1], ordered[start][1], rel_tol=1e-9):
            end += 1
        if end + 1 > limit:
            break
        mean_rank = (start + end) / 2 + 1
        out += [(ordered[i][0], mean_rank) for i in range(start, end + 1)]
        start = end + 1
    return out


def rrf(
    rankings: Mapping[str, Sequence[tuple[str, float]]],
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Fuse several rankings of (id, rank from 1): score(id) = sum over stages of w / (k + rank)."""
    scores: dict[str, float] = {}
    for stage, pairs in rankings.items():
        w = (weights or {}).get(stage, 1.0)
        for node_id, rank in pairs:
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
