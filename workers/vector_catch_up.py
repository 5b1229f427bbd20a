"""Vectors that wait: the background computes the vectors a large import left for later.

A large ``thea import`` writes its turns to the graph and the log only, each marked as waiting
for its vectors (``UniversalMemory.record(..., embed=False)``): the embedding model is almost
all of an import's time. :class:`VectorCatchUp` is a thread of the service (and of ``thea
worker`` in the server profile) that embeds the oldest waiting memories in small batches with
the store's own embedder, so the store keeps one embedding space: it reads :data:`WINDOW` of
them and embeds them shortest first, :data:`BATCH` at a time. It yields to the user: no batch
starts while a cycle holds the foreground gate, and a batch takes about a second. Until
a memory's vectors are in, recall finds it by its words; ``thea memory check`` counts it as
pending and the log says how far the catch-up is every :data:`REPORT_EVERY_S`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from thea.errors import TheaError
from thea.llm.scheduler import ForegroundGate
from thea.memory.ports import VectorBacklog

log = logging.getLogger(__name__)

#: memories embedded per batch: about a second of the default model on two cores, so a question
#: waits for at most that long behind the catch-up
BATCH = 32
#: memories read at once and embedded shortest first, a batch at a time: a batch of texts of one
#: length is padded little (32 texts picked at random ran at a third of the model's speed)
WINDOW = 512


def catch_up_window(
    memory: VectorBacklog,
    *,
    window: int = WINDOW,
    batch: int = BATCH,
    before_batch: Callable[[], bool] | None = None,
) -> int:
    """Embed up to ``window`` waiting memories, shortest first, ``batch`` at a time; before each
    batch ``before_batch()`` may wait (for the user) and says whether to go on. How many were
    embedded (0: none waits)."""
    nodes = sorted(memory.waiting_for_vectors(window), key=lambda n: len(n.embedding_text() or ""))
    done = 0
    for start in range(0, len(nodes), batch):
        if before_batch is not None and not before_batch():
            break
        done += memory.embed_waiting(nodes[start : start + batch])
    return done


#: how long the thread sleeps when nothing waits (an import wakes it at once)
IDLE_S = 10.0
#: how often a running catch-up logs its progress
REPORT_EVERY_S = 30.0


class VectorCatchUp:
    def __init__(
        self,
        memory: VectorBacklog,
        gate: ForegroundGate | None = None,
        *,
        batch: int = BATCH,
        idle_s: float = IDLE_S,
    ) -> None:
        self.memory = memory
        self.gate = gate
        self.batch = batch
        self.idle_s = idle_s
        #: memories embedded since this thread started
        self.done = 0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="thea-vector-catch-up", daemon=True)

    def start(self) -> VectorCatchUp:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Look for waiting memories now (an import has just left some)."""
        self._wake.set()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Finish the running batch and end."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def _rest(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _loop(self) -> None:
        since, done_since = time.monotonic(), 0
        while not self._stop.is_set():
            try:
                done = catch_up_window(self.memory, batch=self.batch, before_batch=self._may_go_on)
            except TheaError as exc:  # an engine away: try again later, the marks stay
                log.warning("vector catch-up paused: %s", exc)
                self._rest(self.idle_s)
                continue
            except Exception:  # never end the thread: the waiting memories would stay waiting
                log.exception("vector catch-up failed")
                self._rest(self.idle_s)
                continue
            self.done += done
            done_since += done
            now = time.monotonic()
            if done_since and (done == 0 or now - since >= REPORT_EVERY_S):
                left = self._left()
                log.info(
                    "vector catch-up: %d memories embedded in %.0f s (%.0f/s), %s still wait",
                    done_since,
                    now - since,
                    done_since / max(now - since, 1e-9),
                    {0: "none", -1: "an unknown number"}.get(left, f"{left:,}"),
                )
                since, done_since = now, 0
            if done == 0:
                self._rest(self.idle_s)
                since = time.monotonic()

    def _may_go_on(self) -> bool:
        """Wait while a cycle answers the user (it has the cores); False once stopping."""
        while self.gate is not None and not self.gate.wait_quiet(1.0):
            if self._stop.is_set():
                return False
        return not self._stop.is_set()

    def _left(self) -> int:
        try:
            return self.memory.pending_vectors()
        except TheaError:
            return -1
