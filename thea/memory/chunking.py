"""Splitting long texts for embedding: overlapping windows, at most a bounded number per text."""

from __future__ import annotations

from collections.abc import Callable

Chunker = Callable[[str], list[str]]

#: At most this many chunks of one text are embedded (a 200,000-character message would make
#: ~200-900); a longer text gets this many windows spread evenly over it, first and last
#: included. The whole text stays in the graph and its full-text index.
MAX_CHUNKS = 32


def spread_evenly(chunks: list[str], limit: int = MAX_CHUNKS) -> list[tuple[int, str]]:
    """``limit`` of the chunks, evenly spaced, first and last included, with their positions."""
    if len(chunks) <= limit:
        return list(enumerate(chunks))
    if limit <= 1:
        return [(0, chunks[0])]
    picks = sorted({round(i * (len(chunks) - 1) / (limit - 1)) for i in range(limit)})
    return [(i, chunks[i]) for i in picks]


def char_chunks(text: str, size: int = 1000, overlap: int = 100) -> list[str]:
    """Fallback chunker for embedders without a tokenizer: overlapping character windows."""
    if len(text) <= size:
        return [text]
    step = size - overlap
    return [text[i : i + size] for i in range(0, max(len(text) - overlap, 1), step)]
