"""Keeping the embedded vector index built without a background optimiser.

Qdrant Edge searches points outside an HNSW index exactly (fine for thousands, O(N) for
100k). :class:`IndexKeeper` builds the index when enough new points piled up; the chat's
background worker calls it when it has nothing else to do. An optimise pauses the
embedded store's other calls while it runs, so it happens rarely and only when idle.
"""

from __future__ import annotations

import logging
import time

from thea.memory.vector.base import VectorStore

log = logging.getLogger(__name__)


class IndexKeeper:
    def __init__(self, vectors: VectorStore, threshold: int = 5000) -> None:
        self.vectors = vectors
        self.threshold = threshold
        #: points a previous optimise left unindexed (segments too small to index)
        self._floor = 0

    def due(self) -> bool:
        return self.vectors.unindexed_points() - self._floor >= self.threshold

    def maybe_optimize(self) -> bool:
        """Build the index if enough points are waiting; True if it ran."""
        if self.threshold <= 0 or not self.due():
            return False
        started = time.perf_counter()
        self.vectors.optimize()
        self._floor = self.vectors.unindexed_points()
        log.info(
            "vector index built in %.1f s (%d points left exact)", time.perf_counter() - started, self._floor
        )
        return True
