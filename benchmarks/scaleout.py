"""Server mode, run for real: replicas and workers over a FalkorDB server and Redis, killed under load.

A FalkorDB server and a Redis server (separate processes), two thea services in the server
profile on two TCP ports with tokens, and two ``thea worker`` processes
(:mod:`thea.testing.deployment`, settings from ``config/server-falkordb.env``, the fake model).
``clients`` concurrent :class:`thea.Client` s (threads; one user, token and session each) send
chat turns (``ask``, 80 %) and remembered messages (``remember``), each text unique:

1. **one service**: every client on service 0, for ``phase_s`` seconds;
2. **two services**: the clients spread over both (client i on service i % 2), as long;
3. **failover**: spread again; ``kill_at_s`` into it service 1 and worker 0 get ``kill -9``;
   both are started again ``down_s`` later, as an orchestrator would;
4. **drain**: the load stops and the workers empty the queues (the workers yield to every
   running cycle, so under load they take no job); halfway, worker 1 gets ``kill -9`` while
   it runs jobs and is started again.

Then it checks what the clients were told against the stores: every acknowledged record (the
impulse, its answer and the facts it told; a remembered turn) looked up by id in the graph, the
vectors and the chronicle, and ``thea memory check`` (then ``repair``); messages stored twice and
impulses answered twice; each acknowledged turn's crystallize job finished exactly once (RQ's
results of the job); each failed request's error, and whether it was a clean retryable one
(:class:`~thea.client.errors.ServiceUnavailable`) of a client of the killed service while it
was down. Throughput of one service against two comes from phases 1 and 2 of the same run.

    python -m benchmarks scaleout [--quick | --full]
    python -m benchmarks.scaleout [--full]
"""

from __future__ import annotations

import json
import os
import random
import resource
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rq.job import Job, JobStatus
from rq.results import Result

from benchmarks.common import machine, percentile, row, standalone_main
from thea.client import Client
from thea.client.errors import ServiceUnavailable
from thea.errors import BackendUnavailable, TheaError
from thea.memory.factory import open_memory
from thea.memory.universal import UniversalMemory, collection_for
from thea.models import Collection, Node, NodeType, UserImpulse
from thea.testing.deployment import Child, Deployment, cpu_seconds, rss_bytes
from workers.admin import queue_counts

#: share of requests that are remembered messages (the rest: chat turns)
REMEMBER_SHARE = 0.2
THINGS = [
    "bike",
    "kettle",
    "guitar",
    "camera",
    "tent",
    "scooter",
    "piano",
    "lamp",
    "drone",
    "rug",
    "sofa",
    "clock",
    "telescope",
    "kayak",
    "violin",
    "printer",
    "blender",
    "compass",
    "backpack",
    "helmet",
]
PLACES = [
    "Porto",
    "Lyon",
    "Krakow",
    "Oslo",
    "Quito",
    "Hanoi",
    "Accra",
    "Perth",
    "Bergen",
    "Cusco",
    "Tartu",
    "Gdansk",
    "Leeds",
    "Kyoto",
    "Malmo",
    "Split",
]
ROOMS = ["attic", "garage", "van", "cellar", "shed", "loft"]


@dataclass(frozen=True)
class Plan:
    clients: int
    phase_s: float
    failover_s: float
    kill_at_s: float
    down_s: float
    drain_timeout_s: float = 900.0


QUICK = Plan(clients=16, phase_s=20.0, failover_s=40.0, kill_at_s=10.0, down_s=2.0)
FULL = Plan(clients=32, phase_s=60.0, failover_s=120.0, kill_at_s=40.0, down_s=5.0)


@dataclass
class Outcome:
    """One request as its client saw it."""

    phase: str
    client: int
    service: int
    kind: str  # "ask" or "remember"
    text: str
    started: float  # monotonic
    seconds: float = 0.0
    ids: list[str] = field(default_factory=list)  # what the answer named (impulse, answer / turn)
    error: str | None = None
    error_type: str | None = None
    retryable: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class Window:
    """When a process of the deployment was down (monotonic seconds)."""

    what: str
    index: int
    killed: float
    back: float | None = None


def user_of(client: int) -> str:
    return f"user{client:02d}"


def token_of(user: str) -> str:
    return f"tok-{user}-scaleout-0123456789"


