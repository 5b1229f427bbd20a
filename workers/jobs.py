"""Job functions: thin, they call services with the worker's context.

Every job is idempotent: node ids derive from the impulse id, writes MERGE.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from services.context import Exchange
from workers.context import current

log = logging.getLogger(__name__)


def distill(rows: list[dict[str, Any]], user_id: str, session_id: str) -> dict[str, Any]:
    ctx = current()
    exchanges = [Exchange(**row) for row in rows]
    turns = asyncio.run(ctx.distiller.distill(exchanges, user_id, session_id))
    return {"dialogue_turns": [t.id for t in turns]}
