"""docker-compose.yml, Dockerfile and .dockerignore agree with the code.

There is no Docker engine on the build machine, so nothing here starts a container:
these tests parse the files and check what would break a ``docker compose up`` the
moment it met thea: environment names that are not settings, URLs that do not point
at the compose services, CLI commands or options that do not exist, a Dockerfile
that leaves out part of the package.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.compose_support import (
    assert_real_settings,
    check_command,
    interpolate,
    read_compose,
    resolve,
    thea_env,
)
from tests.processes import ROOT
from thea.config import load_settings

THEA_ROLES = ("app", "worker")
# what a user puts in .env (the two secrets compose insists on) plus one LLM override
USER_ENV = {
    "NEO4J_PASSWORD": "s3cret-neo4j-pw",
    "THEA_WEB_TOKEN": "tok-0123456789",
    "THEA_LLM__BASE_URL": "http://llm.example:9000/v1",
}


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return read_compose(ROOT / "docker-compose.yml")


@pytest.fixture(scope="module")
def compose(raw: dict[str, Any]) -> dict[str, Any]:
    return resolve(raw, USER_ENV)


@dataclass(frozen=True)
class Roles:
    """The compose service that plays each part (found by what it runs, not by its name)."""

    graph: str
    vectors: str
    queue: str
    app: str
    worker: str

    @property
    def backends(self) -> set[str]:
        return {self.graph, self.vectors, self.queue}


@pytest.fixture(scope="module")
def roles(compose: dict[str, Any]) -> Roles:
    """Each part played by exactly one service: Neo4j 5, Qdrant, Redis 7, the thea service
    and the workers (one definition, scaled by replicas)."""
    services = compose["services"]
    built = {n: s for n, s in services.items() if s.get("build") == "."}

    def one(kind: str, names: list[str]) -> str:
        assert len(names) == 1, f"expected one {kind} service, found {names}"
        return names[0]

    def image(prefix: str) -> str:
        found = [
            n for n, s in services.items() if n not in built and str(s.get("image", "")).startswith(prefix)
        ]
        return one(prefix, found)

    return Roles(
        graph=image("neo4j:5"),
        vectors=image("qdrant/qdrant"),
        queue=image("redis:7"),
        app=one("app", [n for n, s in built.items() if s["command"][:3] == ["thea", "service", "run"]]),
        worker=one("worker", [n for n, s in built.items() if s["command"][:2] == ["thea", "worker"]]),
    )


def test_server_mode_services(compose: dict[str, Any], roles: Roles) -> None:
    """Neo4j, Qdrant, Redis, the app and one worker definition: nothing else, nothing twice."""
    assert set(compose["services"]) == {*roles.backends, roles.app, roles.worker}
    assert (ROOT / "Dockerfile").is_file()


def test_app_waits_for_healthy_backends(compose: dict[str, Any], roles: Roles) -> None:
    services = compose["services"]
    assert services[roles.graph]["healthcheck"]["test"]
    assert services[roles.queue]["healthcheck"]["test"]
    for name in (roles.app, roles.worker):
        deps = services[name]["depends_on"]
        assert set(deps) == roles.backends
        for backend in roles.backends:  # a backend with a healthcheck must be healthy first
            wanted = "service_healthy" if "healthcheck" in services[backend] else "service_started"
            assert deps[backend]["condition"] == wanted, f"{name} -> {backend}"
        assert services[name]["restart"] in ("unless-stopped", "always", "on-failure")


def test_neo4j_healthcheck_uses_the_configured_password(raw: dict[str, Any], roles: Roles) -> None:
    """The healthcheck reads the password from the container's NEO4J_AUTH ($$ escapes compose)."""
    test = raw["services"][roles.graph]["healthcheck"]["test"]
    command = interpolate(test, USER_ENV)[-1]
    assert "cypher-shell" in command
    assert "${NEO4J_AUTH#neo4j/}" in command


def test_every_thea_variable_is_a_real_setting(compose: dict[str, Any], roles: Roles) -> None:
    for service in (roles.app, roles.worker):
        assert_real_settings(thea_env(compose, service), service)


