"""The golden dataset's line format (docs/export.md): one completed cognitive cycle per line.

Part of the API contract: ``GET /api/v1/export`` streams these lines, ``thea export --schema``
prints the JSON Schema of one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"


class ExportedPlan(BaseModel):
    """The search plan the planner made (empty lists when it planned nothing)."""

    model_config = ConfigDict(extra="forbid")

    queries: list[str] = Field(default_factory=list, description="text queries for keyword/vector recall")
    concepts: list[str] = Field(default_factory=list, description="concept names to look up")
    time_from: int | None = Field(None, description="start of a time window, epoch ms")
    time_to: int | None = Field(None, description="end of a time window, epoch ms")
    triple_pattern: list[str | None] | None = Field(
        None, description="[subject, relation, object]; null parts are wildcards"
    )


class ExportedMemory(BaseModel):
    """One recalled memory as synthesis saw it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="id of the recalled node")
    type: str = Field(description="its node type, e.g. UserImpulse, KnowledgeCrystal, Fact")
    text: str = Field(description="its content")


class ExportRecord(BaseModel):
    """One completed cognitive cycle."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = Field(SCHEMA_VERSION, description="format version of this line")
    impulse_id: str = Field(description="id of the user's message; the cycle's correlation id")
    user_id: str | None
    session_id: str | None
    created_at: int = Field(description="epoch milliseconds")
    impulse: str = Field(description="the user's message")
    instinct: str | None = Field(description="the instinct step's quick take; null when it failed")
    plan: ExportedPlan | None = Field(description="the search plan; null when planning failed")
    recalled: list[ExportedMemory] = Field(description="memories given to synthesis, most relevant first")
    final_response: str = Field(description="the answer the user got")
    response_id: str = Field(description="id of the FinalResponse node")
    feedback: int = Field(description="+1 per !good, -1 per !bad")
    failed_steps: list[str] = Field(
        default_factory=list, description="steps that ended in a FAILURE report, e.g. instinct"
    )


def export_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of one exported line, as in docs/export.schema.json."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **ExportRecord.model_json_schema()}
