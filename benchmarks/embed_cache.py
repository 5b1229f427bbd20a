"""A disk cache of document embeddings for the retrieval benchmarks (``--embed-cache DIR``).

Embedding the long replies of BEAM's chats is most of a retrieval run's time (tens of minutes
per memory on two shared cores), and every memory of a run, and every later run, embeds the
same texts again. The cache keeps each document vector with the seconds it cost when it was
computed (a batch's time shared by its texts), so a run with a warm cache still reports an
index time as if it had embedded everything: ``index s`` = the import's own time + the cost
of the vectors it took from the cache. Queries are never cached: ms/query is always measured.

One SQLite file per embedder (``<dir>/<name>.sqlite``): vectors of two embedders never mix.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class CachedEmbeddings(Embeddings):
    """``inner``'s document vectors through a cache; queries and chunking go to ``inner``."""

    def __init__(self, inner: Embeddings, folder: Path, name: str) -> None:
        self.inner = inner
        self.dimension = getattr(inner, "dimension", 384)
        folder.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(folder / f"{name}.sqlite"), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB, secs REAL)")
        self._lock = threading.Lock()
        #: seconds the vectors taken from the cache so far cost when they were computed (the
        #: vectors computed now are in the caller's wall time already)
        self.saved_s = 0.0
        self.hits = 0
        self.misses = 0
        chunk = getattr(inner, "chunk_text", None)
        if chunk is not None:
            self.chunk_text = chunk

    def take_saved(self) -> float:
        """The embedding seconds the cache saved since the last call (and reset)."""
        saved, self.saved_s = self.saved_s, 0.0
        return saved

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        keys = [_key(t) for t in texts]
        found: dict[str, tuple[list[float], float]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                marks = ",".join("?" * len(part))
                # only "?" placeholders are formatted in; the keys are bound parameters
                sql = f"SELECT key, vec, secs FROM vectors WHERE key IN ({marks})"  # noqa: S608
                for key, blob, secs in self._db.execute(sql, part):
                    found[key] = (np.frombuffer(blob, dtype=np.float32).tolist(), float(secs))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if missing:
            started = time.perf_counter()
            vectors = self.inner.embed_documents(missing)
            each = (time.perf_counter() - started) / len(missing)
            rows: list[tuple[str, bytes, float]] = []
            for text, vector in zip(missing, vectors, strict=True):
                found[_key(text)] = (vector, each)
                rows.append((_key(text), np.asarray(vector, dtype=np.float32).tobytes(), each))
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
                self._db.commit()
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        computed = {_key(t) for t in missing}
        self.saved_s += sum(found[k][1] for k in keys if k not in computed)
        return [found[k][0] for k in keys]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        batched = getattr(self.inner, "embed_queries", None)
        if callable(batched):
            return list(batched(texts))
        return [self.inner.embed_query(t) for t in texts]

    def __getattr__(self, name: str) -> Any:  # anything else the inner embedder offers
        return getattr(self.inner, name)
