"""The embedded vector index is built when enough points wait, and only when idle."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from rq import Queue

from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.vector.indexing import IndexKeeper
from thea.memory.vector.qdrant_edge import QdrantEdgeStore
from thea.models import Collection, VectorRecord
from workers.queues import CRYSTALLIZE
from workers.worker import BackgroundWorker


def records(n: int) -> list[VectorRecord]:
    out = []
    for i in range(n):
        vector = [0.0] * 384
        vector[i % 384] = 1.0
        vector[(i * 7) % 384] += 0.5
        out.append(
            VectorRecord(
                collection=Collection.EXPERIENCE,
                id=f"n{i}",
                vector=vector,
                text=f"memory {i}",
                type="UserImpulse",
                user_id="ana",
                created_at=i,
            )
        )
    return out


def test_index_is_built_once_enough_points_wait(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path / "vectors", dimension=384)
    try:
        keeper = IndexKeeper(store, threshold=50)
        store.upsert(records(20))
        assert store.unindexed_points() == 20
        assert keeper.maybe_optimize() is False  # not enough waiting
        store.upsert(records(80))
        assert keeper.maybe_optimize() is True
        assert keeper.maybe_optimize() is False  # nothing new since
        hits = store.search(Collection.EXPERIENCE, records(100)[42].vector, limit=1)
        assert [h.id for h in hits] == ["n42"]
    finally:
        store.close()


#: how many times :func:`_busy_job` finished
JOB_RUNS: list[float] = []


def _busy_job(seconds: float) -> None:
    """A queued job that keeps the worker busy for a while."""
    time.sleep(seconds)
    JOB_RUNS.append(time.monotonic())


def test_background_worker_runs_maintenance_only_when_idle(tmp_path: Path) -> None:
    server = EmbeddedFalkorDB(tmp_path / "graph").start()
    connection = server.client()
    queue = Queue(CRYSTALLIZE, connection=connection)
    JOB_RUNS.clear()
    for _ in range(2):  # work is waiting when the worker starts
        queue.enqueue(_busy_job, 0.3)
    #: at each maintenance run: (jobs still waiting, jobs finished)
    seen: list[tuple[int, int]] = []
    ran = threading.Event()

    def idle() -> None:
        seen.append((queue.count, len(JOB_RUNS)))
        ran.set()

    worker = BackgroundWorker(connection, poll_s=0.05, when_idle=idle, idle_every_s=0.0).start()
    try:
        assert ran.wait(10), "idle maintenance never ran"
    finally:
        worker.stop()
        server.stop()
    assert seen[0] == (0, 2), "maintenance ran while jobs were waiting or running"
