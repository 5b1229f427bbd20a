"""Deleting nodes for good, on a Cypher query runner (both graph adapters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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

    def user_memory_page(self, user_id: str, after_id: str, limit: int) -> list[dict[str, Any]]:
        rows = self._run("user_memory_page", {"user_id": user_id, "after_id": after_id, "limit": limit})
        return [dict(r["props"]) for r in rows]

    def insights_derived_from(self, ids: Sequence[str], user_id: str) -> list[str]:
        wanted = list(dict.fromkeys(i for i in ids if i))
        if not wanted or not user_id:
            return []
        return [str(r["id"]) for r in self._run("insights_derived_from", {"ids": wanted, "user_id": user_id})]

    def unsupported_concepts(
        self, concept_ids: Sequence[str], user_id: str, leaving: Sequence[str]
    ) -> list[str]:
        wanted = list(dict.fromkeys(i for i in concept_ids if i))
        if not wanted or not user_id:
            return []
        params = {"ids": wanted, "user_id": user_id, "leaving": list(leaving)}
        return [
            str(r["id"]) for r in self._run("concept_supporters", params) if not int(r["supporters"] or 0)
        ]

    def delete_concepts(self, concept_ids: Sequence[str], user_id: str) -> list[str]:
        wanted = list(dict.fromkeys(i for i in concept_ids if i))
        if not wanted or not user_id:
            return []
        return [str(r["id"]) for r in self._run("delete_concepts", {"ids": wanted, "user_id": user_id})]
