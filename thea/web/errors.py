"""Error responses of the web API: always small JSON ``{"error": ..., "detail": ...}``.

Nothing the client sent is echoed back: FastAPI's default 422 handler returns every
invalid input verbatim (a 200 kB message came back whole) and crashes with a 500 when
that input holds a lone surrogate, which JSON can carry but UTF-8 cannot encode.
Messages here are built from the schema (field names, limits) and from lengths only,
made encodable, and capped, so even a hostile request gets a short readable answer.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from thea.errors import BackendUnavailable, InputError, NotFoundError, TheaError

log = logging.getLogger(__name__)

#: longest error text a response carries (characters)
MAX_ERROR_CHARS = 300
_MAX_LISTED = 3


def safe_text(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` made encodable (lone surrogates replaced), one line, at most ``limit`` characters."""
    clean = text.encode("utf-8", "replace").decode("utf-8")
    clean = "".join(ch if ch.isprintable() else " " for ch in clean)
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    text = safe_text(message)
    return JSONResponse({"error": text, "detail": text}, status_code=status, headers=dict(headers or {}))


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
    """One line for pydantic's errors, naming fields and limits but not the input."""
    described = list(dict.fromkeys(_describe(e) for e in errors[:_MAX_LISTED]))
    more = len(errors) - _MAX_LISTED
    return "invalid request: " + "; ".join(described) + (f" (and {more} more)" if more > 0 else "")


def install_error_handlers(app: FastAPI) -> None:
    """Every error of ``app`` becomes a small JSON body: 422 for a request that does not fit
    the schema, 400/404 for thea's input errors, 503 for a backend that is down, 500 else."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(TheaError)
    async def thea_error(_: Request, exc: TheaError) -> JSONResponse:
        if isinstance(exc, NotFoundError):
            return error_response(404, str(exc))
        if isinstance(exc, InputError):
            return error_response(400, str(exc))
        if isinstance(exc, BackendUnavailable):
            return error_response(503, str(exc))
        return error_response(500, str(exc))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
        return error_response(500, f"internal error ({type(exc).__name__}); see the server log")
