"""Retrieval metrics with binary relevance: recall@k, nDCG@k and per-category means.

``ranked`` is a best-first list of retrieved ids (duplicates after the first
occurrence are ignored, so a method cannot score twice with one item); ``relevant``
is the set of ids that hold the answer. A query without relevant ids has no
defined recall: the functions raise and callers skip such queries.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field


def _dedup(ranked: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def _check(relevant: Collection[str], k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not relevant:
        raise ValueError("no relevant ids: recall and nDCG are undefined")


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of the relevant ids found in the first k results."""
    _check(relevant, k)
    wanted = set(relevant)
    found = sum(1 for item in _dedup(ranked)[:k] if item in wanted)
    return found / len(wanted)


def hit_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 if any relevant id is in the first k results, else 0.0."""
    _check(relevant, k)
    wanted = set(relevant)
    return 1.0 if any(item in wanted for item in _dedup(ranked)[:k]) else 0.0


def dcg_at_k(gains: Sequence[float], k: int) -> float:
    """Discounted cumulative gain: sum of gain_i / log2(i + 1), ranks i from 1."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains[:k], start=1))


def ndcg_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """nDCG@k with binary gains; the ideal ranking puts min(k, |relevant|) hits first."""
    _check(relevant, k)
    wanted = set(relevant)
    gains = [1.0 if item in wanted else 0.0 for item in _dedup(ranked)[:k]]
    ideal = dcg_at_k([1.0] * min(k, len(wanted)), k)
    return dcg_at_k(gains, k) / ideal


def score_query(
    ranked: Sequence[str], relevant: Collection[str], ks: Iterable[int] = (5, 10)
) -> dict[str, float]:
    """recall@k for every k and nDCG@k for the largest k, keyed "recall@5", "ndcg@10", ..."""
    ks = sorted(set(ks))
    out = {f"recall@{k}": recall_at_k(ranked, relevant, k) for k in ks}
    out[f"ndcg@{ks[-1]}"] = ndcg_at_k(ranked, relevant, ks[-1])
    return out


@dataclass
class Aggregate:
    """Running means of per-query metrics, overall and per category."""

    sums: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(float)))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, category: str, scores: Mapping[str, float]) -> None:
        for group in (category, "overall"):
            self.counts[group] += 1
            for name, value in scores.items():
                self.sums[group][name] += value

    def means(self) -> dict[str, dict[str, float]]:
        """{group: {metric: mean, "n": count}}; "overall" holds every query once."""
        out: dict[str, dict[str, float]] = {}
        for group, total in self.sums.items():
            n = self.counts[group]
            out[group] = {name: value / n for name, value in total.items()}
            out[group]["n"] = float(n)
        return out


def aggregate(records: Iterable[tuple[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """Mean of each metric per category and overall (a micro average over queries)."""
    agg = Aggregate()
    for category, scores in records:
        agg.add(category, scores)
    return agg.means()
