"""What each step of the cycle reports: one typed model per :class:`~thea.models.Step`.

A step returns its output as one of these; the orchestrator stores it on the step's Report as
JSON (``wire()``: only the fields the step set, so the stored and served format is the one the
trace, the API and the web page read). Readers parse a Report's output back with ``of()``, which
reads what it can of a report an older version stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class StepOutputModel(BaseModel):
    """A step's output: typed fields, stored as the fields the step set."""

    model_config = ConfigDict(extra="ignore")

    #: the node the step wrote (its trace shows it under the step; recall writes none)
    node_id: str = ""

    def wire(self) -> dict[str, Any]:
        """The Report's ``output``: the fields the step set, as plain JSON values."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def of(cls, output: Mapping[str, Any] | None) -> Self:
        """A Report's output read back; a field an older or damaged report holds in another
        shape is left at its default (the rest is still read)."""
        data = dict(output or {})
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            bad = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
            return cls.model_validate({k: v for k, v in data.items() if k not in bad})


class InstinctOutput(StepOutputModel):
    reaction: str = ""


class MessagePart(BaseModel):
    text: str = ""
    act: str = ""


class RecordedFact(BaseModel):
    """A fact of record the message told (the plan step records them first)."""

    id: str = ""
    subject: str = ""
    attribute: str = ""
    value: str = ""
    text: str = ""
    current: bool = True


class SupersededFact(BaseModel):
    """A fact of record the message replaced."""

    id: str = ""
    text: str = ""
    by: str = ""
    reason: str = ""


class PlanOutput(StepOutputModel):
    queries: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    time_from: int | None = None
    time_to: int | None = None
    triple_pattern: list[str | None] | None = None
    #: where the plan came from: rules, model, instinct call
    source: str | None = None
    #: the message's kind (MessageKind) and its parts
    act: str | None = None
    parts: list[MessagePart] = Field(default_factory=list)
    facts_recorded: list[RecordedFact] = Field(default_factory=list)
    superseded: list[SupersededFact] = Field(default_factory=list)
    insights_superseded: list[str] = Field(default_factory=list)


class RecalledHit(BaseModel):
    id: str = ""
    type: str = ""
    score: float = 0.0
    stages: list[str] = Field(default_factory=list)
    stage_scores: dict[str, float] = Field(default_factory=dict)
    text: str = ""


class RecallOutput(StepOutputModel):
    hits: list[RecalledHit] = Field(default_factory=list)
    stage_counts: dict[str, int] = Field(default_factory=dict)
    elapsed_ms: float = 0.0
    failed_stages: list[str] = Field(default_factory=list)
    #: why recall did not search (a pasted document)
    skipped: str | None = None


class PromptMessage(BaseModel):
    role: str = ""
    content: str = ""


class PromptRecord(BaseModel):
    """The prompt as the model got it: its id, version and (stored, not always served) messages."""

    id: str = ""
    version: str = ""
    messages: list[PromptMessage] = Field(default_factory=list)


class SaidFact(BaseModel):
    """A fact of record an older synthesis report kept with its text (now: its id alone)."""

    id: str = ""
    text: str = ""


class SynthesisOutput(StepOutputModel):
    answer: str = ""
    #: the recalled memories the prompt held, and the facts of record it held or said back
    references: list[str] = Field(default_factory=list)
    facts: list[str | SaidFact] = Field(default_factory=list)
    prompt: PromptRecord | None = None
    #: the note when the answer was cut short
    cut: str | None = None
    #: how the answer was made when no model wrote it (None: the model)
    mode: str | None = None
    #: why each fact said back answers
    facts_why: dict[str, str] = Field(default_factory=dict)

    @property
    def fact_ids(self) -> list[str]:
        return [f if isinstance(f, str) else f.id for f in self.facts if f]


class ReadClaim(BaseModel):
    """A claim the model read from a statement, as the claims job reports it."""

    id: str = ""
    text: str = ""
    quote: str = ""
    kind: str = ""
    #: why it was not stored ("" when it was): the message does not say it, or says it again
    dropped: str = ""


class ClaimsJobOutput(StepOutputModel):
    """What reading one statement into claims did (the claims job's Report)."""

    claims: list[ReadClaim] = Field(default_factory=list)
    superseded: list[SupersededFact] = Field(default_factory=list)
    insights_superseded: list[str] = Field(default_factory=list)
    #: pairs of claims the model was asked to compare
    judged: int = 0


StepOutput: TypeAlias = InstinctOutput | PlanOutput | RecallOutput | SynthesisOutput
