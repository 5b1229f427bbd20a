"""The Task -> Report contract shared by every cognitive service.

The orchestrator creates a :class:`~thea.models.Task` node for each step, calls the
service's :meth:`CognitiveService.handle`, and turns the returned
:class:`StepOutcome` (or the exception / timeout) into a :class:`~thea.models.Report`.
Services never write the Task or Report themselves.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

from services.common.llm_calls import TokenSink
from services.common.tokens import clip_for_prompt
from services.common.understanding import Understanding
from services.prompts.planner import PlanOutput
from services.recall.types import RecallResult
from thea.models import Document, Edge, Fact, LLMUsage, Node, SearchPlan, Step, UserImpulse
from thea.models.step_outputs import StepOutput


@dataclass
class CycleState:
    """What the steps of one cycle know so far (filled in step by step)."""

    impulse: UserImpulse
    correlation_id: str
    user_id: str
    session_id: str
    #: Recent conversation as (role, text) pairs, oldest first.
    history: list[tuple[str, str]] = field(default_factory=list)
    #: the user's earlier messages in this conversation, oldest first (those answered by a
    #: template too, which ``history`` leaves out)
    said_before: list[str] = field(default_factory=list)
    #: texts the user pasted earlier in this conversation, (message id, text), oldest first: a
    #: question about one is read against it when recall finds no text (seen live: "when do i have
    #: to pay?" after a pasted price list that says "Fees are due by 31 January" recalled nothing)
    pasted_before: list[tuple[str, str]] = field(default_factory=list)
    #: where the answer streams to, token by token (travels with the cycle: concurrent
    #: cycles never share it)
    on_token: TokenSink | None = None
    instinct: str | None = None
    plan: SearchPlan | None = None
    #: the planner's fields when the instinct's call produced them too (first_look="combined")
    first_look: PlanOutput | None = None
    recall: RecallResult | None = None
    answer: str | None = None
    #: how many tokens of the user's message a prompt may carry (None: all of it)
    prompt_tokens: int | None = None
    #: the document a paste was stored as (services/knowledge/documents.py); the impulse holds its summary
    document: Document | None = None
    #: what the message is, sentence by sentence (services/common/understanding.py)
    understanding: Understanding | None = None
    #: the answer is never shown to the model as conversation history (set by synthesis): a
    #: template, or what thea said of the user's own life (a wrong answer would come back as
    #: if it were evidence; the facts come from the claims and the user's words each time)
    templated: bool = False
    #: the user's changes told ahead that have not taken effect when the message was said (set by
    #: synthesis: "we're moving to York in March" asked about in December)
    planned: list[Fact] = field(default_factory=list)

    @cached_property
    def prompt_text(self) -> str:
        """The message as prompts carry it: whole, or head and tail of a very long one."""
        return clip_for_prompt(self.impulse.content, self.prompt_tokens)


@dataclass
class StepOutcome:
    """What a service returns: a summary for the Report plus nodes/edges to record."""

    #: the step's typed output (its Report stores ``output.wire()``)
    output: StepOutput | None = None
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    usage: LLMUsage = field(default_factory=LLMUsage)
    #: Set when the step worked but had to fall back (e.g. malformed LLM output).
    degraded: str | None = None


class CognitiveService(abc.ABC):
    """One step of the cycle."""

    #: the step as it appears in traces: instinct, plan, recall, synthesis
    step: ClassVar[Step]
    #: Service name recorded on the Task node.
    name: str = ""

    @abc.abstractmethod
    async def handle(self, state: CycleState) -> StepOutcome:
        """Do the step; raise on failure (the orchestrator records a FAILURE report)."""
