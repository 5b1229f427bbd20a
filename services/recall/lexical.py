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
from dataclasses import dataclass
from functools import lru_cache

from services.recall.temporal import date_terms
from thea import words
from thea.words import STOPWORDS

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
    return [stem(t) for t in words.terms(text) if t not in stop]


@dataclass(frozen=True)
class LexicalDoc:
    """What the keyword stage scores of one memory: its own words (stemmed tokens) and the
    words around it (an imported turn's reply context), a second field that weighs less."""

    own: Sequence[str]
    context: Sequence[str] = ()


@lru_cache(maxsize=4096)
def lexical_document(content: str, context: str, event_time: int | None) -> LexicalDoc:
    """The keyword stage's document of one memory: its words (and, with ``event_time``, the month
    and year it happened in) and, as a second field, the words it replies to. Cached: the same
    memories are candidates of question after question, and reading a long one is not free."""
    own = terms(content, STOPWORDS)
    if event_time is not None:
        own += date_terms(event_time)
    return LexicalDoc(tuple(own), tuple(terms(context, STOPWORDS)))


def passages(tokens: Sequence[str], size: int) -> list[Sequence[str]]:
    """A long token list as overlapping windows of ``size`` (half a window apart); a short one
    whole. ``size`` 0: never split."""
    if size <= 0 or len(tokens) <= size:
        return [tokens]
    step = max(1, size // 2)
    return [tokens[start : start + size] for start in range(0, len(tokens) - step, step)]


def bm25(
    query_terms: Sequence[str] | Mapping[str, float],
    docs: Mapping[str, Sequence[str] | LexicalDoc],
    total_docs: int,
    *,
    k1: float = 1.2,
    b: float = 0.75,
    context_weight: float = 1.0,
    passage: int = 0,
) -> dict[str, float]:
    """Okapi BM25 of each candidate doc (id -> stemmed tokens, or a :class:`LexicalDoc`) for
    the query terms (a mapping gives each term a weight: expansion terms weigh less).

    A :class:`LexicalDoc`'s context is a second field (BM25F): its term counts and its length
    count ``context_weight`` times, so a turn's own words outweigh those of the turn it
    replies to. With ``passage`` a document longer than that many tokens is scored by its
    best window of that size (a long reply is not a better match for holding more words).

    Document frequencies are counted over the candidates, which hold every memory
    containing any query term (exact unless the candidate list was cut);
    ``total_docs`` is the size of the whole collection. Docs with no query term
    score 0 and are left out.
    """
    weights = dict(query_terms) if isinstance(query_terms, Mapping) else dict.fromkeys(query_terms, 1.0)
    if not weights or not docs:
        return {}
    fields = {doc_id: doc if isinstance(doc, LexicalDoc) else LexicalDoc(doc) for doc_id, doc in docs.items()}
    windows = {doc_id: passages(doc.own, passage) for doc_id, doc in fields.items()}
    own = {doc_id: [Counter(w) for w in ws] for doc_id, ws in windows.items()}
    ctx = {doc_id: Counter(doc.context) for doc_id, doc in fields.items()}
    df = {
        t: sum(1 for d in fields if any(c[t] for c in own[d]) or (context_weight > 0 and ctx[d][t]))
        for t in weights
    }
    n = max(total_docs, len(docs))
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in weights}
    lengths = {d: len(windows[d][0]) + context_weight * len(fields[d].context) for d in fields}
    avgdl = sum(lengths.values()) / len(lengths) or 1.0
    scores: dict[str, float] = {}
    for doc_id, counts in own.items():
        around = ctx[doc_id]
        extra = context_weight * len(fields[doc_id].context)
        best = 0.0
        for window, tf in zip(windows[doc_id], counts, strict=True):
            norm = k1 * (1 - b + b * (len(window) + extra) / avgdl)
            score = 0.0
            for t, weight in weights.items():
                f = tf[t] + context_weight * around[t]
                if f:
                    score += weight * idf[t] * f * (k1 + 1) / (f + norm)
            best = max(best, score)
        if best > 0:
            scores[doc_id] = best
    return scores


def idf_weight(df: int, total_docs: int) -> float:
    """How much a match on something found in ``df`` of ``total_docs`` memories tells (BM25 idf)."""
    n = max(total_docs, df)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))
