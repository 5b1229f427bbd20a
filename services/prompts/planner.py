"""Planner: turn the impulse into a search plan (queries, concepts, time window, triple)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.prompts import BaseMessage, HumanMessage, PromptId, PromptSpec, SystemMessage
from services.prompts.quoting import user_turn

PROMPT = PromptSpec(PromptId.PLANNER, "1")

TimeWindow = Literal["none", "today", "yesterday", "last_week", "last_month", "last_year"]


class PlanOutput(BaseModel):
    """What the model must return (JSON)."""

    queries: list[str] = Field(default_factory=list, max_length=4, description="short search queries")
    concepts: list[str] = Field(default_factory=list, max_length=6, description="key entities or topics")
    time_window: TimeWindow = "none"
    triple_subject: str | None = None
    triple_relation: str | None = Field(default=None, description="e.g. CAUSES, SOLVES, IS_A, PART_OF")
    triple_object: str | None = None


SYSTEM = (
    "You plan memory searches for an assistant. Read the user's message and return JSON with: "
    "queries (1-3 short search phrases), concepts (key entities/topics, 1-5 words each), "
    "time_window (none, today, yesterday, last_week, last_month, last_year), and optionally a triple "
    "pattern triple_subject / triple_relation / triple_object where unknown parts are null "
    '(e.g. "what causes outages?" -> relation CAUSES, object outages). Return only JSON.'
)


def build(text: str) -> list[BaseMessage]:
    return [SystemMessage(content=SYSTEM), HumanMessage(content=user_turn(text))]
