"""The operation groups implemented once on a Cypher query runner.

The runner (``CypherGraphStore._run``) renders a named query of ``cypher/`` in the store's
dialect and returns rows as dicts; nothing here knows which backend is behind it. Rows are
turned into typed results here and never leave ``thea.memory`` as dicts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from thea.memory.operations import (
    AdminOperations,
    AssertedRelation,
    ConceptNeighbour,
    CycleOutcome,
    ExchangeOperations,
    FactReads,
    GraphOperations,
    InsightCandidate,
    InsightFilter,
    InsightLineage,
    InsightListing,
    InsightViews,
    KeywordMatch,
    KnowledgeWrites,
    LegacyLink,
    LegacyRelation,
    MergeClaim,
    NodePatch,
    RecallReads,
    ReflectionOperations,
    TraceReads,
    TripleMatch,
)
from thea.memory.operations.admin import PropertyMap
from thea.memory.operations.trace import ChatSessionRow, ExchangeRow
from thea.models import (
    CONCEPT_RELATIONS,
    DocumentChunk,
    EdgeType,
    Fact,
    KnowledgeCrystal,
    MessageKind,
    Node,
    NodeType,
    UserImpulse,
    is_evidence,
    now_ms,
)
from thea.words import holds_words, lower_words

#: run a named query of ``cypher/`` with parameters, rows as dicts (private to thea.memory)
QueryRunner = Callable[[str, dict[str, Any]], list[dict[str, Any]]]


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _names(values: Sequence[Any]) -> list[str]:
    return [str(v) for v in values if v]


class _Group:
    def __init__(self, run: QueryRunner) -> None:
        self._run = run


class CypherTraceReads(_Group, TraceReads):
    def cycle_nodes(self, correlation_id: str) -> list[Node]:
        rows = self._run("trace_nodes", {"correlation_id": correlation_id})
        return [Node.from_props(r["props"]) for r in rows]

    def latest_impulse_id(self, user_id: str | None = None) -> str | None:
        rows = self._run("latest_impulse", {"user_id": user_id})
        return str(rows[0]["id"]) if rows else None

    def chat_sessions(self, user_id: str, limit: int) -> list[ChatSessionRow]:
        rows = self._run("chat_sessions", {"user_id": user_id, "limit": limit})
        return [
            ChatSessionRow(
                session_id=str(r["session_id"]),
                first_text=str(r["first_text"] or ""),
                started_at=int(r["started_at"]),
                last_at=int(r["last_at"]),
                messages=int(r["messages"]),
            )
            for r in rows
        ]

    def session_exchanges(self, user_id: str, session_id: str, limit: int) -> list[ExchangeRow]:
        params = {"user_id": user_id, "session_id": session_id, "limit": limit}
        rows = self._run("session_exchanges", params)
        out: list[ExchangeRow] = []
        seen: set[str] = set()
        for r in reversed(rows):
            impulse = Node.from_props(r["impulse"])
            if not isinstance(impulse, UserImpulse) or impulse.id in seen:
                continue  # (a cycle repaired twice may hold two answers: the first is shown)
            seen.add(impulse.id)
            answered = r.get("answered_at")
            out.append(
                ExchangeRow(
                    impulse=impulse,
                    response_id=None if r.get("response_id") is None else str(r["response_id"]),
                    answer=None if r.get("answer") is None else str(r["answer"]),
                    answered_at=None if answered is None else int(answered),
                )
            )
        return out


class CypherRecallReads(_Group, RecallReads):
    def keyword_matches(
        self, queries: Sequence[str], types: Sequence[NodeType], user_id: str | None, limit: int
    ) -> list[KeywordMatch]:
        if not queries:
            return []
        params = {
            "queries": list(queries),
            "types": [t.value for t in types],
            "user_id": user_id,
            "limit": limit,
        }
        out: list[KeywordMatch] = []
        for row in self._run("fulltext_search", params):
            props = row["props"]
            when = props.get("event_time")
            out.append(
                KeywordMatch(
                    id=str(props["id"]),
                    type=str(props.get("type", "")),
                    user_id=props.get("user_id"),
                    content=str(props.get("content", "")),
                    context=str(props.get("context") or ""),
                    event_time=int(when if when is not None else props.get("created_at", 0)),
                    score=float(row.get("score") or 0.0),
                    evidence=is_evidence(props),
                )
            )
        return out

    def triple_matches(
        self,
        relation: str,
        known: str,
        *,
        known_is_subject: bool,
        other: str | None,
        user_id: str,
        now: int,
    ) -> list[TripleMatch]:
        params = {
            "relation": relation,
            "known": known,
            "known_is_subject": known_is_subject,
            "other": other,
            "user_id": user_id,
            "now": now,
        }
        rows = self._run("recall_triple_subjects", params)
        return [TripleMatch(str(r["known"]), str(r["other"]), _float(r["confidence"])) for r in rows]

    def linked_memories(
        self,
        concept_ids: Sequence[str],
        user_id: str | None,
        time_from: int | None,
        time_to: int | None,
        limit: int,
    ) -> list[str]:
        params = {
            "concept_ids": list(concept_ids),
            "user_id": user_id,
            "time_from": time_from,
            "time_to": time_to,
            "limit": limit,
        }
        return [str(r["id"]) for r in self._run("recall_by_concepts", params)]

    def concept_neighbours(
        self, concept_ids: Sequence[str], relations: Sequence[EdgeType], user_id: str | None, now: int
    ) -> list[ConceptNeighbour]:
        params = {
            "ids": list(concept_ids),
            "relations": [r.value for r in relations],
            "user_id": user_id,
            "now": now,
        }
        rows = self._run("recall_concept_neighbours", params)
        return [
            ConceptNeighbour(str(r["src"]), str(r["dst"]), str(r["relation"]), _float(r["confidence"]))
            for r in rows
        ]


class CypherReflectionOperations(_Group, ReflectionOperations):
    def candidates(self, user_id: str, after: str, limit: int) -> list[InsightCandidate]:
        rows = self._run("reflection_candidates", {"user_id": user_id, "after": after, "limit": limit})
        return [
            InsightCandidate(
                str(r["id"]), str(r["content"] or ""), float(r["strength"] or 0.0), tuple(r["concepts"])
            )
            for r in rows
        ]

    def claim_merges(self, claims: Sequence[MergeClaim], now: int) -> set[str]:
        if not claims:
            return set()
        groups = [
            {"id": c.merged.id, "sources": list(c.sources), "props": c.merged.to_props()} for c in claims
        ]
        return {str(r["id"]) for r in self._run("claim_merges", {"groups": groups, "now": now})}

    def users_with_insights(self) -> list[str]:
        return [str(r["user_id"]) for r in self._run("insight_users", {})]

    def merge_parents(self, user_id: str) -> dict[str, int]:
        rows = self._run("count_merged_from_per_source", {"user_id": user_id})
        return {str(r["id"]): int(r["n"]) for r in rows}


class CypherInsightViews(_Group, InsightViews):
    def matching(self, flt: InsightFilter) -> list[InsightListing]:
        params = {
            "active": flt.active,
            "verification": flt.verification,
            "user_id": flt.user_id,
            "min_strength": float(flt.min_strength),
            "concept": flt.concept,
            "limit": int(flt.limit),
        }
        out: list[InsightListing] = []
        for row in self._run("insights_list", params):
            node = Node.from_props(row["props"])
            if isinstance(node, KnowledgeCrystal):
                out.append(InsightListing(insight=node, concepts=sorted(_names(row["concepts"]))))
        return out

    def lineage(self, insight_id: str) -> InsightLineage | None:
        rows = self._run("insight_lineage", {"id": insight_id})
        if not rows or rows[0]["props"] is None:
            return None
        row = rows[0]
        node = Node.from_props(row["props"])
        if not isinstance(node, KnowledgeCrystal):
            return None
        return InsightLineage(
            insight=node,
            concepts=sorted(_names(row["concepts"])),
            merged_from=_names(row["merged_from"]),
            merged_into=_names(row["merged_into"]),
            source_impulse_ids=_names(row["source_impulses"]),
        )

    def relations_by_source(self, source_id: str) -> list[AssertedRelation]:
        rows = self._run("relations_by_source", {"source": source_id})
        return [
            AssertedRelation(
                subject=str(r["subject"]),
                relation=str(r["relation"]),
                object=str(r["object"]),
                confidence=_float(r["confidence"]),
                valid_until=None if r["valid_until"] is None else int(r["valid_until"]),
            )
            for r in rows
        ]

    def about_concepts(
        self, concept_ids: Sequence[str], user_id: str, exclude: Sequence[str], limit: int
    ) -> list[KnowledgeCrystal]:
        if not concept_ids:
            return []
        params = {
            "concepts": list(dict.fromkeys(concept_ids)),
            "user_id": user_id,
            "exclude": list(exclude),
            "limit": int(limit),
        }
        nodes = [Node.from_props(r["props"]) for r in self._run("insights_by_concepts", params)]
        return [n for n in nodes if isinstance(n, KnowledgeCrystal)]


class CypherKnowledgeWrites(_Group, KnowledgeWrites):
    def patch_nodes(self, patches: Sequence[NodePatch]) -> int:
        if not patches:
            return 0
        rows = [{"id": p.id, "props": dict(p.props)} for p in patches]
        found = self._run("patch_nodes", {"rows": rows})
        return int(found[0]["matched"]) if found else 0

    def close_relations(self, source_ids: Sequence[str], now: int) -> int:
        if not source_ids:
            return 0
        found = self._run("supersede_relations", {"sources": list(source_ids), "now": now})
        return int(found[0]["closed"]) if found else 0

    def close_insight_relations(self, insight_ids: Sequence[str], now: int) -> int:
        if not insight_ids:
            return 0
        found = self._run("supersede_insight_relations", {"sources": list(insight_ids), "now": now})
        return int(found[0]["closed"]) if found else 0


class CypherExchangeOperations(_Group, ExchangeOperations):
    def impulses_page(
        self, after_time: int, after_id: str, user_id: str | None, limit: int
    ) -> list[UserImpulse]:
        params = {"after_time": after_time, "after_id": after_id, "user_id": user_id, "limit": limit}
        nodes = (Node.from_props(r["props"]) for r in self._run("impulses_page", params))
        return [n for n in nodes if isinstance(n, UserImpulse)]

    def cycles_nodes(self, correlation_ids: Sequence[str]) -> dict[str, list[Node]]:
        by_cycle: dict[str, list[Node]] = {cid: [] for cid in correlation_ids}
        if not by_cycle:
            return by_cycle
        for row in self._run("cycle_nodes_many", {"correlation_ids": list(by_cycle)}):
            by_cycle[str(row["cid"])].append(Node.from_props(row["props"]))
        return by_cycle

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        return {str(r["id"]) for r in self._run("existing_node_ids", {"ids": list(ids)})}

    def document_chunks(self, document_id: str, user_id: str) -> list[DocumentChunk]:
        rows = self._run("document_chunks", {"document_id": document_id, "user_id": user_id})
        nodes = (Node.from_props(r["props"]) for r in rows)
        return [n for n in nodes if isinstance(n, DocumentChunk)]

    def documents_texts(self, document_ids: Sequence[str]) -> dict[str, str]:
        if not document_ids:
            return {}
        parts: dict[str, list[str]] = {}
        for row in self._run("documents_texts", {"document_ids": list(document_ids)}):
            parts.setdefault(str(row["document_id"]), []).append(str(row["content"]))
        return {document_id: "".join(chunks) for document_id, chunks in parts.items()}


class CypherAdminOperations(_Group, AdminOperations):
    def memory_page(self, after_id: str, limit: int) -> list[PropertyMap]:
        return [dict(r["props"]) for r in self._run("memory_page", {"after_id": after_id, "limit": limit})]

    def pending_vectors(self, limit: int) -> list[PropertyMap]:
        return [dict(r["props"]) for r in self._run("pending_vectors", {"limit": limit})]

    def count_pending_vectors(self) -> int:
        found = self._run("count_pending_vectors", {})
        return int(found[0]["pending"]) if found else 0

    def cycles_without_response(self, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        return [str(r["id"]) for r in self._run("cycles_without_response", {"ids": list(ids)})]

    def cycle_outcomes(self, user_prefix: str) -> list[CycleOutcome]:
        rows = self._run("cycle_outcomes", {"prefix": user_prefix})
        return [
            CycleOutcome(
                str(r["id"]),
                int(r["responses"]),
                int(r["crystals"]),
                tuple(str(c) for c in r.get("crystal_ids") or ()),
            )
            for r in rows
        ]

    def legacy_links(self, concept_ids: Sequence[str]) -> list[LegacyLink]:
        rows = self._run("legacy_concept_links", {"ids": list(concept_ids)})
        return [
            LegacyLink(
                str(r["cid"]), str(r["src"]), str(r["user_id"]), str(r["type"]), dict(r["props"] or {})
            )
            for r in rows
        ]

    def legacy_relations(self, concept_ids: Sequence[str]) -> list[LegacyRelation]:
        params = {"ids": list(concept_ids), "relations": [r.value for r in CONCEPT_RELATIONS]}
        return [
            LegacyRelation(
                subject=str(r["subject"]),
                relation=str(r["relation"]),
                object=str(r["object"]),
                props=dict(r["props"] or {}),
                user_id=None if r["user_id"] is None else str(r["user_id"]),
            )
            for r in self._run("legacy_concept_relations", params)
        ]

    def legacy_aliases(self, concept_ids: Sequence[str]) -> dict[str, list[str]]:
        aliases: dict[str, list[str]] = defaultdict(list)
        for row in self._run("legacy_concept_aliases", {"ids": list(concept_ids)}):
            aliases[str(row["cid"])].append(str(row["norm"]))
        return dict(aliases)

    def delete_legacy_concepts(self, concept_ids: Sequence[str]) -> int:
        found = self._run("delete_legacy_concepts", {"ids": list(concept_ids)})
        return int(found[0]["deleted"]) if found else 0


class CypherFactReads(_Group, FactReads):
    def facts_of_record(
        self, user_id: str, *, current_only: bool, limit: int, at: int | None = None
    ) -> list[Fact]:
        rows = self._run(
            "facts_of_record",
            {
                "user_id": user_id,
                "current_only": current_only,
                "limit": limit,
                "now": now_ms() if at is None else at,
            },
        )
        return [f for f in (Node.from_props(r["props"]) for r in rows) if isinstance(f, Fact)]

    def insights_resting_on(self, source_ids: Sequence[str], user_id: str) -> list[KnowledgeCrystal]:
        if not source_ids:
            return []
        rows = self._run("insights_resting_on", {"ids": list(source_ids), "user_id": user_id})
        found = (Node.from_props(r["props"]) for r in rows)
        return [k for k in found if isinstance(k, KnowledgeCrystal)]

    def count_unread(self, user_id: str, since_ms: int) -> int:
        kinds = [MessageKind.STATEMENT.value, MessageKind.MIX.value]
        found = self._run("count_unread_messages", {"user_id": user_id, "kinds": kinds, "since": since_ms})
        return int(found[0]["unread"]) if found else 0

    def recent_statements(self, user_id: str, limit: int) -> list[UserImpulse]:
        kinds = [MessageKind.STATEMENT.value, MessageKind.MIX.value]
        rows = self._run("recent_statements", {"user_id": user_id, "kinds": kinds, "limit": limit})
        return [m for m in (Node.from_props(r["props"]) for r in rows) if isinstance(m, UserImpulse)]

    def recent_messages(self, user_id: str, limit: int) -> list[UserImpulse]:
        kinds = [kind.value for kind in MessageKind]
        rows = self._run("recent_statements", {"user_id": user_id, "kinds": kinds, "limit": limit})
        return [m for m in (Node.from_props(r["props"]) for r in rows) if isinstance(m, UserImpulse)]

    def statements(self, user_id: str, ids: Sequence[str]) -> list[UserImpulse]:
        if not ids:
            return []
        rows = self._run("statements_by_id", {"user_id": user_id, "ids": list(dict.fromkeys(ids))})
        return [m for m in (Node.from_props(r["props"]) for r in rows) if isinstance(m, UserImpulse)]

    def statements_naming(self, user_id: str, names: Sequence[str], limit: int) -> list[UserImpulse]:
        wanted = [words for words in (lower_words(n) for n in names) if words]
        if not wanted or limit <= 0:
            return []
        kinds = [MessageKind.STATEMENT.value, MessageKind.MIX.value]
        words = sorted({" ".join(w) for w in wanted})
        # the graph finds the name as a substring, over a few more than wanted; code keeps those
        # holding it as words ("Al" is no word of "also")
        params = {"user_id": user_id, "kinds": kinds, "words": words, "limit": limit * 4}
        rows = self._run("statements_naming", params)
        found = [m for m in (Node.from_props(r["props"]) for r in rows) if isinstance(m, UserImpulse)]
        return [m for m in found if any(holds_words(m.content, w) for w in wanted)][:limit]


def cypher_operations(run: QueryRunner) -> GraphOperations:
    """Every operation group on one query runner."""
    return GraphOperations(
        traces=CypherTraceReads(run),
        recall=CypherRecallReads(run),
        reflection=CypherReflectionOperations(run),
        insights=CypherInsightViews(run),
        knowledge=CypherKnowledgeWrites(run),
        exchange=CypherExchangeOperations(run),
        admin=CypherAdminOperations(run),
        facts=CypherFactReads(run),
    )
