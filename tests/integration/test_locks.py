"""LeaseLock on the embedded redis-server: a live holder keeps it, a dead one does not."""

from __future__ import annotations

import subprocess
import time

import pytest

from thea.errors import ReflectionBusy
from thea.memory.embedded_server import EmbeddedFalkorDB
from workers.liveness import ProcessIdentity, current_node, start_time
from workers.locks import LeaseLock, reflection_lock


def test_a_live_holder_keeps_the_lock_beyond_its_lease(falkordb_server: EmbeddedFalkorDB) -> None:
    conn = falkordb_server.client()
    holder = LeaseLock(conn, "t:lock", lease_s=1.0)
    assert holder.acquire()
    try:
        time.sleep(2.5)  # more than twice the lease: the heartbeat renewed it
        assert not LeaseLock(conn, "t:lock", lease_s=1.0, wait_s=0.3).acquire()
        assert holder.lost is False
    finally:
        holder.release()
    taker = LeaseLock(conn, "t:lock", wait_s=0.5)
    assert taker.acquire()
    taker.release()


def test_a_dead_holder_on_this_machine_is_taken_over_at_once(falkordb_server: EmbeddedFalkorDB) -> None:
    conn = falkordb_server.client()
    proc = subprocess.Popen(["sleep", "60"])
    dead = ProcessIdentity(current_node(), proc.pid, start_time(proc.pid) or 0, "here")
    proc.kill()
    proc.wait()
    conn.set("t:lock", f"{dead.token()}|x", px=600_000)  # as a killed holder leaves it
    started = time.monotonic()
    taker = LeaseLock(conn, "t:lock", wait_s=5)
    assert taker.acquire()
    assert time.monotonic() - started < 1
    taker.release()


def test_a_holder_elsewhere_keeps_the_lock_until_its_lease_runs_out(
    falkordb_server: EmbeddedFalkorDB,
) -> None:
    conn = falkordb_server.client()
    remote = ProcessIdentity("othermachine", 1, 1, "far")
    conn.set("t:lock", f"{remote.token()}|x", px=1500)  # its holder stopped renewing 0 s ago
    started = time.monotonic()
    taker = LeaseLock(conn, "t:lock", wait_s=10)
    assert taker.acquire()
    assert 1.0 < time.monotonic() - started < 5
    taker.release()


def test_reflection_lock_says_who_is_busy(falkordb_server: EmbeddedFalkorDB) -> None:
    lock = reflection_lock(falkordb_server.client(), lease_s=5, wait_s=0.3)
    with lock("ana"), pytest.raises(ReflectionBusy, match=r"already running \(pid \d+"), lock("ana"):
        pass
    with lock("ana"):  # released: free again
        pass
