"""The foreground gate of the server profile (Redis, shared by app replicas and workers) on a
real Redis: a cycle holds it as long as it runs; a replica that died mid-cycle stops holding it
within its short lease (before: 300 s, every worker idle that long after a replica crash)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import redis

from thea.llm.scheduler import RedisForegroundGate, foreground
from thea.memory.embedded_server import EmbeddedFalkorDB


def _worker_side(redis_connection: redis.Redis) -> RedisForegroundGate:
    return RedisForegroundGate(redis_connection, grace_s=0.0, cache_s=0.0)


def test_a_cycle_longer_than_the_lease_keeps_the_gate(redis_connection: redis.Redis) -> None:
    app = RedisForegroundGate(redis_connection, grace_s=0.0, hold_s=0.6, renew_s=0.1)
    worker = _worker_side(redis_connection)
    try:
        app.enter("cycle-1")
        deadline = time.monotonic() + 2.0  # more than three leases
        while time.monotonic() < deadline:
            assert worker.busy()
            time.sleep(0.05)
        app.leave("cycle-1")
        assert not worker.busy()
    finally:
        app.close()


async def test_nested_holds_of_one_key_end_with_the_last(redis_connection: redis.Redis) -> None:
    app = RedisForegroundGate(redis_connection, grace_s=0.0, hold_s=5.0)
    worker = _worker_side(redis_connection)
    try:
        async with foreground(app, "k"):
            async with foreground(app, "k"):
                assert worker.busy()
            assert worker.busy()
        assert not worker.busy()
    finally:
        app.close()


def test_a_replica_killed_mid_cycle_lets_the_workers_go_within_its_lease(
    redis_connection: redis.Redis, falkordb_server: EmbeddedFalkorDB
) -> None:
    """A real process enters the gate (as a replica's cycle does) and is killed with SIGKILL:
    the workers see the gate quiet once its lease ran out, not minutes later."""
    socket = str(falkordb_server.socket_path)
    script = textwrap.dedent(
        f"""
        import sys, time, redis
        from thea.llm.scheduler import RedisForegroundGate
        gate = RedisForegroundGate(redis.Redis(unix_socket_path={socket!r}), hold_s=1.0)
        gate.enter("cycle-of-a-dying-replica")
        print("entered", flush=True)
        time.sleep(600)
        """
    )
    replica = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = _worker_side(redis_connection)
    try:
        assert replica.stdout is not None
        assert replica.stdout.readline().strip() == "entered"
        time.sleep(1.5)  # longer than its lease: renewed while it lives
        assert worker.busy()
        replica.kill()
        replica.wait(timeout=10)
        killed = time.monotonic()
        assert worker.wait_quiet(timeout_s=5.0)
        assert time.monotonic() - killed <= 1.5
    finally:
        replica.kill()
        replica.wait(timeout=10)


def test_the_default_lease_is_short() -> None:
    gate = RedisForegroundGate(redis.Redis())
    assert gate.hold_s <= 30
    assert gate.renew_s < gate.hold_s
