"""Checking compose files without Docker: compose's variable substitution, the environment of
a service, and whether a service's command is a real ``thea`` CLI call."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from typer.testing import CliRunner

from thea.cli.main import app as cli_app
from thea.config import Settings

_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's variable substitution: ${V}, ${V:-default}, ${V-default}, ${V:?error}, $$."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group(1), match.group(2), match.group(3)
        current = env.get(name)
        if op in (":-", "-"):
            return current if current or (op == "-" and current is not None) else arg
        if op in (":?", "?") and not current:
            raise KeyError(f"compose would refuse to start: {name} is required ({arg})")
        return current or ""

    return _VAR.sub(sub, value)


def thea_env(compose: dict[str, Any], service: str) -> dict[str, str]:
    env = compose["services"][service]["environment"]
    assert isinstance(env, dict), "use the mapping form for environment"
    return {k: str(v) for k, v in env.items()}


def check_command(argv: list[str]) -> None:
    """The subcommand exists and accepts these options: with ``--help`` appended the CLI
    parses every option (unknown ones are errors) and then stops without running anything."""
    assert argv[0] == "thea"
    result = CliRunner().invoke(cli_app, [*argv[1:], "--help"], prog_name="thea")
    assert result.exit_code == 0, f"`{' '.join(argv)}` is refused by the CLI: {result.output}"
    assert f"Usage: thea {argv[1]}" in " ".join(result.output.split())


def assert_real_settings(env: dict[str, str], where: str) -> None:
    """Every name is a field of thea.config.Settings (``THEA_<SECTION>__<FIELD>``)."""
    for name in env:
        assert name.startswith("THEA_"), f"{where}: {name} is not a thea setting"
        path = name.removeprefix("THEA_").lower().split("__")
        model: type[BaseModel] = Settings
        for depth, part in enumerate(path):
            assert part in model.model_fields, f"{where}: {name}: no setting {'.'.join(path)}"
            annotation = model.model_fields[part].annotation
            if depth < len(path) - 1:
                assert isinstance(annotation, type)
                assert issubclass(annotation, BaseModel), f"{name}: {part} has no sub-fields"
                model = annotation


def read_compose(path: Path) -> dict[str, Any]:
    """A compose file as written (variables not substituted)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def resolve(raw: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """The compose file as compose would run it with ``env`` (the user's .env)."""
    resolved = interpolate(raw, env)
    assert isinstance(resolved, dict)
    return resolved
