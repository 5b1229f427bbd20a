"""Export and import: impulses page by page, whole cycles in one batch, existing ids."""

from __future__ import annotations

import abc
from collections.abc import Sequence

from thea.models import DocumentChunk, Node, UserImpulse


class ExchangeOperations(abc.ABC):
    @abc.abstractmethod
    def impulses_page(
        self, after_time: int, after_id: str, user_id: str | None, limit: int
    ) -> list[UserImpulse]:
        """Impulses after a ``(created_at, id)`` cursor, oldest first (keyset pagination)."""

    @abc.abstractmethod
    def cycles_nodes(self, correlation_ids: Sequence[str]) -> dict[str, list[Node]]:
        """Every node of several cycles at once, keyed by correlation id (each id a key)."""

    @abc.abstractmethod
    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids are memory nodes."""

    @abc.abstractmethod
    def document_chunks(self, document_id: str, user_id: str) -> list[DocumentChunk]:
        """One user's pasted document as its chunks, in order (joined: the pasted text)."""

    @abc.abstractmethod
    def documents_texts(self, document_ids: Sequence[str]) -> dict[str, str]:
        """Several pasted documents' whole texts at once, keyed by document id (ids with no
        chunks are left out)."""
