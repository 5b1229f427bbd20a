"""thea's errors as HTTP responses: status, a one-line message, a kind. Never a traceback,
never the request echoed back."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from thea.errors import (
    BackendUnavailable,
    ConfigError,
    InputError,
    JobError,
    NotFoundError,
    ReflectionBusy,
    TheaError,
)
from thea.service.auth import AuthError

log = logging.getLogger(__name__)

#: most specific first
_STATUS: list[tuple[type[BaseException], int, str]] = [
    (AuthError, 401, "auth"),
    (NotFoundError, 404, "not_found"),
    (InputError, 400, "input"),
    (ReflectionBusy, 409, "busy"),
    (BackendUnavailable, 503, "backend"),
    (JobError, 502, "job"),
    (ConfigError, 500, "config"),
    (TheaError, 500, "failed"),
]


class Forbidden(TheaError):
    """The caller may not do this (admin actions are for the local user)."""


def one_line(text: str, limit: int = 500) -> str:
    flat = " ".join(str(text).split())
    flat = flat.encode("utf-8", "replace").decode("utf-8")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def error_body(exc: BaseException) -> tuple[int, dict[str, str]]:
    if isinstance(exc, Forbidden):
        status, kind = 403, "auth"
    else:
        status, kind = next(((s, k) for cls, s, k in _STATUS if isinstance(exc, cls)), (500, "internal"))
    message = one_line(str(exc)) if kind != "internal" else f"internal error: {type(exc).__name__}"
    return status, {"error": message, "kind": kind, "detail": message}


def _response(status: int, body: dict[str, str]) -> JSONResponse:
    response = JSONResponse(body, status_code=status)
    if status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def validation_message(exc: RequestValidationError) -> str:
    """The first problem, named by where it is (never the offending value itself)."""
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    msg = str(first.get("msg", "invalid"))
    if first.get("type") == "string_too_long":
        limit = (first.get("ctx") or {}).get("max_length")
        msg = f"is too long (the limit is {limit:,} characters)" if limit else "is too long"
    extra = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return one_line(f"{where}: {msg}{extra}", 300)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TheaError)
    async def thea_error(request: Request, exc: TheaError) -> JSONResponse:
        status, body = error_body(exc)
        if status >= 500:
            log.warning("%s %s failed: %s", request.method, request.url.path, body["error"])
        return _response(status, body)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        message = validation_message(exc)
        return _response(422, {"error": message, "kind": "input", "detail": message})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = one_line(str(exc.detail), 300)
        kind = {404: "not_found", 401: "auth", 403: "auth"}.get(exc.status_code, "input")
        return _response(exc.status_code, {"error": message, "kind": kind, "detail": message})

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s: internal error", request.method, request.url.path, exc_info=exc)
        status, body = error_body(exc)
        return _response(status, body)
