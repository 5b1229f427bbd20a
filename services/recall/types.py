"""Inputs and outputs of the recall cascade."""

from __future__ import annotations

from pydantic import BaseModel, Field

from services.common.time_window import TimeWindow
from thea.tuning import ALL_STAGES, Stage

__all__ = ["ALL_STAGES", "RecallHit", "RecallQuery", "RecallResult", "Stage", "TimeWindow"]


class RecallQuery(BaseModel):
    texts: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    user_id: str | None = None
    time_from: int | None = None
    time_to: int | None = None
    #: (subject, relation, object); None = wildcard. E.g. (None, "CAUSES", "outage").
    triple_pattern: tuple[str | None, str | None, str | None] | None = None
    limit: int = 8
    #: Node ids never to return (e.g. the impulse being answered right now).
    exclude_ids: list[str] = Field(default_factory=list)
    #: also earlier facts of record that newer ones replaced ("where did I live before?")
    history: bool = False
    #: also the conversation itself: the user's questions and thea's answers ("what did I ask
    #: you about Lisbon?"); otherwise only evidence of what the user told is recalled
    conversation: bool = False

    @property
    def window(self) -> TimeWindow:
        """The time the query asks about (``time_from``, ``time_to``)."""
        return TimeWindow(self.time_from, self.time_to)


class RecallHit(BaseModel):
    id: str
    type: str
    text: str
    score: float
    #: Which stages found it (provenance shown in traces).
    stages: list[str] = Field(default_factory=list)
    #: each stage's own score before fusion (similarity, BM25, concept weight, activation)
    stage_scores: dict[str, float] = Field(default_factory=dict)
    created_at: int = 0
    #: When it happened: an imported turn's date, else when it was recorded.
    event_time: int = 0
    strength: float = 1.0
    confidence: float | None = None
    #: the document a chunk (or a paste's impulse) belongs to
    document_id: str | None = None
    #: the message it was learnt from (an insight's impulse, a fact's message)
    source_id: str | None = None


class RecallResult(BaseModel):
    hits: list[RecallHit] = Field(default_factory=list)
    #: Candidates per stage before fusion (for traces and ablations).
    stage_counts: dict[str, int] = Field(default_factory=dict)
    elapsed_ms: float = 0.0
    #: Stages skipped because their backend was unavailable (the others still ran).
    failed_stages: list[str] = Field(default_factory=list)
