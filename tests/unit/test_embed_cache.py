"""The retrieval benchmarks' disk cache of document vectors (benchmarks/embed_cache.py)."""

from __future__ import annotations

from pathlib import Path

from langchain_core.embeddings import Embeddings

from benchmarks.embed_cache import CachedEmbeddings


class Counting(Embeddings):
    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += texts
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [0.0, float(len(text))]


def test_documents_are_embedded_once_across_runs_and_queries_never_cached(tmp_path: Path) -> None:
    inner = Counting()
    first = CachedEmbeddings(inner, tmp_path, "fake")
    assert first.embed_documents(["ab", "abc", "ab"]) == [[2.0, 1.0], [3.0, 1.0], [2.0, 1.0]]
    assert inner.embedded == ["ab", "abc"]
    assert first.take_saved() == 0.0  # nothing came from the cache yet
    again = CachedEmbeddings(inner, tmp_path, "fake")  # a later run, same folder
    assert again.embed_documents(["abc", "abcd"]) == [[3.0, 1.0], [4.0, 1.0]]
    assert inner.embedded == ["ab", "abc", "abcd"]
    assert again.hits == 1
    assert again.misses == 1
    assert again.take_saved() >= 0.0
    assert again.take_saved() == 0.0  # taken and reset
    assert again.embed_query("abc") == [0.0, 3.0]
    assert again.embed_query("abc") == [0.0, 3.0]


def test_two_embedders_never_share_vectors(tmp_path: Path) -> None:
    inner = Counting()
    CachedEmbeddings(inner, tmp_path, "one").embed_documents(["x"])
    CachedEmbeddings(inner, tmp_path, "two").embed_documents(["x"])
    assert inner.embedded == ["x", "x"]
