"""Lexical scoring for the keyword stage: a light stemmer and BM25 over full-text candidates.

The graph's full-text index is good at *finding* every memory that contains a query
word, but its own score is unusable as a ranking: it favours very short nodes and
barely rewards matching several query words (on conversation data a turn that only
says a speaker's name outranks the one answering the question). So the index only
supplies candidates and this module ranks them with Okapi BM25, where a word that
occurs in most memories (a speaker's name) weighs little and rare words weigh a lot.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_DOUBLE = re.compile(r"([b-df-hj-np-rtv-z])\1$")  # doubled final consonant (not l, s, z)


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A small suffix stripper, applied alike to queries and memories.

    camping/camped/camps -> camp, stories/story -> stori, planning/plans -> plan,
    making/make -> mak. Crude on purpose: it only has to map a query word and its
    inflections in a memory to one key.
    """
    w = word.lower()
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if _DOUBLE.search(w):
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


def terms(text: str, stopwords: Iterable[str] = ()) -> list[str]:
    """Stemmed tokens of a text, stopwords dropped (before stemming)."""
    stop = set(stopwords)
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in stop]


def bm25(
    query_terms: Sequence[str],
    docs: Mapping[str, Sequence[str]],
    total_docs: int,
    *,
    k1: float = 1.2,
    b: float = 0.75,
) -> dict[str, float]:
    """Okapi BM25 of each candidate doc (id -> stemmed tokens) for the query terms.

    Document frequencies are counted over the candidates, which hold every memory
    containing any query term (exact unless the candidate list was cut);
    ``total_docs`` is the size of the whole collection. Docs with no query term
    score 0 and are left out.
    """
    wanted = list(dict.fromkeys(query_terms))
    if not wanted or not docs:
        return {}
    counts = {doc_id: Counter(tokens) for doc_id, tokens in docs.items()}
    df = {t: sum(1 for c in counts.values() if c[t]) for t in wanted}
    n = max(total_docs, len(docs))
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    avgdl = sum(len(tokens) for tokens in docs.values()) / len(docs) or 1.0
    scores: dict[str, float] = {}
    for doc_id, tf in counts.items():
        length = len(docs[doc_id])
        score = 0.0
        for t in wanted:
            f = tf[t]
            if f:
                score += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl))
        if score > 0:
            scores[doc_id] = score
    return scores


def idf_weight(df: int, total_docs: int) -> float:
    """How much a match on something found in ``df`` of ``total_docs`` memories tells (BM25 idf)."""
    n = max(total_docs, df)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))
