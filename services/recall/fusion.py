"""Reciprocal rank fusion and the weights applied after it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from thea.tuning import RRF_K


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


def score_fusion(
    scores: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float] | None = None,
    floors: Mapping[str, float] | None = None,
    scales: Mapping[str, float] | None = None,
    *,
    depth: int = 0,
) -> dict[str, float]:
    """Fuse stages by their scores: each stage scaled to [0, 1] by (s - floor) / (max - floor)
    (floor: the stage's score that means "no evidence", e.g. the similarity floor of the vector
    stage), then a weighted sum. Unlike rank fusion, a strong match in one stage (all query words
    in one memory) is not outvoted by memories that are merely mentioned by several stages.

    ``scales`` gives a stage a fixed least span: its scores are then read on that absolute scale
    when they are all weak (e.g. concept matches on a name linked to half of all memories must
    not count as a perfect match just because nothing better matched).

    ``depth`` > 0 calibrates every stage on its own best ``depth`` scores instead: the floor is
    raised to the stage's ``depth``-th best score (min-max over each stage's top band). Stages
    whose scores are bunched (cosine similarities of 0.55-0.62) then separate their candidates as
    much as stages whose scores are spread (BM25), so neither dominates by its scale alone."""
    fused: dict[str, float] = {}
    for stage, stage_scores in scores.items():
        if not stage_scores:
            continue
        w = (weights or {}).get(stage, 1.0)
        floor = (floors or {}).get(stage, 0.0)
        top = max(stage_scores.values())
        if depth > 0 and len(stage_scores) > depth:
            floor = max(floor, sorted(stage_scores.values(), reverse=True)[depth])
        span = max(top - floor, (scales or {}).get(stage, 0.0))
        for node_id, score in stage_scores.items():
            scaled = (score - floor) / span if span > 0 else 1.0
            fused[node_id] = fused.get(node_id, 0.0) + w * max(0.0, min(1.0, scaled))
    return fused


def separation(scores: Iterable[float], depth: int, floor: float) -> float:
    """How far a stage's best score stands above its ``depth``-th best, as a share of the best's
    height above ``floor`` (0: its best candidates are bunched and tell little apart; 1: the best
    stands alone). Fewer than ``depth`` candidates are read as if the rest were at the floor."""
    ordered = sorted(scores, reverse=True)
    if not ordered or ordered[0] <= floor:
        return 0.0
    deep = max(ordered[depth - 1], floor) if len(ordered) >= depth else floor
    return (ordered[0] - deep) / (ordered[0] - floor)


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


#: recall weight per unit of a record's ``rating`` (the !good / !bad on answers that recalled it)
RATING_WEIGHT = 0.2


def rating_weight(rating: float | None) -> float:
    """A record behind good answers ranks higher, one behind bad answers lower: rating -3 ->
    0.4, 0 -> 1.0 (neutral), +3 -> 1.6."""
    return 1.0 + RATING_WEIGHT * max(-3.0, min(3.0, rating or 0.0))
