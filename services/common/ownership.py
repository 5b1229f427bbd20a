"""What a user may see: their own nodes only; another user's look exactly like missing ones."""

from __future__ import annotations

from thea.memory.ports import NodeLookup
from thea.memory.universal import unknown_id
from thea.models import Node


def own_node(memory: NodeLookup, id_or_prefix: str, user_id: str, what: str = "memory") -> Node:
    """The caller's node with this id or unique prefix (among the caller's memories only).
    Another user's node is reported exactly like one that does not exist."""
    node_id = memory.resolve_id(id_or_prefix, user_id=user_id)
    found = memory.get([node_id])
    if not found or found[0].user_id != user_id:
        raise unknown_id(id_or_prefix)
    return found[0]
