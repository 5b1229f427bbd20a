"""Typed edges: structural links of the cognitive trace and typed concept relations.

Edge types come from the closed :class:`EdgeType` enum only (never from user text).
Concept relations carry ``confidence``, ``source``, the owning ``user_id`` and a validity
interval ``valid_from``/``valid_until`` so superseded knowledge stays in history.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thea.errors import UnknownLabelError
from thea.models.nodes import now_ms


class EdgeType(StrEnum):
    # structural: the trace of a cycle and the life of insights
    IS_TASK_FOR = "IS_TASK_FOR"
    IS_RESULT_OF = "IS_RESULT_OF"
    IS_RESPONSE_TO = "IS_RESPONSE_TO"
    HAS_PLAN = "HAS_PLAN"
    RECALLED = "RECALLED"
    CONTAINS_CONCEPT = "CONTAINS_CONCEPT"
    INSIGHT_FROM_CONCEPT = "INSIGHT_FROM_CONCEPT"
    DERIVED_FROM = "DERIVED_FROM"
    SUMMARIZES = "SUMMARIZES"
    MERGED_FROM = "MERGED_FROM"
    SUPERSEDES = "SUPERSEDES"
    ARCHIVES = "ARCHIVES"
    ALIAS_OF = "ALIAS_OF"
    # a pasted document: impulse -> document, chunk -> document
    HAS_DOCUMENT = "HAS_DOCUMENT"
    CHUNK_OF = "CHUNK_OF"
    # typed concept relations (Concept -> Concept)
    CAUSES = "CAUSES"
    SOLVES = "SOLVES"
    PREVENTS = "PREVENTS"
    IS_A = "IS_A"
    PART_OF = "PART_OF"
    HAS_PROPERTY = "HAS_PROPERTY"
    RELATED_TO = "RELATED_TO"
    USED_WITH = "USED_WITH"
    PREFERRED_OVER = "PREFERRED_OVER"
    CONTRADICTS = "CONTRADICTS"
    PRECEDES = "PRECEDES"
    REQUIRES = "REQUIRES"

    @classmethod
    def parse(cls, value: str) -> EdgeType:
        try:
            return cls(value.upper() if isinstance(value, str) else value)
        except ValueError:
            raise UnknownLabelError(f"unknown edge type {value!r}") from None

    @property
    def is_concept_relation(self) -> bool:
        return self in CONCEPT_RELATIONS


CONCEPT_RELATIONS: frozenset[EdgeType] = frozenset(
    {
        EdgeType.CAUSES,
        EdgeType.SOLVES,
        EdgeType.PREVENTS,
        EdgeType.IS_A,
        EdgeType.PART_OF,
        EdgeType.HAS_PROPERTY,
        EdgeType.RELATED_TO,
        EdgeType.USED_WITH,
        EdgeType.PREFERRED_OVER,
        EdgeType.CONTRADICTS,
        EdgeType.PRECEDES,
        EdgeType.REQUIRES,
    }
)


class Edge(BaseModel):
    """A directed, typed edge between two nodes identified by id."""

    model_config = ConfigDict(extra="forbid")

    src: str = Field(min_length=1)
    dst: str = Field(min_length=1)
    type: EdgeType
    created_at: int = Field(default_factory=now_ms)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    source: str | None = None
    valid_from: int | None = None
    valid_until: int | None = None
    weight: float | None = None
    #: owner of a concept relation (both its concepts belong to this user)
    user_id: str | None = None

    @field_validator("type", mode="before")
    @classmethod
    def _check_type(cls, value: Any) -> EdgeType:
        return EdgeType.parse(value) if isinstance(value, str) else value

    def to_props(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"src", "dst", "type"}, exclude_none=True)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.src, self.type.value, self.dst)


def relation(
    src: str,
    rel: EdgeType | str,
    dst: str,
    *,
    confidence: float = 0.5,
    source: str | None = None,
    valid_from: int | None = None,
    user_id: str | None = None,
) -> Edge:
    """A typed concept relation with provenance, owned by the user whose concepts it links."""
    edge_type = EdgeType.parse(rel) if isinstance(rel, str) else rel
    if not edge_type.is_concept_relation:
        raise UnknownLabelError(f"{edge_type} is not a concept relation")
    return Edge(
        src=src,
        dst=dst,
        type=edge_type,
        confidence=confidence,
        source=source,
        valid_from=valid_from if valid_from is not None else now_ms(),
        user_id=user_id,
    )
