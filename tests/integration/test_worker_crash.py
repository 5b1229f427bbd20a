"""An RQ worker killed (-9) in the middle of a job loses nothing, and its job does not stay
"running": thea's workers are named after their process and renew a short lease on the
job they run (``workers.recovery``), so the job is handed back to RQ (retried) as soon as
a clean-up sees its worker gone (this machine) or its lease run out (another machine).
The crystallize job is idempotent: the impulse ends with exactly one crystal.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import redis
from rq import Queue, Retry
from rq.job import JobStatus
from rq.registry import StartedJobRegistry

from services.reflection.crystallizer import crystal_id
from tests.processes import ROOT, thea, wait_for
from thea.config import Settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.factory import embedded_server
from thea.models import KnowledgeCrystal
from thea.runtime import build_runtime
from workers.admin import failed_jobs
from workers.queues import CRYSTALLIZE
from workers.recovery import recover_abandoned_jobs
from workers.worker import make_worker

WORKER = textwrap.dedent(
    """
    import sys
    import workers.liveness as liveness
    from thea.llm.fake import FakeChatModel
    from thea.llm.prompt_ids import PromptId
    from thea.config import load_settings
    from thea.runtime import build_runtime
    from workers.worker import make_worker

    if sys.argv[2] == "elsewhere":  # pretend the worker runs on another machine
        liveness.current_node = lambda: "elsewhere000"
    settings = load_settings("embedded", data_dir=sys.argv[1], llm={"provider": "fake"})
    rt = build_runtime(settings, llm=FakeChatModel(slow={PromptId.CRYSTALLIZE}, slow_seconds=120))
    print("worker ready", flush=True)
    lease = int(sys.argv[3])
    worker = make_worker(
        rt.jobs.connection,
        ["thea-crystallize"],
        context=rt.worker_context,
        job_lease_s=lease,
        job_heartbeat_s=0.5,
    )
    worker.work(burst=True)
    """
)


def _queued_impulse(settings: Settings) -> str:
    """An answered impulse whose crystallize job waits in the queue (and no process left open)."""
    settings.queue.retry_backoff_s = [0]  # retry at once (the default backs off 2, 10, 60 s)
    rt = build_runtime(settings, llm=FakeChatModel())
    impulse_id = asyncio.run(
        rt.orchestrator.handle_impulse("I work on Redis queues.", "ana", "s1")
    ).impulse_id
    rt.close()  # the embedded vector store belongs to one process: hand it to the worker
    return impulse_id


def _started(sock: Path) -> list[str]:
    if not sock.exists():
        return []
    try:
        conn = redis.Redis(unix_socket_path=str(sock))
        return StartedJobRegistry(queue=Queue(CRYSTALLIZE, connection=conn)).get_job_ids(cleanup=False)
    except redis.RedisError:
        return []


def _kill_worker_mid_job(
    settings: Settings, where: str, lease_s: int = 3
) -> tuple[subprocess.Popen[str], list[str]]:
    """Start a worker process that stalls in the crystallize job; kill -9 it once the job runs."""
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(settings.data_dir), where, str(lease_s)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    sock = Path(settings.data_dir) / "graph" / "falkordb.sock"
    started: list[str] = []
    try:
        started = wait_for(lambda: _started(sock), 90, "the worker to start the job", poll_s=0.2)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.communicate(timeout=30)
    return worker, started


def test_a_worker_killed_mid_crystallization_loses_nothing_and_its_job_is_requeued_at_once(
    settings: Settings,
) -> None:
    impulse_id = _queued_impulse(settings)
    _, started = _kill_worker_mid_job(settings, "here")
    assert started == [f"crystallize-{impulse_id}"]

    # `thea jobs` right after the kill: the job is not "running", it is back in the queue (the
    # service `thea jobs` starts has no worker here, so the job stays where it was put)
    data = Path(settings.data_dir)
    done = thea(["jobs", "--json"], data, THEA_SERVICE__WORKERS="0")
    thea(["service", "stop"], data)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (counts,) = [q for q in report["queues"] if q["name"] == CRYSTALLIZE]
    assert counts["started"] == 0
    assert counts["queued"] + counts["scheduled"] == 1
    assert report["recovered"] == [f"crystallize-{impulse_id}"]
    assert report["failed"] == []

    rt = build_runtime(settings, llm=FakeChatModel())
    try:
        assert not rt.memory.get([crystal_id(impulse_id)])  # died before writing
        rt.run_jobs()
        found = rt.memory.get([crystal_id(impulse_id)])
        assert len(found) == 1
        assert isinstance(found[0], KnowledgeCrystal)
        assert failed_jobs(rt.jobs.connection) == []
    finally:
        rt.close()


def test_the_job_of_a_worker_that_died_on_another_machine_is_requeued_when_its_lease_runs_out(
    settings: Settings,
) -> None:
    impulse_id = _queued_impulse(settings)
    _, started = _kill_worker_mid_job(settings, "elsewhere", lease_s=8)
    killed_at = time.monotonic()
    assert started == [f"crystallize-{impulse_id}"]
    server = embedded_server(settings).start()  # the dead worker's server went with it
    try:
        conn = server.client()
        # its process cannot be checked from here: the job counts as running until its lease is out
        assert recover_abandoned_jobs(conn) == []
        assert StartedJobRegistry(queue=Queue(CRYSTALLIZE, connection=conn)).get_job_ids() == started
        recovered = wait_for(lambda: recover_abandoned_jobs(conn), 30, "the lease to run out")
        waited = time.monotonic() - killed_at
        assert recovered == [f"crystallize-{impulse_id}"]
        # 8 s after the last heartbeat (every 0.5 s), less up to 1 s: RQ keeps whole seconds
        assert 6 <= waited < 20, waited
        rt = build_runtime(settings, llm=FakeChatModel())
        try:

            def crystallized() -> list[object]:
                rt.run_jobs()  # a requeued job may wait out its retry delay first (seen under load)
                return list(rt.memory.get([crystal_id(impulse_id)]))

            assert len(wait_for(crystallized, 30, "the requeued job to run", poll_s=0.5)) == 1
        finally:
            rt.close()
    finally:
        server.stop()


def test_a_running_job_keeps_its_lease_and_runs_once(settings: Settings) -> None:
    settings.queue.retry_backoff_s = [0]
    llm = FakeChatModel(slow={PromptId.CRYSTALLIZE}, slow_seconds=8)
    rt = build_runtime(settings, llm=llm)
    try:
        impulse_id = asyncio.run(
            rt.orchestrator.handle_impulse("I work on Redis queues.", "ana", "s1")
        ).impulse_id
        conn = rt.jobs.connection
        worker = make_worker(
            conn, [CRYSTALLIZE], threaded=True, context=rt.worker_context, job_lease_s=3, job_heartbeat_s=0.3
        )
        thread = threading.Thread(target=worker.work, kwargs={"burst": True, "logging_level": "WARNING"})
        thread.start()
        registry = StartedJobRegistry(queue=Queue(CRYSTALLIZE, connection=conn))
        wait_for(lambda: registry.get_job_ids(cleanup=False), 30, "the job to start")
        while thread.is_alive():  # clean-ups, as other workers and `thea jobs` run them meanwhile
            assert recover_abandoned_jobs(conn) == []
            registry.cleanup()
            time.sleep(0.3)
        thread.join()
        assert (
            len(llm.prompts_for(PromptId.CRYSTALLIZE)) == 1
        )  # an 8 s job on a 3 s lease was never taken away
        assert len(rt.memory.get([crystal_id(impulse_id)])) == 1
        assert failed_jobs(conn) == []
    finally:
        rt.close()


TAKER = textwrap.dedent(
    """
    import os, sys
    import redis
    from workers.worker import make_worker

    conn = redis.Redis(unix_socket_path=sys.argv[1])
    worker = make_worker(conn, [sys.argv[2]])
    worker.register_birth()
    job, queue = worker.dequeue_job_and_maintain_ttl(timeout=5)
    worker.prepare_execution(job)  # in the started registry, not yet marked started
    os._exit(0)  # dies here, as a kill -9 between RQ's two steps would leave it
    """
)


def test_a_job_whose_worker_died_before_marking_it_started_goes_back_to_its_queue(
    falkordb_server: EmbeddedFalkorDB, redis_connection: redis.Redis
) -> None:
    """CI saw it: the job was neither queued nor failed after `thea jobs` (RQ's clean-up drops
    the entry of a job that is not "started" and leaves the job in limbo)."""
    queue = Queue(CRYSTALLIZE, connection=redis_connection)
    job = queue.enqueue("os.getcwd", retry=Retry(max=1, interval=[0]))
    taker = subprocess.run(
        [sys.executable, "-c", TAKER, str(falkordb_server.socket_path), CRYSTALLIZE],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert taker.returncode == 0, taker.stderr
    registry = StartedJobRegistry(queue=queue)
    assert registry.get_job_ids(cleanup=False) == [job.id]
    assert job.get_status(refresh=True) == JobStatus.QUEUED
    assert queue.job_ids == []  # taken: only the dead worker's entry knows of it

    assert recover_abandoned_jobs(redis_connection) == [job.id]
    assert queue.job_ids == [job.id]
    assert registry.get_job_ids(cleanup=False) == []
    assert failed_jobs(redis_connection) == []

    make_worker(redis_connection, [CRYSTALLIZE], threaded=True).work(burst=True)
    assert job.get_status(refresh=True) == JobStatus.FINISHED
    assert recover_abandoned_jobs(redis_connection) == []
