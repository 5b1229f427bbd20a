"""An optional reflection schedule: every N seconds, queue a reflection per user.

Jobs go through the normal reflect queue (so the per-user lock and the atomic
merge apply); a reflection still pending for a user is not queued twice.
"""

from __future__ import annotations

import logging
import threading
import time

from thea.memory.ports import ReflectionSource
from workers.queues import RQJobSink

log = logging.getLogger(__name__)


def queue_reflections(memory: ReflectionSource, jobs: RQJobSink, slot: str) -> list[str]:
    """Queue one reflection per user with 2+ active insights; ``slot`` names the round."""
    users = memory.reflection.users_with_insights()
    return [jobs.enqueue_reflect(user, f"scheduled-{slot}-{user}") for user in users]


class ReflectionSchedule:
    def __init__(self, memory: ReflectionSource, jobs: RQJobSink, every_s: float) -> None:
        self.memory = memory
        self.jobs = jobs
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="thea-reflect-schedule", daemon=True)

    def start(self) -> ReflectionSchedule:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                queued = queue_reflections(self.memory, self.jobs, str(int(time.time() // self.every_s)))
                log.info("scheduled reflection: queued %d job(s)", len(queued))
            except Exception as exc:  # a missed round is retried at the next one
                log.warning("scheduled reflection skipped: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
