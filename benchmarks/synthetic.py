"""Seeded synthetic conversation turns and questions for the performance benchmarks.

Sentences mix people, places, activities and objects, so texts are distinct, share
words in realistic proportions (names recur often, objects rarely) and carry
capitalised names that become concepts, as real dialogue does.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
from langchain_core.embeddings import Embeddings

from thea.models import DialogueTurn

NOTE = " (note "

PEOPLE = [
    "Ana", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
    "Kemal", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
]  # fmt: skip
PLACES = [
    "Lisbon", "Denver", "Osaka", "Nairobi", "Berlin", "Toronto", "Lima", "Oslo", "Cairo", "Austin",
    "Hanoi", "Porto", "Quebec", "Zurich", "Seoul", "Dublin", "Perth", "Bogota", "Krakow", "Tbilisi",
]  # fmt: skip
ACTIVITIES = [
    "hiking", "painting", "cooking", "running", "climbing", "reading", "gardening", "sailing", "cycling",
    "baking", "fishing", "dancing", "knitting", "skiing", "swimming", "camping", "writing", "drumming",
    "surfing", "pottery", "chess", "yoga", "photography", "woodworking", "birdwatching",
]  # fmt: skip
OBJECTS = [
    "a red kayak", "an old guitar", "a sourdough starter", "a vintage camera", "a blue tent", "a chess set",
    "a mountain bike", "a sketchbook", "a telescope", "a bread oven", "a tomato plant", "a violin",
    "a pair of skis", "a rescue dog", "a paper lantern", "a wooden canoe", "a compass", "a map of the coast",
    "a bonsai tree", "a record player", "a climbing rope", "a fishing rod", "a quilt", "a sewing machine",
]  # fmt: skip
TEMPLATES = [
    "I went {activity} near {place} with {person} and we found {object}.",
    "{person} told me about {object} from {place}; we might try {activity} there next month.",
    "Last weekend in {place} I spent hours {activity}, and {person} brought {object}.",
    "My plan is to take up {activity} again after {person} showed me {object} in {place}.",
    "We talked about {place}, where {person} keeps {object} for {activity} trips.",
]
QUESTIONS = [
    "What did {person} bring when we went {activity}?",
    "Where did I go {activity} with {person}?",
    "What did {person} show me in {place}?",
    "When was I {activity} near {place}?",
]


def sentences(count: int, *, seed: int = 7) -> list[str]:
    """``count`` distinct sentences."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        text = rng.choice(TEMPLATES).format(
            person=rng.choice(PEOPLE),
            place=rng.choice(PLACES),
            activity=rng.choice(ACTIVITIES),
            object=rng.choice(OBJECTS),
        )
        found.setdefault(text, None)
    return list(found)


def turns(
    count: int,
    user_id: str,
    *,
    seed: int = 7,
    pool: int = 1_500,
    start_ms: int = 1_700_000_000_000,
    reply_context: bool = False,
) -> list[DialogueTurn]:
    """``count`` dialogue turns of one user, one minute apart, each a sentence of a pool of
    ``pool`` distinct ones plus a unique note number (so every text differs); with
    ``reply_context`` each carries the previous turn of its session as ``context``, as
    imported history does."""
    rng = random.Random(seed)
    base = sentences(min(pool, count), seed=seed)
    texts = [f"{rng.choice(base)}{NOTE}{i})" for i in range(count)]
    return [
        DialogueTurn(
            content=text,
            speaker="user",
            user_id=user_id,
            session_id=f"s{i // 50}",
            event_time=start_ms + i * 60_000,
            created_at=start_ms + i * 60_000,
            context=texts[i - 1] if reply_context and i % 50 else None,
        )
        for i, text in enumerate(texts)
    ]


class PoolEmbeddings(Embeddings):
    """Population-only embedder for :func:`turns`: the real vector of a turn's pool sentence
    (computed once) plus small seeded noise, renormalised, so N turns cost one embedding per
    distinct sentence and still land near real sentence vectors. Never used for timed work."""

    def __init__(self, base: Embeddings, noise: float = 0.02) -> None:
        self.base = base
        self.noise = noise
        self.cache: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        keys = [t.split(NOTE)[0] for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self.cache))
        if missing:
            for key, vector in zip(missing, self.base.embed_documents(missing), strict=True):
                self.cache[key] = np.asarray(vector, dtype=np.float32)
        out = []
        for text, key in zip(texts, keys, strict=True):
            rng = np.random.default_rng(zlib.crc32(text.encode()))
            noisy = self.cache[key] + rng.normal(0.0, self.noise, self.cache[key].shape).astype(np.float32)
            out.append((noisy / np.linalg.norm(noisy)).tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def questions(count: int, *, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(QUESTIONS).format(
            person=rng.choice(PEOPLE), place=rng.choice(PLACES), activity=rng.choice(ACTIVITIES)
        )
        for _ in range(count)
    ]
