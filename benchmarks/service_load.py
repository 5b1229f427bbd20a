"""API clients against a real thea service process (fake model): a load run and a kill -9 soak.

``python -m benchmarks.service_load --clients 50 --seconds 60`` (the load): N ``thea.Client``
threads, each its own user over the unix socket, for a fixed time, each repeating ask,
remember, ask, recall. Then the service drains its slow loop and stops, and every record is
checked on the stores themselves: every acknowledged ask has its impulse with exactly one
answer, every acknowledged remember its turn in the graph, the vector store and the log, no
text is stored twice, and ``thea memory check`` is clean.

``python -m benchmarks.service_load --soak --clients 8 --kills 10`` (the soak): the clients call
only ``remember`` (each call with its idempotency key, resent on a broken connection as
``thea.Client`` does) while the service is killed with SIGKILL every few seconds and started
again by the next call. Afterwards: acknowledged records lost (not in all three layers) and
records stored twice (two turns with one text), both expected 0. A call that failed after its
retries is not acknowledged and is not repeated; it may or may not have been stored (at most
once). ``tests/e2e/test_remember_soak.py`` runs a short soak (slow suite).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import thea
from benchmarks.common import console, percentile, result_table, row, write_json
from thea.client.local import StopOutcome, service_pid, stop_service
from thea.config import Settings, load_settings
from thea.errors import TheaError
from thea.memory.consistency import check, repair
from thea.memory.factory import open_memory
from thea.models import Collection

TOPICS = ["Redis queues", "Postgres invoices", "green tea", "the cat Miso", "FalkorDB graphs", "hiking"]
USER_PREFIX = "load-"


@dataclass
class Tally:
    """What the clients were told (acknowledged) and what failed."""

    remembered: dict[str, str] = field(default_factory=dict)  # turn id -> text
    asked: dict[str, str] = field(default_factory=dict)  # impulse id -> text
    sent: set[str] = field(default_factory=set)  # every text sent (acknowledged or not)
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def took(self, kind: str, started: float) -> None:
        with self.lock:
            self.requests += 1
            self.latencies_ms.setdefault(kind, []).append((time.perf_counter() - started) * 1000)

    def failed(self, kind: str, exc: Exception) -> None:
        with self.lock:
            self.errors.append(f"{kind}: {type(exc).__name__}: {exc}")


def settings_for(data_dir: Path) -> Settings:
    return load_settings("embedded", data_dir=data_dir, llm={"provider": "fake"})


def _client_loop(settings: Settings, index: int, deadline: float, tally: Tally, *, soak: bool) -> None:
    rng = random.Random(index)
    user = f"{USER_PREFIX}{index}"
    plan = ["remember"] if soak else ["ask", "remember", "ask", "recall"]
    step = 0
    with thea.Client(settings=settings, user=user) as client:
        while time.monotonic() < deadline:
            kind = plan[step % len(plan)]
            step += 1
            text = f"{user} note {step} {uuid.uuid4().hex[:8]}: I like {rng.choice(TOPICS)}."
            started = time.perf_counter()
            try:
                if kind == "recall":
                    client.recall(rng.choice(TOPICS), limit=5)
                else:
                    with tally.lock:
                        tally.sent.add(text)
                    if kind == "remember":
                        acknowledged, stored_id = tally.remembered, client.remember(text).id
                    else:
                        acknowledged, stored_id = tally.asked, client.ask(text).impulse_id
                    with tally.lock:
                        acknowledged[stored_id] = text
                tally.took(kind, started)
            except TheaError as exc:  # not acknowledged: counted, never sent again with a new key
                tally.failed(kind, exc)


def _killer(settings: Settings, kills: int, every_s: tuple[float, float], stop: threading.Event) -> list[int]:
    """SIGKILL the service ``kills`` times, a random pause apart (each time the one running)."""
    rng = random.Random(11)
    killed: list[int] = []
    while len(killed) < kills and not stop.wait(rng.uniform(*every_s)):
        pid = service_pid(settings)
        if pid is None or (killed and killed[-1] == pid):
            continue  # not (yet) started again
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
    return killed


def _stored(settings: Settings, tally: Tally) -> dict[str, Any]:
    """Check the records on the stores themselves (the service stopped)."""
    memory = open_memory(settings)
    try:
        turn_ids = list(tally.remembered)
        in_graph = {n.id for n in memory.get(turn_ids)} if turn_ids else set()
        in_vectors = memory.vectors.existing_ids(Collection.EXPERIENCE, turn_ids) if turn_ids else set()
        in_log = memory.chronicle.existing_ids(turn_ids) if turn_ids else set()
        lost_remembered = [i for i in turn_ids if not (i in in_graph and i in in_vectors and i in in_log)]
        texts: Counter[str] = Counter()
        after = ""
        while page := memory.admin.memory_page(after, 1000):
            after = str(page[-1]["id"])
            texts.update(
                str(p.get("content"))
                for p in page
                if p.get("type") in {"DialogueTurn", "UserImpulse"}
                and str(p.get("user_id", "")).startswith(USER_PREFIX)
            )
        duplicated = sorted(t for t in tally.sent if texts[t] > 1)
        unacknowledged = tally.sent - set(tally.remembered.values()) - set(tally.asked.values())
        outcomes = {o.impulse_id: o for o in memory.admin.cycle_outcomes(USER_PREFIX)}
        lost_asked = [i for i in tally.asked if i not in outcomes or outcomes[i].responses == 0]
        twice_answered = [i for i, o in outcomes.items() if o.responses > 1]
        report = check(memory, grace_ms=0)
        # a write cut by a kill -9 between the graph and the vectors or the log is left for
        # `thea memory repair` (thea/memory/consistency.py): what it finds, and that it fixes it
        repaired = report if report.ok else repair(memory, grace_ms=0)
        after_repair = report if report.ok else check(memory, grace_ms=0)
        return {
            "lost": lost_remembered + lost_asked,
            "duplicated": duplicated + twice_answered,
            "unacknowledged": len(unacknowledged),
            "unacknowledged_stored": sum(1 for t in unacknowledged if texts[t] == 1),
            "consistent": report.ok,
            "consistency": report.to_json()["found"],
            "partial_writes": repaired.total_found,
            "consistent_after_repair": after_repair.ok,
        }
    finally:
        memory.close()


def run_clients(
    data_dir: Path,
    clients: int,
    seconds: float,
    *,
    soak: bool = False,
    kills: int = 0,
    kill_every_s: tuple[float, float] = (3.0, 6.0),
) -> dict[str, Any]:
    settings = settings_for(data_dir)
    with thea.Client(settings=settings) as first:
        first.health()  # one service started before the clients come
    tally = Tally()
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=_client_loop, args=(settings, i, deadline, tally), kwargs={"soak": soak}, daemon=True
        )
        for i in range(clients)
    ]
    stop = threading.Event()
    killed: list[int] = []
    killer = threading.Thread(
        target=lambda: killed.extend(_killer(settings, kills, kill_every_s, stop)), daemon=True
    )
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    if kills:
        killer.start()
    for thread in threads:
        thread.join()
    stop.set()
    if kills:
        killer.join()
    wall = time.perf_counter() - started
    drain_s = _drain(settings, soak)
    outcome = stop_service(settings)
    stored = _stored(settings, tally)
    asks = tally.latencies_ms.get("ask", [])
    return {
        "clients": clients,
        "seconds": round(wall, 1),
        "requests": tally.requests,
        "requests_per_s": round(tally.requests / wall, 1),
        "errors": len(tally.errors),
        "error_examples": tally.errors[:5],
        "remembered": len(tally.remembered),
        "asked": len(tally.asked),
        "kills": len(killed),
        "ask_p50_ms": round(percentile(asks, 50), 0) if asks else None,
        "ask_p99_ms": round(percentile(asks, 99), 0) if asks else None,
        "remember_p99_ms": round(percentile(tally.latencies_ms.get("remember", []), 99), 0),
        "drain_s": round(drain_s, 1),
        "stopped": outcome.value,
        **stored,
    }


def _drain(settings: Settings, soak: bool, timeout_s: float = 1800) -> float:
    """Wait until the service's slow loop has nothing queued or running (not in the soak)."""
    started = time.perf_counter()
    if soak:
        return 0.0
    with thea.Client(settings=settings) as client:
        while time.perf_counter() - started < timeout_s:
            queues = client.status().queues
            if all(q.queued == 0 and q.started == 0 for q in queues):
                break
            time.sleep(1.0)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--soak", action="store_true", help="remember only, with SIGKILLs of the service")
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs in the soak")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="thea-bench-service-") as tmp:
        kills = args.kills if args.soak else 0
        detail = run_clients(Path(tmp) / "data", args.clients, args.seconds, soak=args.soak, kills=kills)
    name = "soak" if args.soak else "service-load"
    what = f"{args.clients} clients, {kills} SIGKILLs" if args.soak else f"{args.clients} clients"
    result = {
        "name": name,
        "detail": detail,
        "rows": [
            row(f"requests/s ({what})", detail["requests_per_s"], None, "1/s"),
            row("errors (after the client's own retries)", detail["errors"], None, "count"),
            row("acknowledged records lost", len(detail["lost"]), None, "count"),
            row("records stored twice", len(detail["duplicated"]), None, "count"),
        ],
    }
    console.print(result_table(result))
    console.print({k: v for k, v in detail.items() if k not in {"consistency"}})
    console.print(f"results: {write_json(result, name)}")
    ok = not detail["lost"] and not detail["duplicated"] and detail["stopped"] != StopOutcome.KILLED.value
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
