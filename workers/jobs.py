"""Job functions: thin, they call services with the worker's context.

Every job is idempotent: node ids derive from the impulse id (or the source ids
of a merge), writes MERGE, and a crystal that exists is never rewritten.
A job that cannot finish raises :class:`thea.errors.JobError` (or the service's
error); RQ retries it with backoff and then keeps it in the failed registry.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from services.common.exchange import Exchange
from workers.context import current

log = logging.getLogger(__name__)


def distill(rows: list[dict[str, Any]], user_id: str, session_id: str) -> dict[str, Any]:
    ctx = current()
    exchanges = [Exchange(**row) for row in rows]
    turns = asyncio.run(ctx.distiller.distill(exchanges, user_id, session_id))
    return {"dialogue_turns": [t.id for t in turns]}


def read_claims(impulse_id: str, user_id: str | None = None) -> dict[str, Any]:
    ctx = current()
    if ctx.statements is None:
        return {"impulse_id": impulse_id, "skipped": "claims are not read by this worker"}
    return asyncio.run(ctx.statements.read(impulse_id))


def crystallize(impulse_id: str, user_id: str | None = None) -> dict[str, Any]:
    ctx = current()
    outcome = asyncio.run(ctx.crystallizer.crystallize(impulse_id))
    return outcome.as_dict()


def reflect(user_id: str, request_id: str | None = None) -> dict[str, Any]:
    ctx = current()
    report = asyncio.run(ctx.reflector.reflect(user_id, request_id))
    return report.as_dict()