class Load:
    """``clients`` threads, each one user with one session, sending requests until told to
    stop; ``route(client)`` picks the service of each request when it is sent."""

    def __init__(self, deployment: Deployment, clients: int, run_id: str) -> None:
        self.deployment = deployment
        self.clients = clients
        self.run_id = run_id
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._seq = Counter[int]()

    def phase(
        self, name: str, seconds: float, route: Callable[[int], int], during: Callable[[], None] | None = None
    ) -> float:
        """Run the clients for ``seconds``; ``during`` runs meanwhile in this thread (it kills and
        starts processes: children of a thread that lives on). Returns the wall time."""
        stop = threading.Event()
        threads = [
            threading.Thread(
                target=self._client, args=(name, i, route, stop), name=f"client-{i}", daemon=True
            )
            for i in range(self.clients)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        if during is not None:
            during()
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
        stop.set()
        for thread in threads:
            thread.join(timeout=300)
        return time.monotonic() - started

    def _client(self, phase: str, index: int, route: Callable[[int], int], stop: threading.Event) -> None:
        user = user_of(index)
        rng = random.Random(f"{self.run_id}-{phase}-{index}")
        clients: dict[int, Client] = {}
        try:
            while not stop.is_set():
                service = route(index)
                if service not in clients:
                    clients[service] = Client(self.deployment.url(service), token_of(user), timeout_s=300)
                self._one(clients[service], phase, index, service, rng)
        finally:
            for client in clients.values():
                client.close()

    def _one(self, client: Client, phase: str, index: int, service: int, rng: random.Random) -> None:
        with self._lock:
            self._seq[index] += 1
            tag = f"{self.run_id}-{phase}-c{index}-n{self._seq[index]}"
        session = f"s-{self.run_id}-{index}"
        if rng.random() < REMEMBER_SHARE:
            kind, text = "remember", f"Note {tag}: the {rng.choice(THINGS)} is in the {rng.choice(ROOMS)}."
        else:
            kind, text = "ask", f"My {rng.choice(THINGS)} number {tag} came from {rng.choice(PLACES)}."
        outcome = Outcome(phase, index, service, kind, text, time.monotonic())
        try:
            if kind == "remember":
                outcome.ids = [client.remember(text, session_id=session).id]
            else:
                answer = client.ask(text, session_id=session)
                outcome.ids = [answer.impulse_id, *([answer.response_id] if answer.response_id else [])]
        except TheaError as exc:
            outcome.error = " ".join(str(exc).split())[:300]
            outcome.error_type = type(exc).__name__
            outcome.retryable = isinstance(exc, ServiceUnavailable | BackendUnavailable)
        outcome.seconds = time.monotonic() - outcome.started
        with self._lock:
            self.outcomes.append(outcome)

    def of(self, phase: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.phase == phase]


# -- checks ------------------------------------------------------------------------------


def _chunks(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def missing_from_layers(memory: UniversalMemory, ids: Sequence[str]) -> tuple[int, dict[str, list[str]]]:
    """How many records were looked up (these ids and the facts their impulses told), and those
    absent from the graph, or present there without their vector or chronicle event."""
    missing: dict[str, list[str]] = {"graph": [], "vectors": [], "chronicle": []}
    nodes: list[Node] = []

    def fetch(wanted: Sequence[str]) -> list[Node]:
        found: list[Node] = []
        for chunk in _chunks(wanted):
            got = memory.get(chunk)
            have = {n.id for n in got}
            missing["graph"] += [i for i in chunk if i not in have]
            found += got
        return found

    nodes = fetch(ids)
    nodes += fetch([f for n in nodes if isinstance(n, UserImpulse) for f in n.fact_ids])
    by_collection: dict[Collection, list[str]] = {}
    for node in nodes:
        if (node.embedding_text() or "").strip():
            by_collection.setdefault(collection_for(node.type), []).append(node.id)
    for collection, wanted in by_collection.items():
        for chunk in _chunks(wanted):
            have = memory.vectors.existing_ids(collection, chunk)
            missing["vectors"] += [i for i in chunk if i not in have]
    for chunk in _chunks([n.id for n in nodes]):
        have = memory.chronicle.existing_ids(chunk)
        missing["chronicle"] += [i for i in chunk if i not in have]
    return len(nodes) + len(missing["graph"]), missing


def duplicates(memory: UniversalMemory, run_id: str, users: Sequence[str]) -> dict[str, Any]:
    """Messages, impulses and facts of this run stored as more than one node, and impulses with
    more than one answer."""
    seen: Counter[tuple[str, str, str]] = Counter()
    kinds = {NodeType.USER_IMPULSE.value, NodeType.DIALOGUE_TURN.value, NodeType.FACT.value}
    after = ""
    while page := memory.admin.memory_page(after, 2000):
        for props in page:
            kind, content = str(props.get("type", "")), str(props.get("content", ""))
            if run_id in content and kind in kinds:
                seen[(kind, str(props.get("user_id")), content)] += 1
        after = str(page[-1]["id"])
    twice = [f"{kind}: {content[:100]}" for (kind, _, content), n in seen.items() if n > 1]
    answered_twice = [
        o.impulse_id for user in users for o in memory.admin.cycle_outcomes(user) if o.responses > 1
    ]
    return {"records": twice, "answers": answered_twice, "stored": sum(seen.values())}


def job_runs(deployment: Deployment, impulse_ids: Sequence[str], retries: int) -> dict[str, list[str]]:
    """Each acknowledged turn's crystallize job: lost (not finished), run twice (two successful
    results), or run again after its worker was killed mid-run (RQ handed it back with one retry
    fewer left: ``retries`` is what every job starts with)."""
    out: dict[str, list[str]] = {"lost": [], "twice": [], "rerun": []}
    with deployment.queue.client() as conn:
        for impulse_id in impulse_ids:
            job_id = f"crystallize-{impulse_id}"
            try:
                job = Job.fetch(job_id, connection=conn)
            except Exception as exc:  # NoSuchJobError, or a job that cannot be read
                out["lost"].append(f"{job_id}: {type(exc).__name__}")
                continue
            status = job.get_status(refresh=True)
            results = Result.all(job)
            ok = sum(1 for r in results if r.type == Result.Type.SUCCESSFUL)
            if status != JobStatus.FINISHED or ok == 0:
                out["lost"].append(f"{job_id}: {status}")
            if ok > 1:
                out["twice"].append(job_id)
            if len(results) > ok or (job.retries_left is not None and job.retries_left < retries):
                out["rerun"].append(job_id)
    return out


def job_counts(deployment: Deployment) -> tuple[int, int]:
    """(jobs waiting or running, jobs finished) over every queue."""
    with deployment.queue.client() as conn:
        counts = queue_counts(conn)
    return sum(c.queued + c.started + c.scheduled for c in counts), sum(c.finished for c in counts)


def _check(deployment: Deployment, command: str) -> dict[str, Any]:
    done = deployment.cli(["memory", command, "--json", "--grace-minutes", "0"])
    try:
        return dict(json.loads(done.stdout))
    except ValueError:
        return {"error": f"exit {done.returncode}: {done.stderr[-1500:]}"}


def _issues(report: dict[str, Any]) -> int:
    return sum(int(v) for v in report.get("found", {}).values())


def _clean(outcome: Outcome, windows: Sequence[Window], slack_s: float = 5.0) -> bool:
    """A failure is clean when it is a retryable error of a client of a service that was down
    while the request ran (or a few seconds after: the client's own retries)."""
    if not outcome.retryable:
        return False
    for window in windows:
        if window.what != "service" or window.index != outcome.service:
            continue
        back = window.back if window.back is not None else float("inf")
        if outcome.started <= back + slack_s and outcome.started + outcome.seconds >= window.killed:
            return True
    return False


# -- the run -------------------------------------------------------------------------------


class Meter:
    """CPU seconds used by the deployment's processes (and this one) between two readings."""

    def __init__(self, deployment: Deployment) -> None:
        self.deployment = deployment
        self.start = self._read()

    def _read(self) -> dict[str, float]:
        out = {child.name: cpu_seconds(child.pid) for child in self.deployment.processes()}
        me = resource.getrusage(resource.RUSAGE_SELF)
        out["clients (this process)"] = me.ru_utime + me.ru_stime
        return out

    def used(self) -> dict[str, float]:
        now = self._read()
        return {name: round(now[name] - self.start.get(name, 0.0), 2) for name in now}


def _kill(child: Child, what: str, index: int, windows: list[Window]) -> Window:
    window = Window(what, index, time.monotonic())
    child.kill()
    windows.append(window)
    return window


def scaleout(plan: Plan, root: Path) -> dict[str, Any]:
    run_id = f"so{int(time.time()) % 100000}"
    users = [user_of(i) for i in range(plan.clients)]
    deployment = Deployment(root, services=2, workers=2, tokens={u: token_of(u) for u in users})
    d: dict[str, Any] = {"plan": asdict(plan), "run_id": run_id, "load_average_before": os.getloadavg()}
    windows: list[Window] = []
    with deployment:
        load = Load(deployment, plan.clients, run_id)
        for index in range(2):  # the first request of each service loads its models
            with Client(deployment.url(index), token_of(users[0])) as warm:
                warm.ask(f"Hello {run_id} from service {index}.", session_id=f"warm-up-{index}")
        cpu: dict[str, dict[str, float]] = {}
        meter = Meter(deployment)
        one_s = load.phase("one", plan.phase_s, lambda client: 0)
        cpu["one"], meter = meter.used(), Meter(deployment)
        two_s = load.phase("two", plan.phase_s, lambda client: client % 2)
        cpu["two"] = meter.used()
        d["jobs_finished_under_load"] = job_counts(deployment)[1]

        def chaos() -> None:
            time.sleep(plan.kill_at_s)
            service = _kill(deployment.apps[1], "service", 1, windows)
            worker = _kill(deployment.slow_loop[0], "worker", 0, windows)
            time.sleep(plan.down_s)
            deployment.slow_loop[0].start()  # both at once, as an orchestrator restarts them
            deployment.apps[1].start()
            d["worker_restart_s"] = round(deployment.wait_worker(0), 2)
            worker.back = time.monotonic()
            d["service_restart_s"] = round(deployment.wait_service(1), 2)
            service.back = time.monotonic()

        failover_s = load.phase("failover", plan.failover_s, lambda client: client % 2, during=chaos)
        waiting, finished = job_counts(deployment)
        d["backlog_at_load_end"] = waiting
        drain_start, meter = time.monotonic(), Meter(deployment)
        drained, killed_in_drain = False, False
        while time.monotonic() - drain_start < plan.drain_timeout_s:
            waiting, now_finished = job_counts(deployment)
            if not waiting:
                drained = True
                break
            if not killed_in_drain and now_finished - finished >= d["backlog_at_load_end"] // 2:
                killed = _kill(deployment.slow_loop[1], "worker", 1, windows)  # it is running a job
                d["worker_restart_in_drain_s"] = round(deployment.restart_worker(1), 2)
                killed.back, killed_in_drain = time.monotonic(), True
            time.sleep(0.2)
        drain_s = time.monotonic() - drain_start
        cpu["drain"] = meter.used()
        d["drained"], d["drain_s"] = drained, round(drain_s, 1)
        d["jobs_in_drain"] = job_counts(deployment)[1] - finished
        d["rss_mb"] = {  # every process has served requests or run jobs by now
            c.name: round(rss_bytes(c.pid) / 1_048_576) for c in [*deployment.apps, *deployment.slow_loop]
        }
        d["check"] = _check(deployment, "check")
        acknowledged = [o for o in load.outcomes if o.ok]
        ack_ids = {i for o in acknowledged for i in o.ids}
        examples = d["check"].get("examples", {})
        d["check_issues_on_acknowledged"] = sorted({i for ids in examples.values() for i in ids} & ack_ids)
        d["repair"] = _check(deployment, "repair") if _issues(d["check"]) else {}
        d["check_after_repair"] = _check(deployment, "check") if d["repair"] else d["check"]
        memory = open_memory(deployment.settings())
        try:
            d["records_checked"], d["missing"] = missing_from_layers(memory, sorted(ack_ids))
            d["duplicated"] = duplicates(memory, run_id, users)
        finally:
            memory.close()
        impulses = [o.ids[0] for o in acknowledged if o.kind == "ask"]
        retries = deployment.settings().queue.max_retries
        d["jobs"], d["expected_jobs"] = job_runs(deployment, impulses, retries), len(impulses)
        d["graph_server_mb"] = round(deployment.graph.memory_bytes() / 1_048_576, 1)
        d["queue_server_mb"] = round(deployment.queue.memory_bytes() / 1_048_576, 1)
    d["load_average_after"] = os.getloadavg()
    failed = [o for o in load.outcomes if not o.ok]
    latencies = [o.seconds * 1000 for o in acknowledged]
    d.update(
        {
            "requests": len(load.outcomes),
            "acknowledged": len(acknowledged),
            "failed": len(failed),
            "errors": Counter(f"{o.error_type}: {o.error}" for o in failed).most_common(10),
            "unclean_failures": [asdict(o) for o in failed if not _clean(o, windows)][:20],
            "windows": [asdict(w) for w in windows],
            "cpu_s": cpu,
            "phase_s": {"one": one_s, "two": two_s, "failover": failover_s},
            "throughput": {
                name: sum(1 for o in load.of(name) if o.ok) / seconds
                for name, seconds in (("one", one_s), ("two", two_s), ("failover", failover_s))
            },
            "p50_ms": percentile(latencies, 50),
            "p99_ms": percentile(latencies, 99),
            "p50_ms_by_phase": {
                p: percentile([o.seconds * 1000 for o in load.of(p) if o.ok], 50)
                for p in ("one", "two", "failover")
            },
        }
    )
    return d


def verdict(d: dict[str, Any]) -> dict[str, int]:
    """The figures the run must keep at zero (the deployment test asserts them)."""
    return {
        "acknowledged records missing": sum(len(v) for v in d["missing"].values()),
        "records duplicated": len(d["duplicated"]["records"]) + len(d["duplicated"]["answers"]),
        "jobs lost": len(d["jobs"]["lost"]),
        "jobs run twice": len(d["jobs"]["twice"]),
        "failures not clean": len(d["unclean_failures"]),
        "memory check issues on acknowledged records": len(d["check_issues_on_acknowledged"]),
        "memory check issues after repair": _issues(d["check_after_repair"]),
        "queues not drained": 0 if d["drained"] else 1,
    }


def run(quick: bool = True) -> dict[str, Any]:
    plan = QUICK if quick else FULL
    with tempfile.TemporaryDirectory(prefix="thea-scaleout-") as tmp:
        d = scaleout(plan, Path(tmp))
    bad = verdict(d)
    t = d["throughput"]
    down = {w["what"]: w["back"] - w["killed"] for w in d["windows"] if w["back"] and w["index"] == 1}
    errors = "; ".join(f"{n}x {e}" for e, n in d["errors"][:2]) or "none"
    drain_cpu = d["cpu_s"]["drain"]
    worker_cpu = sum(v for k, v in drain_cpu.items() if k.startswith("worker"))
    jobs = d["jobs_in_drain"]
    rows = [
        row(
            "requests acknowledged",
            d["acknowledged"],
            None,
            "count",
            f"of {d['requests']} by {plan.clients} clients",
        ),
        row("requests failed", d["failed"], None, "count", errors),
        row(
            "failures not clean",
            bad["failures not clean"],
            None,
            "count",
            "clean = ServiceUnavailable from the killed service while it was down",
        ),
        row(
            "acknowledged records missing",
            bad["acknowledged records missing"],
            None,
            "count",
            f"{d['records_checked']} records looked up in graph, vectors, chronicle",
        ),
        row(
            "records duplicated",
            bad["records duplicated"],
            None,
            "count",
            f"{d['duplicated']['stored']} messages, impulses, facts; answers per impulse",
        ),
        row("jobs lost", bad["jobs lost"], None, "count", f"of {d['expected_jobs']} crystallize jobs"),
        row(
            "jobs run twice",
            bad["jobs run twice"],
            None,
            "count",
            f"{len(d['jobs']['rerun'])} re-run after a kill",
        ),
        row(
            "memory check issues",
            _issues(d["check"]),
            None,
            "count",
            f"unacknowledged requests cut off by the kill; "
            f"{bad['memory check issues on acknowledged records']} acknowledged; "
            f"{bad['memory check issues after repair']} after repair",
        ),
        row("p50 latency", d["p50_ms"], None, "ms", "acknowledged requests, all phases"),
        row("p99 latency", d["p99_ms"], None, "ms"),
        row("throughput, two services", t["two"], t["one"], "req/s", "raw = one service, same run"),
        row(
            "throughput during failover",
            t["failover"],
            t["two"],
            "req/s",
            f"raw = two services; service 1 down {down['service']:.1f} s of {d['phase_s']['failover']:.0f}",
        ),
        row(
            "jobs/s per worker (drain)",
            jobs / d["drain_s"] / 2 if d["drain_s"] else 0.0,
            None,
            "1/s",
            f"{jobs} jobs in {d['drain_s']} s; {worker_cpu / max(jobs, 1) * 1000:.0f} ms CPU per job; "
            f"{d['jobs_finished_under_load']} ran under load",
        ),
    ]
    one = d["cpu_s"]["one"]
    served = max(1, round(t["one"] * d["phase_s"]["one"]))
    rss = d["rss_mb"]
    rows += [
        row(
            "service CPU per request",
            one["app-0"] / served * 1000,
            None,
            "ms",
            f"FalkorDB {one['falkordb'] / served * 1000:.0f} ms, Redis {one['redis'] / served * 1000:.1f} ms "
            f"(one service); load average {d['load_average_before'][0]:.1f} before the run",
        ),
        row(
            "memory per service replica",
            max(rss["app-0"], rss["app-1"]),
            None,
            "MB",
            f"RSS after the run; worker {max(rss['worker-0'], rss['worker-1'])} MB; FalkorDB "
            f"{d['graph_server_mb']} MB, Redis {d['queue_server_mb']} MB used",
        ),
    ]
    return {
        "name": "scaleout",
        "quick": quick,
        "ok": not any(bad.values()),
        "machine": machine(),
        "rows": rows,
        "detail": d,
    }


if __name__ == "__main__":
    standalone_main("scaleout", run, __doc__, "32 clients, longer phases")
