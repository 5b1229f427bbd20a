"""Starting FalkorDB with its Bolt endpoint, for the neo4j-driver adapter's tests.

FalkorDB speaks Bolt (it announces itself as Neo4j 5.13). Its Bolt server crashes with AOF on
or on requests over ~4 KB, hence ``aof=False`` and tiny batches (:data:`BATCH`).
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from thea.memory.embedded_server import EmbeddedFalkorDB

BATCH = 4  # rows per UNWIND: keeps every Bolt request far below the ~4 KB crash size


def free_port_below_32767() -> int:
    """FalkorDB wants a Bolt port below 32767, under Linux's ephemeral range."""
    rng = random.Random()
    for _ in range(100):
        port = rng.randint(20_000, 32_000)
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", port))  # only probing that the port is free
            except OSError:
                continue
        return port
    pytest.skip("no free TCP port below 32767 for FalkorDB's Bolt endpoint")


def wait_for_port(port: int, timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


@contextmanager
def bolt_falkordb(folder: Path) -> Iterator[tuple[EmbeddedFalkorDB, int]]:
    """A FalkorDB child process with a Bolt endpoint (skips the test if it does not come up)."""
    port = free_port_below_32767()
    server = EmbeddedFalkorDB(folder, aof=False, bolt_port=port).start()
    try:
        if not wait_for_port(port):
            pytest.skip(f"FalkorDB's Bolt endpoint did not come up on port {port} (module arg BOLT_PORT)")
        yield server, port
    finally:
        server.stop()
