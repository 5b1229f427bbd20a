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


class ConnectionLost(ServiceUnavailable):
    """The connection broke after the request went out: the service may have done it. A retry
    with the same idempotency key gets the first result instead of doing it twice."""


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


#: transport errors after which the request may or may not have reached the service
_MAY_HAVE_RUN = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError, httpx.WriteTimeout)
#: transport errors before anything reached the service
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def transport_detail(exc: BaseException) -> str:
    """An httpx error in one short line (many carry no message at all)."""
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    return f"{name}: {text[:200]}" if text else name


def transport_error(exc: httpx.TransportError, where: str, timeout_s: float) -> ServiceUnavailable:
    """The thea error for a failed exchange with the service at ``where``, in one line."""
    if isinstance(exc, httpx.ReadTimeout):
        return ServiceUnavailable(f"{where} gave no answer within {timeout_s:.0f} s")
    if isinstance(exc, _MAY_HAVE_RUN):
        return ConnectionLost(
            f"the connection to {where} broke before its answer was complete ({transport_detail(exc)})"
        )
    return ServiceUnavailable(f"cannot reach {where} ({transport_detail(exc)})")


def retryable(exc: httpx.TransportError) -> bool:
    """Whether to send a request again after ``exc``: always when it never left; after a broken
    connection too, since every write carries its idempotency key (a read is safe anyway).
    Not after the read timeout: the service is still working on it."""
    return isinstance(exc, _NOT_SENT + _MAY_HAVE_RUN)
