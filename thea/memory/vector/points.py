"""Point ids and payload mapping shared by the Qdrant adapters."""

from __future__ import annotations

import uuid
from typing import Any

from thea.models import VectorHit

_CHUNK_NAMESPACE = uuid.UUID("2c9a0f5e-3b7d-4e8a-9c61-5d4f7b2e1a03")


def point_id(node_id: str, chunk: int) -> str:
    """Qdrant needs UUID point ids: the node id itself for chunk 0 when it is a UUID,
    otherwise a UUID derived from (node id, chunk), so re-upserts overwrite."""
    if chunk == 0:
        try:
            return str(uuid.UUID(node_id))
        except ValueError:
            pass
    return str(uuid.uuid5(_CHUNK_NAMESPACE, f"{node_id}#{chunk}"))


def widen(limit: int) -> int:
    """How many points to fetch so that de-duplicating chunks still fills ``limit``."""
    return limit * 3 + 5


def hit_from_payload(payload: dict[str, Any], score: float) -> VectorHit:
    return VectorHit(
        id=str(payload.get("node_id")),
        score=score,
        type=str(payload.get("type", "")),
        text=str(payload.get("text", "")),
        user_id=payload.get("user_id"),
        active=bool(payload.get("active", True)),
        created_at=int(payload.get("created_at", 0)),
        chunk=int(payload.get("chunk", 0)),
    )
