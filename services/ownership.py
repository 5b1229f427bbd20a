"""What a user may see: their own nodes only; another user's look exactly like missing ones."""

from __future__ import annotations

from thea.errors import NotFoundError
from thea.memory.universal import UniversalMemory
from thea.models import Node


def own_node(memory: UniversalMemory, id_or_prefix: str, user_id: str, what: str = "memory") -> Node:
    """The caller's node with this id or unique prefix. Another user's node is reported exactly
    like one that does not exist."""
    missing = NotFoundError(f"no {what} of yours with id starting {id_or_prefix!r}")
    try:
        node_id = memory.resolve_id(id_or_prefix)
    except NotFoundError as exc:
        if "ambiguous" in str(exc):
            raise
        raise missing from None
    found = memory.get([node_id])
    if not found or found[0].user_id not in (None, user_id):
        raise missing
    return found[0]
