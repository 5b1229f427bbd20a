"""The retrieval baselines of the LoCoMo benchmarks, on the same turn text thea indexes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings
from rank_bm25 import BM25Okapi

from benchmarks.common import shared_embedder
from benchmarks.locomo_data import Turn, tokens

DEPTH = 10


class BM25Baseline:
    """rank_bm25's Okapi BM25 over the turns; with ``reply_context`` each turn's document also
    holds the words of the turn before it in its session (what thea's importer stores)."""

    name = "BM25"

    def __init__(self, turns: Sequence[Turn], *, reply_context: bool = False) -> None:
        self.ids = [t.dia_id for t in turns]
        docs = []
        for i, turn in enumerate(turns):
            words = tokens(turn.document)
            if reply_context and i > 0 and turns[i - 1].session == turn.session:
                words += tokens(turns[i - 1].text)
            docs.append(words or ["_"])
        self.index = BM25Okapi(docs)

    def rank(self, question: str) -> list[str]:
        scores = self.index.get_scores(tokens(question))
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        return [self.ids[i] for i in order]


class DenseBaseline:
    """Cosine of the question's vector and each turn's, by the shared MiniLM or ``embedder``."""

    name = "dense (MiniLM cosine)"

    def __init__(self, turns: Sequence[Turn], embedder: Embeddings | None = None) -> None:
        self.embedder = embedder if embedder is not None else shared_embedder()
        self.ids = [t.dia_id for t in turns]
        self.matrix = np.asarray(self.embedder.embed_documents([t.document for t in turns]), dtype=np.float32)

    def rank(self, question: str) -> list[str]:
        query = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        order = np.argsort(-(self.matrix @ query), kind="stable")[:DEPTH]
        return [self.ids[i] for i in order]
