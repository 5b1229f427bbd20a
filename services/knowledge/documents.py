"""Pastes: a long message is stored as a document, not as one giant impulse.

Above :data:`~services.common.limits.DOCUMENT_CHARS` characters a message becomes a
:class:`~thea.models.Document` and its numbered :class:`~thea.models.DocumentChunk` memories
(each with the document's id, its index and its ``[char_start, char_end)`` in the text; the
chunks tile the text, so joined they are the message verbatim). They are written in the same
batched ``record`` as the impulse: graph, full-text index and embeddings at once.

A message stored through ``remember`` (the API's and MCP's) is handled the same way: the
:class:`~thea.models.DialogueTurn` keeps the summary and the chunks hold the text.

The impulse keeps a summary instead of the text: a marker with the document's size and its
first sentences (a deterministic extract, at most ``DOCUMENT_SUMMARY_CHARS``). That summary is
what prompts and the conversation cache carry; the paste is answered with an acknowledgement
saying what was stored (no model writes it, and nothing is echoed). Recall finds the chunks and
ranks them so that a paste cannot crowd out everything else (services/recall/documents.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from services.common.limits import (
    COMMON_TERM_SHARE,
    DOCUMENT_CHARS,
    DOCUMENT_CHUNK_CHARS,
    DOCUMENT_SUMMARY_CHARS,
    MAX_CHUNK_TERMS,
    MAX_EMBEDDED_CHUNKS,
)
from services.common.statements import sentences
from services.recall.lexical import terms
from thea.memory.chunking import spread_evenly
from thea.models import (
    DialogueTurn,
    Document,
    DocumentChunk,
    Edge,
    EdgeType,
    Node,
    UserImpulse,
    stable_id,
)
from thea.words import STOPWORDS

#: where a chunk prefers to end, best first: a blank line, a line end, a sentence end, a space
_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"[.!?]\s"), re.compile(r"\s"))


@dataclass
class Paste:
    """A document made of a message, ready to be recorded with its impulse."""

    document: Document
    chunks: list[DocumentChunk] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    @property
    def nodes(self) -> list[Node]:
        return [self.document, *self.chunks]


def is_document(text: str, threshold: int = DOCUMENT_CHARS) -> bool:
    return len(text) > threshold


def chunk_spans(text: str, size: int = DOCUMENT_CHUNK_CHARS) -> list[tuple[int, int]]:
    """``[start, end)`` spans of at most ``size`` characters that tile the text, each ending at
    the best break in the second half of its window (a paragraph, a line, a sentence, a word),
    or cut hard when there is none (one 200,000-character word)."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            window = text[start:end]
            for pattern in _BREAKS:
                cuts = [m.end() for m in pattern.finditer(window) if m.end() > size // 2]
                if cuts:
                    end = start + cuts[-1]
                    break
        spans.append((start, end))
        start = end
    return spans


def distinctive_terms(texts: list[str]) -> list[list[str]]:
    """Per text, its stemmed words found in at most ``COMMON_TERM_SHARE`` of the texts (at
    least one other may share it): what tells one chunk of a document from the others. A
    word all over the document (its topic, or the filler of a junk paste) is in none."""
    per_text = [list(dict.fromkeys(terms(t, STOPWORDS))) for t in texts]
    spread: Counter[str] = Counter(t for words in per_text for t in words)
    most = max(1, int(len(texts) * COMMON_TERM_SHARE))
    return [[t for t in words if spread[t] <= most and len(t) > 2][:MAX_CHUNK_TERMS] for words in per_text]


def size_text(chars: int) -> str:
    kb = chars / 1000
    return f"{kb:,.0f} KB" if kb >= 10 else f"{kb:,.1f} KB"


def head(text: str, limit: int = DOCUMENT_SUMMARY_CHARS) -> str:
    """The first sentences of a text, at most ``limit`` characters (cut at a word, marked …)."""
    flat = " ".join(text[: limit * 4].split())
    kept = ""
    for sentence in sentences(flat):
        if len(kept) + len(sentence) + 1 > limit:
            break
        kept = f"{kept} {sentence}".strip()
    if not kept:
        kept = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
        kept += " …"
    return kept


def summary(document: Document, text: str) -> str:
    """What the impulse and the prompts carry instead of the paste."""
    return (
        f"[pasted document {document.id[:8]}: {size_text(document.chars)}, {document.lines:,} lines, "
        f"{document.chunks} chunks; it begins:] {head(text)}"
    )


def make_paste(message: UserImpulse | DialogueTurn, size: int = DOCUMENT_CHUNK_CHARS) -> Paste:
    """The document and chunks of a long message (a chat impulse, or a turn stored through
    ``remember``); the message now carries the summary and a reference to the document (its
    text lives in the chunks)."""
    text = message.content
    spans = chunk_spans(text, size)
    scope = {"user_id": message.user_id, "session_id": message.session_id}
    document = Document(
        id=stable_id("document", message.id),
        chars=len(text),
        lines=text.count("\n") + 1,
        chunks=len(spans),
        source_id=message.id,
        correlation_id=message.correlation_id,
        created_at=message.created_at,
        **scope,
    )
    document.content = head(text)
    pieces = [text[start:end] for start, end in spans]
    embedded = {i for i, _ in spread_evenly(pieces, MAX_EMBEDDED_CHUNKS)}
    chunks = [
        DocumentChunk(
            id=stable_id("chunk", document.id, str(i)),
            content=piece,
            document_id=document.id,
            chunk_index=i,
            char_start=start,
            char_end=end,
            terms=words,
            embedded=i in embedded,
            created_at=message.created_at,
            **scope,
        )
        for i, ((start, end), piece, words) in enumerate(
            zip(spans, pieces, distinctive_terms(pieces), strict=True)
        )
    ]
    message.content = summary(document, text)
    message.document_id = document.id
    edges = [Edge(src=message.id, dst=document.id, type=EdgeType.HAS_DOCUMENT)]
    edges += [Edge(src=c.id, dst=document.id, type=EdgeType.CHUNK_OF) for c in chunks]
    return Paste(document, chunks, edges)


def acknowledgement(document: Document) -> str:
    """The answer to a paste: what was stored, never the paste itself."""
    lines = f"{document.lines:,} line{'s' if document.lines != 1 else ''}"
    return (
        f"Stored your {size_text(document.chars)} paste as a document with {document.chunks} chunks "
        f"(document {document.id[:8]}, {lines}). Ask me about it and I will search it."
    )
