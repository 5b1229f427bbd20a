"""An RQ worker killed (-9) in the middle of a crystallization loses nothing.

The job stays in RQ's started registry; when the registry is cleaned (any worker
does that on its maintenance round) the abandoned job is retried, and because
the job is idempotent the impulse ends with exactly one crystal.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from rq import Queue
from rq.registry import StartedJobRegistry

from services.crystallizer import crystal_id
from tests.fakes import ScriptedChatModel
from thea.config import Settings
from thea.models import KnowledgeCrystal
from thea.runtime import build_runtime
from workers.admin import failed_jobs
from workers.queues import CRYSTALLIZE
from workers.worker import run_burst

ROOT = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent(
    """
    import sys
    from tests.fakes import ScriptedChatModel
    from thea.config import load_settings
    from thea.runtime import build_runtime
    from workers.worker import make_worker

    settings = load_settings("embedded", data_dir=sys.argv[1], llm={"provider": "fake"})
    rt = build_runtime(settings, llm=ScriptedChatModel(slow_roles={"crystallize"}, slow_seconds=120))
    rt.install_worker_context()
    print("worker ready", flush=True)
    make_worker(rt.jobs.connection, ["thea-crystallize"]).work(burst=True)
    """
)


def test_a_worker_killed_mid_crystallization_loses_nothing(settings: Settings) -> None:
    settings.queue.retry_backoff_s = [0]  # retry at once (the default backs off 2, 10, 60 s)
    rt = build_runtime(settings, llm=ScriptedChatModel())
    impulse_id = asyncio.run(
        rt.orchestrator.handle_impulse("I work on Redis queues.", "ana", "s1")
    ).impulse_id
    rt.close()  # the embedded vector store belongs to one process: hand it to the worker

    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(settings.data_dir)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        import redis

        sock = Path(settings.data_dir) / "graph" / "falkordb.sock"
        deadline = time.monotonic() + 60
        started: list[str] = []
        while time.monotonic() < deadline and not started:
            time.sleep(0.2)
            if sock.exists():
                try:
                    conn = redis.Redis(unix_socket_path=str(sock))
                    started = StartedJobRegistry(queue=Queue(CRYSTALLIZE, connection=conn)).get_job_ids()
                except redis.RedisError:
                    continue
    finally:
        worker.send_signal(signal.SIGKILL)
        output = worker.communicate(timeout=30)[0]
    assert started == [f"crystallize-{impulse_id}"], f"the worker never started the job:\n{output}"

    rt = build_runtime(settings, llm=ScriptedChatModel())
    try:
        rt.install_worker_context()
        assert not rt.memory.get([crystal_id(impulse_id)])  # died before writing
        registry = StartedJobRegistry(queue=Queue(CRYSTALLIZE, connection=rt.jobs.connection))
        registry.cleanup(timestamp=time.time() + 10_000)  # as a worker's maintenance would, later
        run_burst(rt.jobs.connection)
        found = rt.memory.get([crystal_id(impulse_id)])
        assert len(found) == 1
        assert isinstance(found[0], KnowledgeCrystal)
        assert failed_jobs(rt.jobs.connection) == []
    finally:
        rt.close()