@pytest.mark.parametrize("role", THEA_ROLES)
def test_server_settings_load_and_point_at_compose_services(
    compose: dict[str, Any], roles: Roles, role: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.delenv("THEA_CONFIG_FILE", raising=False)
    env = thea_env(compose, getattr(roles, role))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings(env["THEA_PROFILE"])

    services = compose["services"]
    assert settings.profile == "server"
    assert settings.graph.backend == "neo4j"
    assert urlsplit(settings.graph.neo4j_uri).hostname == roles.graph
    assert urlsplit(settings.vector.qdrant_url).hostname == roles.vectors
    assert settings.vector.backend == "qdrant"
    assert urlsplit(settings.queue.redis_url or "").hostname == roles.queue
    assert settings.chronicle.backend == "redis"  # the log is shared by every app and worker
    assert urlsplit(settings.graph.neo4j_uri).port == 7687
    assert urlsplit(settings.vector.qdrant_url).port == 6333
    assert urlsplit(settings.queue.redis_url or "").port == 6379

    neo4j_user, _, neo4j_password = services[roles.graph]["environment"]["NEO4J_AUTH"].partition("/")
    assert settings.graph.neo4j_user == neo4j_user
    assert settings.graph.neo4j_password.get_secret_value() == neo4j_password == USER_ENV["NEO4J_PASSWORD"]

    assert settings.llm.provider == "openai"
    assert settings.llm.base_url == USER_ENV["THEA_LLM__BASE_URL"]  # the placeholder reaches thea
    assert settings.llm.model
    assert str(settings.data_dir) == "/data"


def test_defaults_without_llm_overrides(raw: dict[str, Any], roles: Roles) -> None:
    env = {k: v for k, v in USER_ENV.items() if not k.startswith("THEA_LLM")}
    app_env = interpolate(raw, env)["services"][roles.app]["environment"]
    assert app_env["THEA_LLM__BASE_URL"].startswith("http://host.docker.internal:")
    assert app_env["THEA_LLM__BASE_URL"].endswith("/v1")  # OpenAI-compatible path
    assert "host.docker.internal:host-gateway" in raw["services"][roles.app]["extra_hosts"]


@pytest.mark.parametrize("missing", ["NEO4J_PASSWORD", "THEA_WEB_TOKEN"])
def test_secrets_must_be_set(raw: dict[str, Any], missing: str) -> None:
    """No default passwords and no open web port: compose refuses to start without them."""
    env = {k: v for k, v in USER_ENV.items() if k != missing}
    with pytest.raises(KeyError, match=missing):
        interpolate(raw, env)


def test_web_token_only_for_the_published_app(compose: dict[str, Any], roles: Roles) -> None:
    assert thea_env(compose, roles.app)["THEA_WEB_TOKEN"] == USER_ENV["THEA_WEB_TOKEN"]
    assert "THEA_WEB_TOKEN" not in thea_env(compose, roles.worker)
    assert compose["services"][roles.app]["ports"] == ["8000:8000"]


def test_workers_scale(raw: dict[str, Any], compose: dict[str, Any], roles: Roles) -> None:
    """N workers come from one service definition, scaled by replicas."""
    worker = compose["services"][roles.worker]
    assert int(worker["deploy"]["replicas"]) == 2  # default of THEA_WORKERS
    scaled = interpolate(raw, {**USER_ENV, "THEA_WORKERS": "5"})
    assert int(scaled["services"][roles.worker]["deploy"]["replicas"]) == 5
    # --scale worker=N needs replicas that do not collide on names or host ports
    assert "container_name" not in worker
    assert "ports" not in worker


def test_data_lives_in_named_volumes(compose: dict[str, Any], roles: Roles) -> None:
    declared = set(compose["volumes"])
    used = set()
    for name, service in compose["services"].items():
        for mount in service.get("volumes", []):
            source, _, target = mount.partition(":")
            assert not source.startswith((".", "/")), f"{name}: bind mount {mount}; use a named volume"
            used.add(source)
            assert target.startswith("/")
    assert used == declared
    assert roles.backends <= {n for n, s in compose["services"].items() if s.get("volumes")}
    # a thea service locks its data directory: a second replica on a shared volume there would
    # exit at once (the memory is on the servers; /data holds a socket, a lock and a log)
    assert "volumes" not in compose["services"][roles.app]
    assert "volumes" not in compose["services"][roles.worker]


def test_app_command_is_a_real_cli_call(compose: dict[str, Any], roles: Roles) -> None:
    app = compose["services"][roles.app]
    command = app["command"]
    assert command[:3] == ["thea", "service", "run"]  # the same service as on a laptop
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert app["environment"]["THEA_SERVICE__WORKERS"] == "0"  # the slow loop runs in the workers
    assert app["environment"]["THEA_SERVICE__IDLE_STOP_S"] == "0"
    check_command(command)


def test_worker_command_is_a_real_cli_call(compose: dict[str, Any], roles: Roles) -> None:
    command = compose["services"][roles.worker]["command"]
    assert command[:2] == ["thea", "worker"]
    check_command(command)


def test_bad_commands_would_be_caught() -> None:
    """The check above is not vacuous: a made-up subcommand or option fails it."""
    with pytest.raises(AssertionError, match="refused by the CLI"):
        check_command(["thea", "no-such-command"])
    with pytest.raises(AssertionError, match="refused by the CLI"):
        check_command(["thea", "serve", "--no-such-option"])


def test_dockerfile_builds_the_whole_package() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim\b", dockerfile, re.MULTILINE)
    assert 'pip install ".[server]"' in dockerfile
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "server" in pyproject["project"]["optional-dependencies"]
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {"pyproject.toml", pyproject["project"]["readme"], *wheel["packages"], *wheel["force-include"]}
    copied = set()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            copied.update(p.rstrip("/") for p in line.split()[1:-1])
    assert needed <= copied, f"the image would miss {sorted(needed - copied)}"
    for path in needed:
        assert (ROOT / path).exists()

    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines() if line.strip()}
    assert ".env" in ignored  # secrets never enter the image
    assert not (needed & ignored), "the .dockerignore hides files the Dockerfile copies"
    assert 'CMD ["thea", "service", "run", "--host", "0.0.0.0"' in dockerfile
