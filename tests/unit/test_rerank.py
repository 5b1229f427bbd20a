"""The reranking port: adapters speak their protocol, a failing reranker never breaks recall."""

from __future__ import annotations

import json
from collections.abc import Sequence

import httpx
import pytest

from services.recall.rerank import CrossEncoderReranker, HttpReranker, RerankError, apply_rerank
from thea.config import load_settings
from thea.errors import ConfigError
from thea.runtime.assembly import build_reranker


class StubEncoder:
    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.pairs = list(pairs)
        return [float(len(text)) for _, text in pairs]  # longer is "more relevant"


def test_cross_encoder_scores_query_document_pairs() -> None:
    encoder = StubEncoder()
    reranker = CrossEncoderReranker("some/model", encoder=encoder)
    assert reranker.rerank("cats?", ["a", "abc", "ab"]) == [1.0, 3.0, 2.0]
    assert encoder.pairs == [("cats?", "a"), ("cats?", "abc"), ("cats?", "ab")]


def test_rerank_endpoint_request_and_reply() -> None:
    seen: dict[str, object] = {}

    def handle(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers.get("authorization")
        seen["body"] = json.loads(request.content)
        results = [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.1}]
        return httpx.Response(200, json={"results": results})

    reranker = HttpReranker(
        "http://rerank.local/v1/", "bge", api_key="k", transport=httpx.MockTransport(handle)
    )
    assert reranker.rerank("where?", ["x", "y"]) == [0.1, 0.9]
    assert seen["url"] == "http://rerank.local/v1/rerank"
    assert seen["auth"] == "Bearer k"
    assert seen["body"] == {"model": "bge", "query": "where?", "documents": ["x", "y"], "top_n": 2}


def test_a_failing_endpoint_is_a_rerank_error_and_recall_keeps_its_order() -> None:
    broken = HttpReranker(
        "http://rerank.local", "m", transport=httpx.MockTransport(lambda r: httpx.Response(503))
    )
    with pytest.raises(RerankError, match="503"):
        broken.rerank("q", ["a"])
    ranked = [("1", "a"), ("2", "bbb"), ("3", "cc")]
    assert apply_rerank(broken, "q", ranked, depth=3) == ["1", "2", "3"]


def test_only_the_head_is_reordered() -> None:
    reranker = CrossEncoderReranker("m", encoder=StubEncoder())
    ranked = [("1", "a"), ("2", "bbb"), ("3", "cc"), ("4", "dddd")]
    assert apply_rerank(reranker, "q", ranked, depth=3) == ["2", "3", "1", "4"]


def test_settings_choose_the_reranker(tmp_path: object) -> None:
    assert build_reranker(load_settings("embedded")) is None
    http = load_settings(
        "embedded", recall={"reranker": "http", "rerank_url": "http://x/v1", "rerank_model": "m"}
    )
    assert isinstance(build_reranker(http), HttpReranker)
    with pytest.raises(ConfigError, match="rerank_url"):
        build_reranker(load_settings("embedded", recall={"reranker": "http"}))
