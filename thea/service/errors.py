"""thea's errors as HTTP responses: status, a one-line message, a kind. Never a traceback,
never the request echoed back."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from thea.errors import (
    BackendUnavailable,
    ConfigError,
    ImportInterrupted,
    InputError,
    JobError,
    NotFoundError,
    ReflectionBusy,
    TheaError,
    TooManyWaiting,
)
from thea.service.auth import AuthError
from thea.text import printable

log = logging.getLogger(__name__)

#: most specific first
_STATUS: list[tuple[type[BaseException], int, str]] = [
    (AuthError, 401, "auth"),
    (NotFoundError, 404, "not_found"),
    (InputError, 400, "input"),
    (ReflectionBusy, 409, "busy"),
    (TooManyWaiting, 429, "busy"),
    (ImportInterrupted, 503, "interrupted"),
    (BackendUnavailable, 503, "backend"),
    (JobError, 502, "job"),
    (ConfigError, 500, "config"),
    (TheaError, 500, "failed"),
]


class Forbidden(TheaError):
    """The caller may not do this (admin actions are for the local user)."""


#: longest error text a response carries (characters)
MAX_ERROR_CHARS = 300
_MAX_LISTED = 3


def safe_text(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` made encodable (lone surrogates replaced), one line, at most ``limit`` characters;
    control and invisible characters shown as escapes (``\\x1b``), never sent raw."""
    clean = text.encode("utf-8", "replace").decode("utf-8")
    clean = " ".join(printable(clean, keep_newlines=False).split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def one_line(text: str, limit: int = 500) -> str:
    return safe_text(text, limit)


def error_body(exc: BaseException) -> tuple[int, dict[str, str]]:
    if isinstance(exc, Forbidden):
        status, kind = 403, "auth"
    else:
        status, kind = next(((s, k) for cls, s, k in _STATUS if isinstance(exc, cls)), (500, "internal"))
    message = one_line(str(exc)) if kind != "internal" else f"internal error: {type(exc).__name__}"
    return status, {"error": message, "kind": kind, "detail": message}


def _response(status: int, body: dict[str, str]) -> JSONResponse:
    return error_response(status, body["error"], body["kind"])


def _where(loc: Sequence[Any]) -> str:
    """The field an error is about: schema names and list positions, never input values."""
    parts = [str(p) for p in loc[1:] if isinstance(p, int) or str(p).isidentifier()]
    return ".".join(parts) or str(loc[0]) if loc else "request"


def _describe(error: dict[str, Any]) -> str:
    kind = str(error.get("type", ""))
    loc = tuple(error.get("loc", ()))
    ctx = error.get("ctx") or {}
    value = error.get("input")
    if kind == "json_invalid":
        return f"the request body is not valid JSON ({safe_text(str(ctx.get('error', 'decode error')), 80)})"
    if kind == "string_too_long" and isinstance(value, str):
        limit = int(ctx.get("max_length", 0))
        return f"{_where(loc)} is {len(value):,} characters long; the limit is {limit:,}"
    if kind == "string_unicode":
        return f"{_where(loc)} contains an invalid (unpaired surrogate) character"
    if kind == "model_attributes_type" and len(loc) <= 1:
        return 'the request body must be a JSON object such as {"text": "hello"}'
    return f"{_where(loc)}: {safe_text(str(error.get('msg', 'invalid value')), 120)}"


def validation_message(errors: Sequence[dict[str, Any]]) -> str:
    """One line for pydantic's errors, naming fields and limits but never the input."""
    described = list(dict.fromkeys(_describe(e) for e in errors[:_MAX_LISTED]))
    more = len(errors) - _MAX_LISTED
    return "invalid request: " + "; ".join(described) + (f" (and {more} more)" if more > 0 else "")


def error_response(
    status: int, message: str, kind: str = "input", headers: Mapping[str, str] | None = None
) -> JSONResponse:
    text = safe_text(message)
    response = JSONResponse({"error": text, "kind": kind, "detail": text}, status_code=status)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    if status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TheaError)
    async def thea_error(request: Request, exc: TheaError) -> JSONResponse:
        status, body = error_body(exc)
        if status >= 500:
            log.warning("%s %s failed: %s", request.method, request.url.path, body["error"])
        return _response(status, body)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 401: "auth", 403: "auth"}.get(exc.status_code, "input")
        return error_response(exc.status_code, str(exc.detail), kind, headers=exc.headers)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s: internal error", request.method, request.url.path, exc_info=exc)
        status, body = error_body(exc)
        return _response(status, body)
