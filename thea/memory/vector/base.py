"""The vector port: the semantic layer (embeddings of recall-worthy content)."""

from __future__ import annotations

import abc
from collections.abc import Sequence

from thea.models import Collection, HealthStatus, VectorFilter, VectorHit, VectorRecord


class VectorStore(abc.ABC):
    """Abstract vector store with one collection per :class:`Collection`.

    Point ids are the node ids (UUID strings) plus the chunk number for long
    texts, so re-upserting the same node overwrites instead of duplicating.
    Payload fields ``type``, ``user_id``, ``active`` and ``created_at`` are indexed.
    """

    backend: str = "vector"

    @abc.abstractmethod
    def ensure_collections(self, dimension: int) -> None:
        """Create every collection and payload index if missing (idempotent)."""

    @abc.abstractmethod
    def upsert(self, records: Sequence[VectorRecord]) -> int:
        """Insert or overwrite records in one batch per collection."""

    @abc.abstractmethod
    def search(
        self,
        collection: Collection,
        vector: Sequence[float],
        limit: int = 10,
        flt: VectorFilter | None = None,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        """Nearest neighbours by cosine similarity, best first, filtered."""

    @abc.abstractmethod
    def set_active(self, collection: Collection, ids: Sequence[str], active: bool) -> None:
        """Flip the ``active`` payload flag of every chunk of the given node ids."""

    @abc.abstractmethod
    def existing_ids(self, collection: Collection, ids: Sequence[str]) -> set[str]:
        """Which of these node ids have at least one point (for consistency checks)."""

    @abc.abstractmethod
    def scan_node_ids(
        self, collection: Collection, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[str], str | None]:
        """One page of the node ids behind the points of a collection (an id repeats once per
        chunk), and the cursor of the next page (None at the end). For consistency scans."""

    def unindexed_points(self) -> int:
        """Points not yet in a search index (searched exactly). Servers index by themselves: 0."""
        return 0

    def optimize(self) -> None:  # noqa: B027 - optional: servers optimise by themselves
        """Build search indexes for what was written since the last call (a maintenance step:
        it can take a while and blocks other calls of an embedded store). Default: nothing."""

    def compact(self) -> bool:
        """Rewrite the store's files so that deleted and overwritten points are gone from disk
        (forgetting); True when done. Default: False (a server compacts on its own schedule)."""
        return False

    @abc.abstractmethod
    def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        """Remove every point of the given node ids."""

    @abc.abstractmethod
    def count(self, collection: Collection) -> int:
        """Number of points in a collection."""

    @abc.abstractmethod
    def health(self) -> HealthStatus:
        """Reachability, never raises."""

    @abc.abstractmethod
    def close(self) -> None:
        """Flush and release the store."""
