"""docker-compose.falkordb.yml (FalkorDB + Redis + N app replicas + N workers) agrees with the
code and with the deployment test that runs this setup for real (issue 24 item 4).

No Docker engine here: the file is parsed and checked, nothing is started. Its thea settings
come from config/server-falkordb.env, the file the deployment test (thea.testing.deployment)
starts its processes with; the test below loads the settings both ways and finds them equal,
addresses, data directory, model and tokens aside.
"""

from __future__ import annotations

import os
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
from thea.config import Settings, load_settings
from thea.testing.deployment import ENV_FILE, environment_settings, setup_environment, thea_environment

COMPOSE = ROOT / "docker-compose.falkordb.yml"
USER_ENV = {"THEA_WEB_TOKEN": "tok-0123456789", "THEA_LLM__BASE_URL": "http://llm.example:9000/v1"}
THEA = ("app", "worker")
#: what may differ between compose and the deployment test: where things are, who may call, the model
PLACE_AND_MODEL = {"data_dir", "log_level", "llm", "web_token", "url", "token"}


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return read_compose(COMPOSE)


@pytest.fixture(scope="module")
def compose(raw: dict[str, Any]) -> dict[str, Any]:
    return resolve(raw, USER_ENV)


def service_env(compose: dict[str, Any], name: str) -> dict[str, str]:
    """What a thea container gets: its env_file, then its environment (which wins)."""
    service = compose["services"][name]
    env: dict[str, str] = {}
    for path in service["env_file"]:
        env.update(_read_env(ROOT / path))
    env.update(thea_env(compose, name))
    return env


def _read_env(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            out[name.strip()] = value.strip()
    return out


def _settings(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.delenv("THEA_CONFIG_FILE", raising=False)
    for name in [n for n in os.environ if n.startswith("THEA_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(env["THEA_PROFILE"])


def test_falkordb_redis_and_thea_services_nothing_else(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"falkordb", "redis", *THEA}
    assert services["falkordb"]["image"].startswith("falkordb/falkordb-server:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["app"]["build"] == services["worker"]["build"] == "."


def test_the_thea_containers_take_the_shared_settings_file(compose: dict[str, Any]) -> None:
    for name in THEA:
        service = compose["services"][name]
        assert service["env_file"] == [f"config/{ENV_FILE}"]
        own = thea_env(compose, name)
        assert not set(own) & set(setup_environment()), f"{name} overrides the shared file"
        assert_real_settings(service_env(compose, name), name)


@pytest.mark.parametrize("role", THEA)
def test_compose_and_the_deployment_test_run_the_same_settings(
    compose: dict[str, Any], role: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    in_compose = _settings(service_env(compose, role), monkeypatch, tmp_path)
    tested = environment_settings(
        thea_environment(
            "redis://127.0.0.1:7001", "redis://127.0.0.1:7002/0", tmp_path / "d", {"ana": "t" * 20}
        )
    )
    assert in_compose.profile == tested.profile == "server"
    assert in_compose.graph.backend == tested.graph.backend == "falkordb"
    assert in_compose.vector.backend == tested.vector.backend == "graph"
    assert in_compose.chronicle.backend == tested.chronicle.backend == "redis"
    assert in_compose.service.workers == tested.service.workers == 0
    assert in_compose.service.idle_stop_s == tested.service.idle_stop_s == 0

    def comparable(settings: Settings) -> dict[str, Any]:
        data = settings.model_dump(mode="json", exclude=PLACE_AND_MODEL)
        data["graph"].pop("falkordb_url")
        data["queue"].pop("redis_url")
        data["service"].pop("tokens")
        return dict(data)

    assert comparable(in_compose) == comparable(tested)


@pytest.mark.parametrize("role", THEA)
def test_the_addresses_point_at_the_compose_servers(
    compose: dict[str, Any], role: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = _settings(service_env(compose, role), monkeypatch, tmp_path)
    graph = urlsplit(settings.graph.falkordb_url or "")
    queue = urlsplit(settings.queue.redis_url or "")
    assert (graph.hostname, graph.port) == ("falkordb", 6379)
    assert (queue.hostname, queue.port) == ("redis", 6379)
    assert settings.llm.provider == "openai"
    assert settings.llm.base_url == USER_ENV["THEA_LLM__BASE_URL"]
    assert str(settings.data_dir) == "/data"


def test_the_servers_persist_and_are_waited_for(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert "--appendonly yes" in services["falkordb"]["environment"]["REDIS_ARGS"]
    assert services["redis"]["command"][1:3] == ["--appendonly", "yes"]
    for backend in ("falkordb", "redis"):
        assert services[backend]["healthcheck"]["test"]
        assert services[backend]["volumes"], f"{backend} keeps its data in a volume"
    for name in THEA:
        assert services[name]["depends_on"] == {
            "falkordb": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        assert services[name]["restart"] in ("unless-stopped", "always", "on-failure")


def test_app_and_workers_scale_and_no_replica_shares_a_data_directory(
    raw: dict[str, Any], compose: dict[str, Any]
) -> None:
    """A thea service holds a lock on its data directory: of replicas sharing one volume there,
    all but one would exit at once. The memory is on the servers; /data holds only the
    replica's socket, lock and log."""
    for name, variable, default in (("app", "THEA_APPS", 2), ("worker", "THEA_WORKERS", 2)):
        service = compose["services"][name]
        assert "volumes" not in service
        assert "container_name" not in service
        assert int(service["deploy"]["replicas"]) == default
        scaled = interpolate(raw, {**USER_ENV, variable: "5", "THEA_PORTS": "8000-8004"})
        assert int(scaled["services"][name]["deploy"]["replicas"]) == 5
    assert compose["services"]["app"]["ports"] == ["8000-8001:8000"]  # one host port per replica
    assert "ports" not in compose["services"]["worker"]


def test_the_web_token_is_required_and_only_for_the_app(raw: dict[str, Any], compose: dict[str, Any]) -> None:
    with pytest.raises(KeyError, match="THEA_WEB_TOKEN"):
        interpolate(raw, {})
    assert thea_env(compose, "app")["THEA_WEB_TOKEN"] == USER_ENV["THEA_WEB_TOKEN"]
    assert "THEA_WEB_TOKEN" not in thea_env(compose, "worker")


def test_the_commands_are_real_cli_calls(compose: dict[str, Any]) -> None:
    app = compose["services"]["app"]["command"]
    assert app[:3] == ["thea", "service", "run"]
    assert app[app.index("--host") + 1] == "0.0.0.0"
    check_command(app)
    worker = compose["services"]["worker"]["command"]
    assert worker[:2] == ["thea", "worker"]
    check_command(worker)
