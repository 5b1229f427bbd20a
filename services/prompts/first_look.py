"""First look: the instinct's reaction and the search plan from one structured call."""

from __future__ import annotations

from pydantic import BaseModel, Field

from services.prompts import BaseMessage, HumanMessage, PromptId, PromptSpec, SystemMessage
from services.prompts.planner import PlanOutput, TimeWindow
from services.prompts.quoting import user_turn

PROMPT = PromptSpec(PromptId.FIRST_LOOK, "1")

#: the reaction is one short sentence (the schema bounds it for constrained decoding)
REACTION_CHARS = 160


class FirstLookOutput(BaseModel):
    """The instinct's reaction first (so it is decoded first), then the planner's fields."""

    # maxLength reaches the constrained decoder; a longer reaction from another model is clipped
    reaction: str = Field(
        default="", description="one short sentence", json_schema_extra={"maxLength": REACTION_CHARS}
    )
    queries: list[str] = Field(default_factory=list, max_length=4, description="short search queries")
    concepts: list[str] = Field(default_factory=list, max_length=6, description="key entities or topics")
    time_window: TimeWindow = "none"
    triple_subject: str | None = None
    triple_relation: str | None = Field(default=None, description="e.g. CAUSES, SOLVES, IS_A, PART_OF")
    triple_object: str | None = None

    def plan(self) -> PlanOutput:
        return PlanOutput.model_validate(self.model_dump(exclude={"reaction"}))


SYSTEM = (
    "You are thea's instinct and search planner. Read the user's message and return JSON with: "
    "reaction (one short sentence: what the message is about and how it feels, without answering it), "
    "queries (1-3 short search phrases), concepts (key entities/topics, 1-5 words each), "
    "time_window (none, today, yesterday, last_week, last_month, last_year), and optionally a triple "
    "pattern triple_subject / triple_relation / triple_object where unknown parts are null. Return only JSON."
)


def build(text: str) -> list[BaseMessage]:
    return [SystemMessage(content=SYSTEM), HumanMessage(content=user_turn(text))]
