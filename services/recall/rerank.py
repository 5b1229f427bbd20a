"""A reranking stage behind a small port: the best fused candidates re-scored against the query.

Recall fuses its stages (services/recall/cascade.py), then, when a reranker is configured,
hands the top ``rerank_depth`` candidates' texts to it and orders them by its scores (the
rest keep their fused order below them). Adapters:

- :class:`CrossEncoderReranker`: a cross-encoder through ``sentence-transformers`` (optional
  dependency; the model must be available locally or from a hub the user can reach);
- :class:`HttpReranker`: an OpenAI-compatible ``/rerank`` endpoint (vLLM, Jina, Cohere-style:
  ``{"model", "query", "documents"}`` -> ``{"results": [{"index", "relevance_score"}]}``).

Offline, no reranker runs by default: the lexical and dense re-scoring happens in fusion
itself (every strong keyword candidate gets an exact similarity, ``dense_fill``). No
cross-encoder ships in a wheel, so neither adapter was measured on the LoCoMo data here.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from thea.errors import ConfigError, TheaError

log = logging.getLogger(__name__)


class RerankError(TheaError):
    """The reranker failed; recall keeps its fused order."""


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text (higher is better)."""
        ...


class CrossEncoderReranker:
    """A sentence-transformers cross-encoder (e.g. ``cross-encoder/ms-marco-MiniLM-L-6-v2``)."""

    def __init__(self, model: str, *, encoder: Any = None) -> None:
        self.name = f"cross-encoder {model}"
        if encoder is None:
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:
                raise ConfigError(
                    "recall.reranker=cross-encoder needs: pip install sentence-transformers"
                ) from exc
            try:
                encoder = CrossEncoder(model)
            except Exception as exc:
                raise ConfigError(f"cannot load the cross-encoder {model!r}: {exc}") from exc
        self.encoder = encoder

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        try:
            scores = self.encoder.predict([(query, text) for text in texts])
        except Exception as exc:
            raise RerankError(f"{self.name} failed: {exc}") from exc
        return [float(s) for s in scores]


class HttpReranker:
    """An OpenAI-compatible ``POST {base_url}/rerank`` endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 10.0,
        transport: Any = None,
    ) -> None:
        import httpx

        self.name = f"rerank endpoint {model} at {base_url}"
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s, transport=transport
        )

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        payload = {"model": self.model, "query": query, "documents": list(texts), "top_n": len(texts)}
        try:
            reply = self.client.post("/rerank", json=payload)
            reply.raise_for_status()
            results = reply.json()["results"]
            scores = [float("-inf")] * len(texts)
            for item in results:
                scores[int(item["index"])] = float(item["relevance_score"])
        except Exception as exc:
            raise RerankError(f"{self.name} failed: {exc}") from exc
        return scores


def apply_rerank(reranker: Reranker, query: str, ranked: list[tuple[str, str]], depth: int) -> list[str]:
    """Ids of ``ranked`` ((id, text) best first) with the first ``depth`` reordered by the reranker.

    A failing reranker leaves the order as it was (and logs why).
    """
    head, tail = ranked[:depth], ranked[depth:]
    try:
        scores = reranker.rerank(query, [text for _, text in head])
    except RerankError as exc:
        log.warning("recall keeps its fused order: %s", exc)
        return [node_id for node_id, _ in ranked]
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    return [head[i][0] for i in order] + [node_id for node_id, _ in tail]
