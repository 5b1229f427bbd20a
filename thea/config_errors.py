"""One-line messages for invalid settings: which setting, where its value came from (an argument,
the environment, ``.env`` or the config file) and what it accepts. Secrets are never shown."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError
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


def dotenv_variables() -> dict[str, str]:
    """The variables of ``.env`` in the working directory (the file the settings read), or none
    when it cannot be read (a broken ``.env`` is reported by the settings themselves)."""
    from dotenv import dotenv_values

    try:
        return {k: v or "" for k, v in dotenv_values(".env").items()}
    except Exception:
        return {}


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
    if any(k.upper() == name for k in dotenv_variables()):
        return f"{name} in .env"
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


def _closest(name: str, known: Iterable[str]) -> str | None:
    """The known setting a misspelt name most likely meant, if any is close."""
    close = difflib.get_close_matches(name.lower(), sorted(known), n=1, cutoff=0.75)
    return close[0] if close else None


def _suggestion(name: str, known: Iterable[str], section: tuple[str, ...] = ()) -> str:
    meant = _closest(name, known)
    return f"did you mean {'.'.join((*section, meant))}?" if meant else "not a setting"


def _section_keys(model: type[BaseModel], path: tuple[str, ...]) -> list[str]:
    """The keys the settings section at ``path`` knows (none when the path is not a section)."""
    for part in path:
        field = model.model_fields.get(part)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def settings_error(
    exc: ValidationError,
    defaults: dict[str, Any],
    overrides: dict[str, Any],
    profile: str,
    model: type[BaseModel] | None = None,
) -> ConfigError:
    """One line naming the first bad setting, where it came from and what it accepts (for a key
    no section has, the setting it most likely meant)."""
    errors = exc.errors()
    first = errors[0]
    loc = tuple(str(p) for p in first["loc"])
    dotted = ".".join(loc) or "settings"
    where = _source(loc, defaults, overrides, profile)
    if first.get("type") == "extra_forbidden" and model is not None:
        known = _section_keys(model, loc[:-1])
        line = f"unknown setting {dotted} (from {where}): {_suggestion(loc[-1], known, loc[:-1])}"
    else:
        line = (
            f"invalid setting {dotted} = {_shown(first.get('input'), loc)} (from {where}): {_problem(first)}"
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
    keys = list(dotenv_variables() if "DotEnv" in source else os.environ)
    names = sorted(k for k in keys if k.upper().startswith(prefix))
    shown = ", ".join(names) if names else f"{prefix} or {prefix}__..."
    return (
        f"invalid setting {field} in {where}: {shown} must be valid JSON when it holds a list or a "
        f"table (e.g. THEA_QUEUE__RETRY_BACKOFF_S='[2, 10, 60]')"
    )


#: ``THEA_`` variables that are not settings but are read by thea's commands and scripts
NOT_SETTINGS = frozenset({"config_file", "cypher_lint_dir", "workers", "roles", "port", "namespace"})


def unknown_names(
    known: Iterable[str], section: Mapping[str, Any], environ: Mapping[str, str], profile: str
) -> ConfigError | None:
    """A misspelt top-level setting: a key of the config file's profile section that is not a
    setting, or a ``THEA_`` variable (environment or ``.env``) close to one. (Other ``THEA_``
    variables may belong to other tools, so only near misses count; nested ``THEA_A__B``
    names are checked by their section.)"""
    names = set(known)
    for key in section:
        if key not in names:
            return ConfigError(
                f"unknown setting {key} in the config file's [{profile}] section: {_suggestion(key, names)}"
            )
    for variable in environ:
        upper = variable.upper()
        if not upper.startswith("THEA_") or "__" in upper:
            continue
        name = upper.removeprefix("THEA_").lower()
        if name in names or name in NOT_SETTINGS:
            continue
        meant = _closest(name, names)
        if meant:
            return ConfigError(f"unknown setting {variable}: did you mean THEA_{meant.upper()}?")
    return None
