"""What comparing texts by meaning needs (the words of a text are read by :mod:`thea.words`)."""

from __future__ import annotations

from typing import Protocol


class TextEmbedder(Protocol):
    """What comparing texts by meaning needs: ``UniversalMemory.recall_port`` is one (services
    never reach the embedder itself)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...
