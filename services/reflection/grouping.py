"""Grouping active insights for a merge (pure functions, no I/O).

Two insights belong together when they are about the same pair of concepts (or
the same single concept, when that is all they have). Buckets are taken largest
first and every insight joins at most one group, so a group never chains
unrelated insights together. Runs in O(N k² + B log B) for N insights with at
most k concepts each and B buckets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations


@dataclass(frozen=True)
class Candidate:
    id: str
    content: str
    strength: float
    concepts: tuple[str, ...]


@dataclass
class Group:
    key: tuple[str, ...]
    members: list[Candidate] = field(default_factory=list)
    reason: str = "concepts"

    @property
    def ids(self) -> list[str]:
        return sorted(m.id for m in self.members)

    @property
    def strength(self) -> float:
        return sum(m.strength for m in self.members)


def concept_keys(concepts: Sequence[str], max_concepts: int = 6) -> list[tuple[str, ...]]:
    uniq = sorted(set(concepts))[:max_concepts]
    if len(uniq) == 1:
        return [(uniq[0],)]
    return [tuple(pair) for pair in combinations(uniq, 2)]


def group_by_concepts(candidates: Iterable[Candidate], max_group: int = 20) -> list[Group]:
    buckets: dict[tuple[str, ...], list[Candidate]] = defaultdict(list)
    for cand in candidates:
        for key in concept_keys(cand.concepts):
            buckets[key].append(cand)
    taken: set[str] = set()
    groups: list[Group] = []
    # larger buckets first; pairs before single concepts; key for a stable order
    for key in sorted(buckets, key=lambda k: (-len(buckets[k]), -len(k), k)):
        free = [c for c in buckets[key] if c.id not in taken]
        for start in range(0, len(free) - 1, max_group):
            chunk = free[start : start + max_group]
            if len(chunk) < 2:
                break
            groups.append(Group(key=key, members=chunk))
            taken.update(c.id for c in chunk)
    return groups


def group_near_duplicates(
    candidates: Sequence[Candidate],
    neighbours: dict[str, list[str]],
    max_group: int = 20,
) -> list[Group]:
    """Groups from a near-duplicate relation (id -> ids above the similarity bar)."""
    by_id = {c.id: c for c in candidates}
    taken: set[str] = set()
    groups: list[Group] = []
    for cand in candidates:
        if cand.id in taken:
            continue
        mates = [
            by_id[i] for i in neighbours.get(cand.id, []) if i in by_id and i not in taken and i != cand.id
        ]
        if not mates:
            continue
        members = [cand, *mates][:max_group]
        taken.update(m.id for m in members)
        groups.append(Group(key=(cand.id,), members=members, reason="similar"))
    return groups
