"""Running RQ workers: a foreground worker (``thea worker``) and a background one
inside the embedded chat, so crystallization needs no second terminal.

Workers are RQ ``SimpleWorker``s (no fork per job): the job context (memory,
model, ``workers.context.WorkerContext``) is built once per process by the composition root and
given to each worker, which hands it to the jobs it runs; the embedded vector store can only be
open in one process. Scale out by running more worker processes (server profile).

Each worker is named after its process and renews a short lease on the job it runs,
so a job whose worker died is requeued within a bounded time (``workers.recovery``).

No worker ever forks: RQ's scheduler (which moves retries with backoff back onto their queues)
would run in a forked copy of the process; thea's workers run its duty in-process instead
(``workers.due_jobs``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

import redis
from rq import Queue, SimpleWorker
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.executions import Execution
from rq.job import Job
from rq.timeouts import TimerDeathPenalty
from rq.worker import WorkerStatus

import thea.tracing as tracing
from thea.llm.scheduler import ForegroundGate
from workers.context import WorkerContext, running
from workers.due_jobs import DueJobs
from workers.liveness import worker_name
from workers.queues import ALL_QUEUES
from workers.recovery import JOB_HEARTBEAT_S, JOB_LEASE_S, MAINTENANCE_S, recover_abandoned_jobs

log = logging.getLogger(__name__)

#: the longest a worker's command-channel thread waits for a message before it looks whether
#: it should stop (RQ: 60 s, which a worker's teardown could wait out)
COMMAND_WAIT_S = 0.5


def job_span_attributes(job: Job) -> dict[str, tracing.Attribute | None]:
    """The job's span attributes: its id, its function and the impulse it works for."""
    impulse: str | None = None
    function = job.func_name or ""
    if function.endswith((".crystallize", ".read_claims")) and job.args:
        impulse = str(job.args[0])
    elif function.endswith(".distill") and job.args and job.args[0]:
        impulse = str(job.args[0][0].get("impulse_id") or "") or None
    return {tracing.JOB_ID: job.id, tracing.JOB_FUNCTION: function, tracing.IMPULSE_ID: impulse}


class LeasedWorker(SimpleWorker):
    """A SimpleWorker whose running job holds a short lease, renewed by a heartbeat thread,
    and whose maintenance also requeues jobs of workers that died (``workers.recovery``).

    ``work(with_scheduler=True)`` moves due scheduled jobs in this process (``DueJobs``): once
    when a burst starts and at each maintenance during it, every second in a thread otherwise.
    RQ's own scheduler, a forked copy of the process, is never started."""

    job_lease_s: int = JOB_LEASE_S
    job_heartbeat_s: float = JOB_HEARTBEAT_S
    #: what this worker's jobs run with (``workers.jobs`` reads it while a job runs)
    context: WorkerContext | None = None
    #: RQ's scheduler duty in this process (set by ``work(with_scheduler=True)`` or the owner)
    due_jobs: DueJobs | None = None
    _due_jobs_each_maintenance: bool = False
    _due_jobs_thread_owned: bool = False

    def _start_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
        log_format: str = DEFAULT_LOGGING_FORMAT,
    ) -> None:
        """RQ starts its scheduler here, and in its maintenance forks it as a copy of this
        process; thea moves due jobs in-process instead, and ``self.scheduler`` stays None so
        RQ's maintenance has nothing to fork."""
        self.scheduler = None
        if self.due_jobs is None:
            self.due_jobs = DueJobs(self.connection, self.queue_names())
        if burst:
            self._due_jobs_each_maintenance = True
            self._move_due_jobs()
        elif not self.due_jobs.running:
            self.due_jobs.start(name=f"rq-due-jobs:{self.name}")
            self._due_jobs_thread_owned = True

    def _move_due_jobs(self) -> None:
        if self.due_jobs is None:
            return
        try:
            self.due_jobs.move_once()
        except (redis.RedisError, OSError) as exc:  # the burst goes on; the next pass moves them
            log.warning("could not move due scheduled jobs: %s", exc)

    def run_maintenance_tasks(self) -> None:
        if self._due_jobs_each_maintenance:
            self._move_due_jobs()  # a long burst still moves retries whose time has come
        self.scheduler = None  # RQ forks its scheduler from here whenever it has one
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]

    def teardown(self) -> None:
        super().teardown()  # type: ignore[no-untyped-call]
        if self.due_jobs is not None and self._due_jobs_thread_owned:
            self.due_jobs.stop()

    def subscribe(self) -> None:
        """RQ's subscription to this worker's command channel (``rq``'s stop-job and shutdown
        commands), read by a thread that waits :data:`COMMAND_WAIT_S` at most for a message
        instead of RQ's 60 s. With redis-py 8, RQ's teardown waits for that thread to end;
        whenever the thread read the unsubscribe reply before it was told to stop, it waited
        out its whole 60 s on a channel it no longer had, and every burst that lost that race
        (often, on a loaded machine) ended a minute late."""
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=COMMAND_WAIT_S, daemon=True, exception_handler=self._pubsub_exception_handler
        )

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        return int(self.job_lease_s)

    def execute_job(self, job: Job, queue: Queue) -> None:
        execution = self.prepare_execution(job)
        stop = threading.Event()
        beat = threading.Thread(
            target=self._heartbeat_loop,
            args=(job, execution, stop),
            name=f"rq-heartbeat:{job.id}",
            daemon=True,
        )
        beat.start()
        try:
            with running(self.context), tracing.span("thea.job", job_span_attributes(job)):
                self.perform_job(job, queue, execution)
        finally:
            stop.set()
            beat.join(5)
        self.set_state(WorkerStatus.IDLE)

    def _heartbeat_loop(self, job: Job, execution: Execution, stop: threading.Event) -> None:
        while not stop.wait(self.job_heartbeat_s):
            try:
                self.maintain_heartbeats(job, execution)
            except (redis.RedisError, OSError) as exc:  # the lease runs out if this keeps failing
                log.warning("job %s: could not renew its lease: %s", job.id, exc)

    def clean_registries(self) -> None:
        try:
            recover_abandoned_jobs(self.connection, self.queue_names())
        except Exception as exc:  # maintenance must not stop the worker
            log.warning("could not look for abandoned jobs: %s", exc)
        super().clean_registries()  # type: ignore[no-untyped-call]


