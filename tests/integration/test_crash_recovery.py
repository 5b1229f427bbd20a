"""Locks and reflections after a crash, with real processes: ``kill -9`` of the service while its
worker holds a reflection's lock, a reflection that does not finish in time, and two at once."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import redis

from tests.processes import ROOT, cli_env, one_line, start_scripted_service, start_thea, thea, wait_for
from tests.service_support import stop_services_under
from thea.config import Settings
from thea.llm.fake import FakeChatModel
from thea.locations import ServicePaths
from thea.memory.factory import open_memory
from thea.models import Edge, EdgeType, KnowledgeCrystal
from thea.runtime import build_runtime

LOCK = "thea:lock:reflect:ana"
GROUPS = [  # two groups to merge (Redis+queues, Postgres+invoices) and one loner
    ("uses Redis streams for queues", ["Redis", "queues"]),
    ("Redis queues need a consumer group", ["Redis", "queues"]),
    ("queues on Redis lose nothing with AOF", ["Redis", "queues", "AOF"]),
    ("Postgres holds the invoices", ["Postgres", "invoices"]),
    ("invoices live in Postgres tables", ["Postgres", "invoices"]),
    ("likes green tea", ["tea"]),
]


def seed(settings: Settings, user: str = "ana", tag: str = "") -> None:
    """Insights with concepts as crystallization leaves them (then the memory is closed again:
    in the embedded profile one process at a time holds the vector store)."""
    memory = open_memory(settings)
    try:
        concepts = memory.get_or_create_concepts(sorted({c for _, cs in GROUPS for c in cs}), user)
        nodes, edges = [], []
        for text, names in GROUPS:
            insight = KnowledgeCrystal(content=f"{user} {text} {tag}".strip(), user_id=user, strength=1.0)
            nodes.append(insight)
            edges += [
                Edge(src=insight.id, dst=concepts[c].id, type=EdgeType.INSIGHT_FROM_CONCEPT) for c in names
            ]
        memory.record(nodes, edges)
    finally:
        memory.close()


def lock_holder(data: Path) -> bytes | None:
    sock = data / "graph" / "falkordb.sock"
    if not sock.exists():
        return None
    try:
        value = redis.Redis(unix_socket_path=str(sock), socket_timeout=1).get(LOCK)
    except (redis.RedisError, OSError):
        return None
    return value if isinstance(value, bytes) else None


def test_a_reflection_killed_while_holding_its_lock_does_not_block_the_next_one(settings: Settings) -> None:
    data = Path(settings.data_dir)
    seed(settings)
    service = start_scripted_service(data, slow="reflect")
    asking = start_thea(["reflect", "--user", "ana", "--wait", "300"], data)
    try:
        wait_for(lambda: lock_holder(data), 90, "the first reflection to take its lock")
    finally:
        service.kill()  # kill -9 of the service, mid-merge, its worker holding the lock
        service.communicate(timeout=30)
        asking.communicate(timeout=60)

    started = time.monotonic()
    start_scripted_service(data)  # the next service (the scripted model: merges get distinct texts)
    done = thea(["reflect", "--user", "ana", "--json"], data, timeout=150)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    # the killed service's job is handed back to the queue and runs too (the user asked for it):
    # between the two jobs, each group is merged exactly once
    assert json.loads(done.stdout)["merged"] <= 2
    stop_services_under(data)
    memory = open_memory(settings)
    try:
        parents = {source: n for source, n in memory.reflection.merge_parents("ana").items()}
        seeded = [
            n.id for n in memory.by_time(0, 2**62, user_id="ana", limit=100) if n.content.startswith("ana ")
        ]
    finally:
        memory.close()
    assert len(seeded) == 6
    assert sum(1 for i in seeded if parents.get(i) == 1) == 5, parents  # each grouped one merged once
    assert all(parents.get(i, 0) <= 1 for i in seeded)
    log = ServicePaths.of(data).log_file.read_text()
    assert "is gone; taking it over" in log  # the dead holder was noticed, no lease waited out
    assert took < 60, f"the next reflection took {took:.0f} s"  # before: 120 s, then only "queued"


def test_a_reflection_that_does_not_finish_in_time_exits_non_zero_naming_its_job(settings: Settings) -> None:
    data = Path(settings.data_dir)
    seed(settings)
    start_scripted_service(data, slow="reflect", slow_s=6)
    proc = start_thea(["reflect", "--user", "ana", "--wait", "1"], data)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    assert out.strip() == ""
    line = one_line(err)
    assert re.search(
        r"not finished: reflection job reflect-\w+ is still (running|waiting for a worker)", line
    ), line
    assert "see `thea jobs`" in line
    assert "Traceback" not in err


LOSER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import thea.memory.factory as factory

    real = factory.build_vectors

    def gated(settings):
        print("opening the vector store", flush=True)
        while not Path(sys.argv[1]).exists():
            time.sleep(0.05)
        return real(settings)

    factory.build_vectors = gated
    from thea.config import load_settings
    from thea.errors import VectorStoreLocked

    try:
        factory.open_memory(load_settings())
    except VectorStoreLocked as exc:
        print(exc, file=sys.stderr)
        sys.exit(3)
    """
)


