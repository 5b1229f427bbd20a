"""Words shared by every role: the stopword list and content words (what carries meaning).

The plan fallback, recall's keyword stage, statements, documents, the "never told" rule and the
groundedness check all read a text's words the same way, from here.
"""

from __future__ import annotations

import re
from typing import Protocol

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "about",
        "from",
        "into",
        "over",
        "under",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "yours",
        "we",
        "our",
        "us",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "please",
        "tell",
        "say",
        "said",
        "know",
        "think",
        "remember",
        "any",
        "some",
        "all",
        "just",
        "also",
        "very",
        "really",
        "there",
        "here",
        "as",
        "than",
        "too",
        "let",
        "lets",
        "ok",
        "okay",
        "hi",
        "hello",
        "thanks",
        "thank",
    ]
)

_WORD = re.compile(r"[\w][\w'\-]*", re.UNICODE)


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning (stopwords and 1-2 letter tokens dropped)."""
    return [w.lower() for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in STOPWORDS]


class TextEmbedder(Protocol):
    """What comparing texts by meaning needs: ``UniversalMemory.recall_port`` is one (services
    never reach the embedder itself)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...