class GatedWorker(LeasedWorker):
    """A LeasedWorker that takes no job while a cycle holds the model (foreground first).

    In burst mode it waits up to ``gate_wait_s`` for a quiet gate and otherwise ends the
    burst; a long-running worker waits as long as it takes (heartbeating, and leaving when
    asked to stop)."""

    gate: ForegroundGate | None = None
    gate_wait_s: float = 1.0
    #: set by an in-process owner (the service shutting down): take no further job
    stop_event: threading.Event | None = None

    def _stopping(self) -> bool:
        return self._stop_requested or (self.stop_event is not None and self.stop_event.is_set())

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        if self._stopping():
            return None  # a burst ends here, between jobs: what is still queued stays queued
        if self.gate is not None:
            while not self.gate.wait_quiet(self.gate_wait_s):
                if timeout is None or self._stopping():
                    return None
                self.heartbeat()
        return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)


#: a thread worker waits this long at most for a job in one blocking call (RQ: 405 s), so its
#: connection's socket timeout, which RQ derives from it (+10 s), stays short
THREAD_DEQUEUE_WAIT_S = 20


class ThreadWorker(GatedWorker):
    """A GatedWorker that can run outside the main thread: no signal handlers, and job
    timeouts enforced by a timer thread instead of SIGALRM. Its blocking waits for a job are
    short, and so is its connection's socket timeout (30 s instead of RQ's 415 s): a reply lost
    on the embedded server's unix socket stalled the service's slow loop for 415 s per retry
    (seen once in a benchmark run: the worker waited on ``CLIENT SETNAME`` for over 20 minutes
    while the server answered every other client)."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        return None

    def subscribe(self) -> None:
        """No command channel: a thread worker lives for one burst inside its owner's process,
        under a name nobody addresses, and its owner stops it (``stop_event``)."""
        return None

    @property
    def dequeue_timeout(self) -> int:
        return THREAD_DEQUEUE_WAIT_S


def worker_connection(connection: redis.Redis) -> redis.Redis:
    """A client of ``connection``'s server with a pool of its own. An RQ worker raises the socket
    timeout of the connection it is given to its dequeue wait plus 10 s (415 s): on the service's
    shared pool, a queue call that should give up after 5 s could wait that long for a reply (a
    service stop hung on a hand-off's enqueue)."""
    pool = connection.connection_pool
    own = type(pool)(connection_class=pool.connection_class, **dict(pool.connection_kwargs))
    return redis.Redis(connection_pool=own)


def make_worker(
    connection: redis.Redis,
    queues: Sequence[str] = ALL_QUEUES,
    *,
    threaded: bool = False,
    gate: ForegroundGate | None = None,
    context: WorkerContext | None = None,
    job_lease_s: int | None = None,
    job_heartbeat_s: float | None = None,
) -> GatedWorker:
    """A worker on ``queues`` whose jobs run with ``context`` (thea's jobs need one)."""
    cls = ThreadWorker if threaded else GatedWorker
    worker = cls(
        [Queue(q, connection=connection) for q in queues],
        connection=connection,
        name=worker_name(),
        maintenance_interval=MAINTENANCE_S,
    )
    worker.gate = gate
    worker.context = context
    if job_lease_s is not None:
        worker.job_lease_s = job_lease_s
    if job_heartbeat_s is not None:
        worker.job_heartbeat_s = job_heartbeat_s
    return worker


def run_burst(
    connection: redis.Redis,
    queues: Sequence[str] = ALL_QUEUES,
    *,
    threaded: bool = True,
    gate: ForegroundGate | None = None,
    context: WorkerContext | None = None,
    stop: threading.Event | None = None,
    move_due_jobs: bool = True,
) -> bool:
    """Process everything queued now (and, with ``move_due_jobs``, retries whose time has come:
    pass False when a ``DueJobs`` thread moves them already), then return; when ``stop`` is
    set, return after the job that is running instead. Nothing is forked."""
    worker = make_worker(connection, queues, threaded=threaded, gate=gate, context=context)
    worker.stop_event = stop
    return bool(worker.work(burst=True, with_scheduler=move_due_jobs, logging_level="WARNING"))


class BackgroundWorker:
    """Polls the queues in a daemon thread until stopped; a second thread moves due scheduled
    jobs (retries with backoff) onto their queues every second (``DueJobs``: in this thread,
    never in a forked copy of the process, which inside the thea service shared its signal
    wake-up descriptor and stopped it)."""

    def __init__(
        self,
        connection: redis.Redis,
        queues: Sequence[str] = ALL_QUEUES,
        poll_s: float = 0.5,
        *,
        when_idle: Callable[[], object] | None = None,
        idle_every_s: float = 60.0,
        gate: ForegroundGate | None = None,
        context: WorkerContext | None = None,
        name: str = "thea-worker",
    ) -> None:
        self.connection = worker_connection(connection)
        self.gate = gate
        self.context = context
        self.queues = list(queues)
        self.poll_s = poll_s
        self.when_idle = when_idle
        self.idle_every_s = idle_every_s
        self._last_idle_task = time.monotonic()
        self._stop = threading.Event()
        self._busy = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.due_jobs = DueJobs(connection, self.queues)
        self._name = name

    def start(self) -> BackgroundWorker:
        self.due_jobs.start(name=f"{self._name}-due-jobs")
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            worked = True
            try:
                self._busy.set()
                worked = run_burst(
                    self.connection,
                    self.queues,
                    gate=self.gate,
                    context=self.context,
                    stop=self._stop,
                    move_due_jobs=False,
                )
            except Exception as exc:  # keep the service alive whatever a job does (the
                # traceback goes to the service log: a one-line warning did not say where)
                log.warning("background worker: %s", exc, exc_info=True)
            finally:
                self._busy.clear()
            if not worked:
                self._idle_task()
            self._stop.wait(self.poll_s)

    def _idle_task(self) -> None:
        """Maintenance (e.g. building the vector index) when no job was waiting, now and then."""
        if self.when_idle is None or time.monotonic() - self._last_idle_task < self.idle_every_s:
            return
        self._last_idle_task = time.monotonic()
        try:
            self.when_idle()
        except Exception as exc:
            log.warning("background maintenance failed: %s", exc)

    @property
    def busy(self) -> bool:
        """True while a pass over the queues runs (a job may be executing)."""
        return self._busy.is_set()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Let the running job finish (waiting up to ``timeout_s``) and take no other: jobs still
        queued stay queued for the next worker."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        self.due_jobs.stop()
        if not self._thread.is_alive():
            self.connection.close()
