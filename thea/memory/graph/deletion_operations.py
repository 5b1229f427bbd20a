"""Deleting nodes for good, on a Cypher query runner (both graph adapters)."""

from __future__ import annotations

from collections.abc import Sequence

from thea.memory.graph.cypher_operations import QueryRunner
from thea.memory.operations.deletion import DeletedNodes, NodeDeletion


class CypherNodeDeletion(NodeDeletion):
    def __init__(self, run: QueryRunner) -> None:
        self._run = run

    def delete_nodes(self, ids: Sequence[str], user_id: str) -> DeletedNodes:
        wanted = list(dict.fromkeys(i for i in ids if i))
        if not wanted or not user_id:
            return DeletedNodes()
        rows = self._run("delete_nodes", {"ids": wanted, "user_id": user_id})
        return DeletedNodes(
            ids=[str(r["id"]) for r in rows], relations=sum(int(r["relations"] or 0) for r in rows)
        )
