"""The service's queue calls give up quickly on a lost reply, whatever its workers did."""

from __future__ import annotations

import time

from thea.runtime import Runtime


def test_the_queue_connection_keeps_its_short_timeout_after_workers_ran(runtime: Runtime) -> None:
    """An RQ worker raises the socket timeout of the connection it is given to 415 s; on the
    shared pool a service stop waited on a hand-off's enqueue that long (the terminal trial)."""
    pool = runtime.jobs.connection.connection_pool
    before = pool.connection_kwargs["socket_timeout"]
    runtime.run_jobs()
    runtime.start_background_worker()
    time.sleep(1.5)  # the background worker's first burst has made its RQ worker
    assert pool.connection_kwargs["socket_timeout"] == before
    assert before <= 10