def test_a_process_that_cannot_have_the_data_dir_leaves_the_running_one_alone(
    settings: Settings, tmp_path: Path
) -> None:
    """Two processes open one data dir's stores at once (the service makes this rare: only a
    second `thea service run` could); the one that loses the race for the vector store must not
    take the graph server down with it (it used to start it, then stop it on its way out)."""
    go = tmp_path / "go"
    loser = subprocess.Popen(
        [sys.executable, "-c", LOSER, str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(Path(settings.data_dir)),
        cwd=ROOT,
    )
    try:
        assert loser.stdout is not None
        assert loser.stdout.readline().strip() == "opening the vector store"
        winner = build_runtime(settings, llm=FakeChatModel())
        try:
            go.touch()
            _, err = loser.communicate(timeout=60)
            assert loser.returncode == 3
            assert "open in another thea process" in one_line(err)
            result = asyncio.run(winner.orchestrator.handle_impulse("Are you still there?", "ana", "s1"))
            assert result.answer == "Here is my answer."
            assert result.failed_steps == []
        finally:
            winner.close()
    finally:
        if loser.poll() is None:
            loser.kill()
            loser.communicate(timeout=30)


def test_two_reflections_at_once_merge_each_group_once_and_never_both_fail(settings: Settings) -> None:
    data = Path(settings.data_dir)
    users = [f"user{n}" for n in range(3)]
    for user in users:  # one round per user, so earlier merges do not join the next round's groups
        stop_services_under(data)  # seeding opens the stores here: the service must be stopped
        seed(settings, user)
        start_scripted_service(data)  # merges get distinct texts (the fake model repeats itself)
        procs = [start_thea(["reflect", "--user", user, "--json"], data) for _ in range(2)]
        outcomes = [(p, *p.communicate(timeout=180)) for p in procs]
        merged = 0
        for proc, out, err in outcomes:
            if proc.returncode == 0:
                merged += int(json.loads(out)["merged"])
            else:  # the other one said clearly that thea is busy
                line = one_line(err)
                assert "open in another thea process" in line or "already running" in line, line
        assert any(p.returncode == 0 for p, _, _ in outcomes), f"{user}: both failed: {outcomes}"
        assert merged == 2, f"{user}: {merged} merges"

    stop_services_under(data)
    memory = open_memory(settings)
    try:
        for user in users:
            parents = memory.reflection.merge_parents(user)
            assert len(parents) == 5, parents  # every grouped insight was merged ...
            assert all(n == 1 for n in parents.values()), parents  # ... exactly once
    finally:
        memory.close()
