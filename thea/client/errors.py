"""Errors a client raises: the service's error kinds mapped back onto thea's exception tree."""

from __future__ import annotations

import json

import httpx

from thea.errors import (
    BackendUnavailable,
    ConfigError,
    ImportInterrupted,
    InputError,
    JobError,
    NotFoundError,
    ReflectionBusy,
    TheaError,
)


class ServiceUnavailable(BackendUnavailable):
    """The thea service cannot be reached (or could not be started)."""

    def __init__(self, detail: str) -> None:
        super().__init__("thea service", detail)


class RemoteBackendUnavailable(BackendUnavailable):
    """A backend of the service is down (the service's own one-line message)."""

    def __init__(self, message: str) -> None:
        TheaError.__init__(self, message)
        self.backend = "service backend"
        self.detail = message


class AccessDenied(TheaError):
    """Missing or wrong token, or an action reserved for the service's local user."""


def is_stopping(response: httpx.Response) -> bool:
    """A 503 from a service on its way out (its body is read already)."""
    if response.status_code != 503:
        return False
    try:
        body = json.loads(response.content or b"{}")
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("kind") == "stopping"


def raise_for_body(status: int, body: dict[str, object]) -> None:
    message = str(body.get("error") or body.get("detail") or f"HTTP {status}")
    kind = body.get("kind")
    if kind == "not_found" or status == 404:
        raise NotFoundError(message)
    if kind == "input" or status in (400, 413, 422):
        raise InputError(message)
    if kind == "auth" or status in (401, 403, 421):
        raise AccessDenied(message)
    if kind == "busy":
        raise ReflectionBusy(message)
    if kind == "stopping":
        raise ServiceUnavailable(message)
    if kind == "interrupted":
        raise ImportInterrupted(message)
    if kind == "backend" or status == 503:
        raise RemoteBackendUnavailable(message)
    if kind == "job":
        raise JobError(message)
    if kind == "config":
        raise ConfigError(message)
    raise TheaError(message)


def raise_for_response(response: httpx.Response) -> None:
    """Raise the mapped thea error for an error response (its body must be read already)."""
    if response.status_code < 400:
        return
    try:
        body = json.loads(response.content or b"{}")
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    raise_for_body(response.status_code, body)
