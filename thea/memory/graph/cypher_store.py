"""Shared logic of the Cypher-speaking graph adapters (FalkorDB, Neo4j).

Adapters only say how to execute a statement; grouping, batching, validation and
row conversion live here once.
"""

from __future__ import annotations

import abc
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from thea.memory.graph.base import GraphStore
from thea.memory.graph.cypher_operations import cypher_operations
from thea.memory.graph.deletion_operations import CypherNodeDeletion
from thea.memory.graph.queries import QueryLibrary
from thea.memory.operations import GraphOperations
from thea.memory.operations.deletion import NodeDeletion
from thea.models import Edge, EdgeType, HealthStatus, Node, NodeType, Subgraph, concept_id


def batched(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


@dataclass(frozen=True)
class CypherAccess:
    """What another adapter on the same store needs (the vector index kept in the graph):
    the store's query files in its dialect, its statement runner and its schema runner."""

    queries: QueryLibrary
    execute: Callable[[str, dict[str, Any] | None], list[dict[str, Any]]]
    apply_schema_statement: Callable[[str], None]
    batch_size: int


class CypherGraphStore(GraphStore):
    """Implements the graph port on top of ``_execute(text, params)``."""

    def __init__(self, dialect: str, batch_size: int = 500) -> None:
        self.queries = QueryLibrary(dialect)
        self.batch_size = batch_size
        self._operations = cypher_operations(self._run)
        self._deletion = CypherNodeDeletion(self._run)

    @abc.abstractmethod
    def _execute(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement, return rows as dicts; map driver errors to thea errors."""

    @abc.abstractmethod
    def _apply_schema_statement(self, statement: str) -> None:
        """Run one schema statement, tolerating "already exists"."""

    # -- writes ------------------------------------------------------------------------

    def ensure_schema(self) -> None:
        for statement in self.queries.schema_statements():
            self._apply_schema_statement(statement)

    def upsert_nodes(self, nodes: Sequence[Node]) -> int:
        by_label: dict[NodeType, dict[str, dict[str, Any]]] = defaultdict(dict)
        for node in nodes:
            # last write of an id within one call wins, so a batch never MERGEs an id twice
            by_label[node.type][node.id] = {"id": node.id, "props": node.to_props()}
        written = 0
        for label, rows in by_label.items():
            text = self.queries.render("upsert_nodes", label=label)
            for chunk in batched(list(rows.values()), self.batch_size):
                written += self._scalar(text, {"rows": list(chunk)}, "written")
        return written

    def upsert_edges(self, edges: Sequence[Edge]) -> int:
        by_type: dict[EdgeType, dict[tuple[str, str, str], dict[str, Any]]] = defaultdict(dict)
        for edge in edges:
            by_type[edge.type][edge.key] = {"src": edge.src, "dst": edge.dst, "props": edge.to_props()}
        written = 0
        for rel, rows in by_type.items():
            text = self.queries.render("upsert_edges", rel=rel)
            for chunk in batched(list(rows.values()), self.batch_size):
                written += self._scalar(text, {"rows": list(chunk)}, "written")
        return written

    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        if not ids:
            return 0
        return self._scalar(
            self.queries.render("set_properties"), {"ids": list(ids), "props": props}, "matched"
        )

    def add_aliases(self, concept_id: str, alias_norms: Sequence[str], user_id: str) -> None:
        rows = [{"concept_id": concept_id, "norm": n, "user_id": user_id} for n in alias_norms if n]
        if rows:
            self._execute(self.queries.render("add_aliases"), {"rows": rows})

    # -- reads -------------------------------------------------------------------------

    def get_nodes(self, ids: Sequence[str]) -> list[Node]:
        if not ids:
            return []
        out: list[Node] = []
        for chunk in batched(list(dict.fromkeys(ids)), self.batch_size):
            rows = self._execute(self.queries.render("get_nodes"), {"ids": list(chunk)})
            out.extend(Node.from_props(r["props"]) for r in rows)
        return out

    def find_ids_by_prefix(self, prefix: str, limit: int = 5, user_id: str | None = None) -> list[str]:
        params = {"prefix": prefix, "limit": limit, "user_id": user_id}
        rows = self._execute(self.queries.render("find_ids_by_prefix"), params)
        return [str(r["id"]) for r in rows]

    def neighbourhood(
        self,
        node_id: str,
        depth: int = 1,
        edge_types: Sequence[EdgeType] | None = None,
        limit: int = 200,
        user_id: str | None = None,
    ) -> Subgraph:
        text = self.queries.render("neighbourhood", rels=edge_types, depth=depth)
        params = {"id": node_id, "limit": limit, "paths": limit * 4, "user_id": user_id}
        rows = self._execute(text, params)
        if not rows:
            return Subgraph()
        nodes = [self._node(n) for n in rows[0]["nodes"] if n is not None]
        ids = {n.id for n in nodes}
        seen: dict[tuple[str, str, str], Edge] = {}
        for path in rows[0]["edges"] or []:
            for r in path or []:
                key = (r["src"], r["type"], r["dst"])
                if key in seen or r["src"] not in ids or r["dst"] not in ids:
                    continue
                if r["type"] in EdgeType.__members__:
                    seen[key] = Edge(src=r["src"], dst=r["dst"], type=EdgeType.parse(r["type"]), **r["props"])
        edges = list(seen.values())
        return Subgraph(nodes=nodes, edges=edges)

    def nodes_in_time_range(
        self,
        node_type: NodeType | None,
        start_ms: int,
        end_ms: int,
        user_id: str | None = None,
        limit: int = 100,
    ) -> list[Node]:
        text = self.queries.render("nodes_in_time_range", label=node_type or "Memory")
        params = {"start": start_ms, "end": end_ms, "user_id": user_id, "limit": limit}
        return [Node.from_props(r["props"]) for r in self._execute(text, params)]

    def concepts_by_norm(self, norms: Sequence[str], user_id: str) -> dict[str, Node]:
        if not norms or not user_id:
            return {}
        rows = [{"norm": n, "id": concept_id(user_id, n)} for n in dict.fromkeys(norms)]
        found = self._execute(self.queries.render("concepts_by_norm"), {"rows": rows, "user_id": user_id})
        return {r["norm"]: Node.from_props(r["props"]) for r in found}

    def count_by_type(self) -> dict[str, int]:
        counts = {
            str(r["type"]): int(r["count"]) for r in self._execute(self.queries.render("count_by_type"))
        }
        counts["edges"] = self._scalar(self.queries.render("count_edges"), None, "count")
        return counts

    def cypher_access(self) -> CypherAccess:
        """This store's connection for an adapter that keeps its data in the same graph."""
        return CypherAccess(self.queries, self._execute, self._apply_schema_statement, self.batch_size)

    @property
    def operations(self) -> GraphOperations:
        return self._operations

    @property
    def deletion(self) -> NodeDeletion:
        return self._deletion

    def _run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run a named query of ``cypher/`` in this store's dialect (only the operations call it)."""
        return self._execute(self.queries.render(name), params)

    def health(self) -> HealthStatus:
        def ping() -> str:
            self._execute(self.queries.render("ping"))
            return ""

        return HealthStatus.probe("graph", self.backend, ping)

    # -- helpers -----------------------------------------------------------------------

    def _scalar(self, text: str, params: dict[str, Any] | None, column: str) -> int:
        rows = self._execute(text, params)
        return int(rows[0][column]) if rows else 0

    def _node(self, value: Any) -> Node:
        """Adapters return nodes as property maps (dicts)."""
        return Node.from_props(dict(value))
