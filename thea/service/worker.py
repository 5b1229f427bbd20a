"""A slow-loop worker process for the server profile (``thea worker``; compose runs N of them).

Stateless like the app: it opens its own connections to the shared Neo4j, Qdrant and Redis,
takes crystallize/distill/reflect jobs from the queues and yields the model to running cycles
through the shared (Redis) foreground gate. Ctrl-C finishes the running job and exits with
one line; a second Ctrl-C stops at once (the job is requeued by the next worker's clean-up).
"""

from __future__ import annotations

import logging
import os
import sys

from thea.config import Settings
from thea.errors import BackendUnavailable, ConfigError, TheaError
from thea.private_files import PRIVATE_UMASK
from thea.runtime import build_runtime
from workers.queues import ALL_QUEUES
from workers.worker import make_worker

log = logging.getLogger(__name__)


def run_worker(settings: Settings, *, burst: bool = False) -> int:
    if settings.embedded_queue:
        print(
            "the embedded profile's slow loop runs inside the thea service; `thea worker` is for "
            "the server profile",
            file=sys.stderr,
        )
        return 2
    os.umask(PRIVATE_UMASK)  # its files in the data dir (logs, locks) are the user's only
    try:
        runtime = build_runtime(settings)
    except ConfigError as exc:
        print(f"thea worker: {exc}", file=sys.stderr)
        return 2
    except BackendUnavailable as exc:
        print(f"thea worker: {exc}", file=sys.stderr)
        return 3
    except TheaError as exc:
        print(f"thea worker: {exc}", file=sys.stderr)
        return 1
    try:
        runtime.start_schedule()
        runtime.start_vector_catch_up()
        worker = make_worker(
            runtime.jobs.connection, ALL_QUEUES, gate=runtime.gate, context=runtime.worker_context
        )
        print(f"thea worker {worker.name} on {', '.join(ALL_QUEUES)}" + (" (burst)" if burst else ""))
        worker.work(burst=burst, with_scheduler=True, logging_level="WARNING")
    except (KeyboardInterrupt, SystemExit):
        print("thea worker stopped", file=sys.stderr)
    finally:
        runtime.close()
    return 0
