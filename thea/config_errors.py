"""One-line messages for invalid settings: which setting, where its value came from (an argument,
the environment, ``.env`` or the config file) and what it accepts. Secrets are never shown."""

from __future__ import annotations

import os
import re
from typing import Any

from pydantic import ValidationError
from pydantic_settings import SettingsError

from thea.errors import ConfigError

_SECRET_WORDS = ("key", "password", "token", "secret")
_PLAIN = {
    "int_parsing": "expected a whole number",
    "int_type": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_parsing": "expected a number",
    "float_type": "expected a number",
    "bool_parsing": "expected true or false",
    "bool_type": "expected true or false",
    "list_type": "expected a list (in the environment: JSON, e.g. [2, 10])",
    "dict_type": 'expected a table (in the environment: JSON, e.g. {"a": 1})',
    "missing": "is required",
    "string_type": "expected text",
}
_BOUNDS = {
    "greater_than_equal": ("ge", "must be at least {}"),
    "greater_than": ("gt", "must be greater than {}"),
    "less_than_equal": ("le", "must be at most {}"),
    "less_than": ("lt", "must be less than {}"),
}


def _env_name(loc: tuple[str, ...]) -> str:
    return "THEA_" + "__".join(loc).upper()


def _source(loc: tuple[str, ...], defaults: dict[str, Any], overrides: dict[str, Any], profile: str) -> str:
    """Where the bad value most likely came from, in the priority order of the sources."""
    node: Any = overrides
    for part in loc:
        node = node.get(part) if isinstance(node, dict) else None
    if node is not None:
        return "an argument of the caller"
    name = _env_name(loc)
    if any(k.upper() == name for k in os.environ):
        return name
    try:
        from dotenv import dotenv_values

        if any(k.upper() == name for k in dotenv_values(".env")):
            return f"{name} in .env"
    except Exception:  # a broken .env is reported by the settings themselves
        pass
    node = defaults
    for part in loc:
        node = node.get(part) if isinstance(node, dict) else None
    if node is not None:
        return f"[{profile}] {'.'.join(loc)} in the config file"
    return f"{name} or the config file"


def _problem(error: Any) -> str:
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind in ("literal_error", "enum"):
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        if choices:
            return "choose one of " + ", ".join(choices)
    if kind in _BOUNDS:
        key, text = _BOUNDS[kind]
        if key in ctx:
            return text.format(ctx[key])
    if kind in _PLAIN:
        return _PLAIN[kind]
    msg = str(error.get("msg", "invalid value"))
    return msg[:1].lower() + msg[1:]


def _shown(value: Any, loc: tuple[str, ...]) -> str:
    if any(word in part.lower() for part in loc for word in _SECRET_WORDS):
        return "(hidden)"
    text = repr(value)  # repr escapes control characters
    return text if len(text) <= 60 else text[:57] + "..."


def settings_error(
    exc: ValidationError, defaults: dict[str, Any], overrides: dict[str, Any], profile: str
) -> ConfigError:
    """One line naming the first bad setting, where it came from and what it accepts."""
    errors = exc.errors()
    first = errors[0]
    loc = tuple(str(p) for p in first["loc"])
    dotted = ".".join(loc) or "settings"
    line = (
        f"invalid setting {dotted} = {_shown(first.get('input'), loc)} "
        f"(from {_source(loc, defaults, overrides, profile)}): {_problem(first)}"
    )
    if len(errors) > 1:
        others = ", ".join(".".join(str(p) for p in e["loc"]) for e in errors[1:])
        line += f" (and {len(errors) - 1} more: {others})"
    return ConfigError(line)


def unparsable_message(exc: SettingsError) -> str:
    """pydantic-settings could not decode a nested value (lists and tables must be JSON)."""
    found = re.search(r'field "([^"]+)" from source "(\w+)"', str(exc))
    if not found:
        return f"cannot read settings: {exc}"
    field, source = found.groups()
    where = "the .env file" if "DotEnv" in source else "the environment"
    prefix = _env_name((field,))
    keys: list[str] = list(os.environ)
    if "DotEnv" in source:
        from dotenv import dotenv_values

        keys = list(dotenv_values(".env"))
    names = sorted(k for k in keys if k.upper().startswith(prefix))
    shown = ", ".join(names) if names else f"{prefix} or {prefix}__..."
    return (
        f"invalid setting {field} in {where}: {shown} must be valid JSON when it holds a list or a "
        f"table (e.g. THEA_QUEUE__RETRY_BACKOFF_S='[2, 10, 60]')"
    )
