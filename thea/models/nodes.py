"""Graph node models.

Every node carries ``id``, ``type``, ``content``, ``created_at`` (epoch ms) and the
scoping ids ``user_id``, ``session_id``, ``correlation_id``. A node's graph label is
its :class:`NodeType` value, taken from this closed enum only: labels are never
built from user text, so a hostile string can never become Cypher.
"""

from __future__ import annotations

import json
import time
import unicodedata
import uuid
from enum import StrEnum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thea.errors import UnknownLabelError

#: Namespace for deterministic ids (concepts, idempotent job outputs).
THEA_NAMESPACE = uuid.UUID("6b1f7c1e-5a0e-4d2b-9a53-7e1d0c2f9b11")


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id() -> str:
    return str(uuid.uuid4())


def stable_id(*parts: str) -> str:
    """A deterministic id: the same parts always give the same id (idempotent writes)."""
    return str(uuid.uuid5(THEA_NAMESPACE, "\x1f".join(parts)))


def cycle_node_id(correlation_id: str | None, role: str) -> str:
    """The id of the node a cognitive cycle writes in ``role`` (a step's task or report, the
    instinct, the plan, the answer): derived from the cycle (its impulse's id), so a request run
    again after it was cut off (the same idempotency key, so the same impulse) writes the same
    nodes instead of a second task, report and answer. A fresh id outside a cycle."""
    return stable_id("cycle", correlation_id, role) if correlation_id else new_id()


def normalize_name(name: str) -> str:
    """Normalise a concept name: NFKC, case-folded, inner whitespace collapsed."""
    text = unicodedata.normalize("NFKC", name)
    return " ".join(text.casefold().split())


class NodeType(StrEnum):
    USER_IMPULSE = "UserImpulse"
    TASK = "Task"
    REPORT = "Report"
    INSTINCTIVE_RESPONSE = "InstinctiveResponse"
    SEARCH_PLAN = "SearchPlan"
    FINAL_RESPONSE = "FinalResponse"
    FACT = "Fact"
    DIALOGUE_TURN = "DialogueTurn"
    KNOWLEDGE_CRYSTAL = "KnowledgeCrystal"
    CONCEPT = "Concept"
    DOCUMENT = "Document"
    DOCUMENT_CHUNK = "DocumentChunk"

    @classmethod
    def parse(cls, value: str) -> NodeType:
        try:
            return cls(value)
        except ValueError:
            raise UnknownLabelError(f"unknown node label {value!r}") from None


class TaskStatus(StrEnum):
    PENDING = "PENDING"
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    #: the user cancelled the cycle (Ctrl-C, closed page) while this step ran
    CANCELLED = "CANCELLED"


class Step(StrEnum):
    """A step a Task and its Report record: the cycle's four, then the slow loop's jobs."""

    INSTINCT = "instinct"
    PLAN = "plan"
    RECALL = "recall"
    SYNTHESIS = "synthesis"
    CRYSTALLIZE = "crystallize"
    CRYSTALLIZE_SESSION = "crystallize_session"
    REFLECT = "reflect"
    #: the claims a statement told, read by the model (services/knowledge/claims)
    CLAIMS = "claims"


#: the cycle's steps, in order
CYCLE_STEPS: tuple[Step, ...] = (Step.INSTINCT, Step.PLAN, Step.RECALL, Step.SYNTHESIS)
#: the steps before the answer: a timeout there costs the step, not the answer
FIRST_LOOK: frozenset[Step] = frozenset({Step.INSTINCT, Step.PLAN})


class CycleStatus(StrEnum):
    """Set on an impulse whose cycle did not end with an answer (``None`` while running or done)."""

    #: the process died or the answer failed; set by ``thea memory repair``
    INCOMPLETE = "incomplete"
    #: the user cancelled it; recorded by the orchestrator
    CANCELLED = "cancelled"


class MessageKind(StrEnum):
    """What a user's message does (services/common/understanding.py): only statements (and the
    statement parts of a mix) tell thea anything; questions, requests and small talk are
    recorded but never evidence."""

    STATEMENT = "statement"
    QUESTION = "question"
    REQUEST = "request"
    SMALL_TALK = "small_talk"
    MIX = "mix"

    @property
    def tells(self) -> bool:
        return self in (MessageKind.STATEMENT, MessageKind.MIX)


class FactOrigin(StrEnum):
    """How a fact of record came to be."""

    #: a statement in a conversation
    SAID = "said"
    #: ``!fact``, ``POST /facts``, ``remember(kind="fact")``
    TOLD = "told"


def is_evidence(props: dict[str, Any]) -> bool:
    """Whether a stored memory (its graph properties) can be evidence of what the user told:
    never thea's own answers, never a question, request or small talk. A statement stays
    evidence after the model read its claims: the user's own dated words hold what a reading
    missed, and answers are composed from both."""
    kind = props.get("type")
    if kind == NodeType.FINAL_RESPONSE.value:
        return False
    if kind == NodeType.USER_IMPULSE.value:
        told = props.get("kind")
        return (told is None or MessageKind(told).tells) and not props.get("withdrawn")
    return True


class Node(BaseModel):
    """Base of all graph nodes."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    #: Fields stored as JSON strings in the graph (graphs hold only flat values).
    json_fields: ClassVar[frozenset[str]] = frozenset()
    node_type: ClassVar[NodeType]

    id: str = Field(default_factory=new_id, min_length=1, max_length=128)
    type: NodeType
    content: str = ""
    created_at: int = Field(default_factory=now_ms)
    user_id: str | None = None
    session_id: str | None = None
    correlation_id: str | None = None

    @field_validator("type", mode="before")
    @classmethod
    def _check_type(cls, value: Any) -> NodeType:
        return NodeType.parse(value) if isinstance(value, str) else value

    @field_validator("content")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        # NUL cannot be stored by every backend; keep text otherwise verbatim.
        return value.replace("\x00", "\ufffd")

    @property
    def label(self) -> str:
        return self.type.value

    def happened_at(self) -> int:
        """When the memory happened (epoch ms): when it was written, unless it says otherwise."""
        return self.created_at

    def holds(self, now: int) -> bool:
        """Whether the memory still holds at ``now``: not archived, not expired."""
        return True

    def to_props(self) -> dict[str, Any]:
        """Flat property map for the graph (JSON-encode nested values)."""
        data = self.model_dump(mode="json", exclude_none=True)
        for name in self.json_fields:
            if name in data:
                data[name] = json.dumps(data[name], ensure_ascii=False)
        return data

    @classmethod
    def from_props(cls, props: dict[str, Any]) -> Node:
        """Rebuild the right subclass from stored graph properties."""
        node_type = NodeType.parse(str(props.get("type")))
        model = NODE_CLASSES[node_type]
        data = {k: v for k, v in props.items() if k in model.model_fields}
        for name in model.json_fields:
            if isinstance(data.get(name), str):
                data[name] = json.loads(data[name])
        return model.model_validate(data)

    def embedding_text(self) -> str | None:
        """Text worth embedding for recall, or None if this node is not recall-worthy."""
        return None

    def vector_active(self) -> bool:
        """The ``active`` flag of its vectors: searches for evidence skip inactive ones."""
        return bool(getattr(self, "active", True))


#: Bounds of a memory's ``rating`` (the ``!good`` / ``!bad`` said on answers that recalled it).
MAX_RATING = 3.0


class UserImpulse(Node):
    node_type: ClassVar[NodeType] = NodeType.USER_IMPULSE
    type: Literal[NodeType.USER_IMPULSE] = NodeType.USER_IMPULSE
    status: CycleStatus | None = None
    #: a long message (a paste) is stored as this document; the impulse keeps its summary
    document_id: str | None = None
    #: +1 per ``!good``, -1 per ``!bad`` on answers that recalled it (recall weighs it)
    rating: float = Field(default=0.0, ge=-MAX_RATING, le=MAX_RATING)
    #: what the message does; None for messages recorded before messages were read so
    kind: MessageKind | None = None
    #: the facts of record it told (their facts stand for it in recall)
    fact_ids: list[str] = Field(default_factory=list)
    #: the model has read its claims (services/knowledge/claims/statements.py)
    claims_read: bool = False
    #: a claim read from it was forgotten: the message is no evidence any more
    withdrawn: bool = False

    def embedding_text(self) -> str | None:
        return self.content or None

    def vector_active(self) -> bool:
        return is_evidence(self.to_props())


class Task(Node):
    node_type: ClassVar[NodeType] = NodeType.TASK
    json_fields: ClassVar[frozenset[str]] = frozenset({"input"})
    type: Literal[NodeType.TASK] = NodeType.TASK
    #: a :class:`Step`'s value (a string: graphs written by other versions may name others)
    step: str
    service: str
    input: dict[str, Any] = Field(default_factory=dict)
    status: TaskStatus = TaskStatus.PENDING


class Report(Node):
    node_type: ClassVar[NodeType] = NodeType.REPORT
    json_fields: ClassVar[frozenset[str]] = frozenset({"output"})
    type: Literal[NodeType.REPORT] = NodeType.REPORT
    #: a :class:`Step`'s value (as the Task's)
    step: str
    task_id: str
    status: TaskStatus
    output: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    duration_ms: float = 0.0
    model: str | None = None
    prompt_name: str | None = None
    prompt_version: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    llm_calls: int = 0


class InstinctiveResponse(Node):
    node_type: ClassVar[NodeType] = NodeType.INSTINCTIVE_RESPONSE
    type: Literal[NodeType.INSTINCTIVE_RESPONSE] = NodeType.INSTINCTIVE_RESPONSE


class SearchPlan(Node):
    node_type: ClassVar[NodeType] = NodeType.SEARCH_PLAN
    json_fields: ClassVar[frozenset[str]] = frozenset({"triple_pattern"})
    type: Literal[NodeType.SEARCH_PLAN] = NodeType.SEARCH_PLAN
    queries: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    time_from: int | None = None
    time_to: int | None = None
    triple_pattern: list[str | None] | None = None


class FinalResponse(Node):
    node_type: ClassVar[NodeType] = NodeType.FINAL_RESPONSE
    type: Literal[NodeType.FINAL_RESPONSE] = NodeType.FINAL_RESPONSE
    recalled_ids: list[str] = Field(default_factory=list)
    #: the user's ``!good`` (+1) / ``!bad`` (-1) on this answer
    feedback: int = 0
    #: as for impulses: feedback on later answers that recalled this one
    rating: float = Field(default=0.0, ge=-MAX_RATING, le=MAX_RATING)

    def embedding_text(self) -> str | None:
        return self.content or None

    def vector_active(self) -> bool:
        return False  # thea's own words are never evidence (found only when asked for)


#: the subject key of facts about the user themselves (``Fact.subject_key``)
USER_SUBJECT = "user"


class Fact(Node):
    node_type: ClassVar[NodeType] = NodeType.FACT
    type: Literal[NodeType.FACT] = NodeType.FACT
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    source: str | None = None
    source_message_id: str | None = None
    active: bool = True
    valid_from: int | None = None
    valid_until: int | None = None
    # facts of record (services/knowledge/record): set when the fact was read from a statement
    #: ``USER_SUBJECT`` ("user") or another subject's normalised name
    subject_key: str | None = None
    #: the subject as shown ("you", "Tomás")
    subject: str | None = None
    #: the attribute key different wordings share ("liv", "appointment", "be-a")
    attribute: str | None = None
    value: str | None = None
    #: what the statement said about earlier facts: none, change, end, move
    change: str | None = None
    #: general, or constraint (health and diet: always given to requests for help)
    category: str | None = None
    #: the newer fact that replaced this one
    superseded_by: str | None = None
    origin: FactOrigin | None = None
    #: the parts of a life it speaks of (services/knowledge/record/slots.py), its own and those of
    #: the fact it replaced ("I bought a Canyon Grail" after selling the bike is the bike)
    slots: list[str] = Field(default_factory=list)
    #: what the fact it replaced was about, without its value ("kitchen renovation start" for
    #: "The renovation got pushed to October 18"): a question in the old words still finds it
    keywords: list[str] = Field(default_factory=list)
    # claims (services/knowledge/claims): set when the model read the fact from a message
    #: the exact words of the user's message that carry it
    quote: str | None = None
    #: the subject's relation to the user ("self", "wife", "dog")
    relation: str | None = None
    #: the time as told ("last weekend"), with the date it means when one could be worked out
    when: str | None = None
    #: which model and prompt version read it ("qwen2.5-coder-1.5b extract_claims/1")
    read_by: str | None = None

    def embedding_text(self) -> str | None:
        if self.quote and self.content:
            return f"{self.content} ({self.quote})"
        return self.content or None

    def holds(self, now: int) -> bool:
        return self.active and (self.valid_until is None or self.valid_until > now)


class DialogueTurn(Node):
    node_type: ClassVar[NodeType] = NodeType.DIALOGUE_TURN
    type: Literal[NodeType.DIALOGUE_TURN] = NodeType.DIALOGUE_TURN
    speaker: str | None = None
    #: When the turn happened (may differ from created_at for imported history).
    event_time: int | None = None
    source_ids: list[str] = Field(default_factory=list)
    #: What the turn replies to (the words of the turn before it in its session): a reply such
    #: as "Yes, last Friday!" is found by what it answers. Searched with the turn, never shown
    #: as its content.
    context: str | None = None
    #: as for impulses: feedback on answers that recalled this turn
    rating: float = Field(default=0.0, ge=-MAX_RATING, le=MAX_RATING)
    #: a long remembered message is stored as this document; the turn keeps its summary
    document_id: str | None = None

    def happened_at(self) -> int:
        """The turn's ``event_time`` (imported history), else when it was written."""
        return self.event_time if self.event_time is not None else self.created_at

    def embedding_text(self) -> str | None:
        if not self.content:
            return None
        return f"{self.context}\n{self.content}" if self.context else self.content


class Document(Node):
    """A long message (a paste) stored whole as numbered chunks; ``content`` is its bounded
    summary (its first sentences). Not recalled itself: its chunks are."""

    node_type: ClassVar[NodeType] = NodeType.DOCUMENT
    type: Literal[NodeType.DOCUMENT] = NodeType.DOCUMENT
    chars: int = 0
    lines: int = 0
    chunks: int = 0
    #: the message it was pasted as: a chat impulse, or a turn stored by ``remember``
    source_id: str | None = None


class DocumentChunk(Node):
    """One piece of a document, with its provenance: the document, its place, its characters."""

    node_type: ClassVar[NodeType] = NodeType.DOCUMENT_CHUNK
    type: Literal[NodeType.DOCUMENT_CHUNK] = NodeType.DOCUMENT_CHUNK
    document_id: str
    chunk_index: int = Field(ge=0)
    #: [char_start, char_end) of the chunk in the document's text
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    #: stemmed words that tell this chunk apart within its document (in few of its chunks):
    #: recall admits the chunk only for a question using one of them
    terms: list[str] = Field(default_factory=list)
    #: whether it has an embedding (a long document embeds some of its chunks, evenly spread;
    #: the others are found by their words)
    embedded: bool = True
    #: as for impulses: feedback on answers that recalled this chunk
    rating: float = Field(default=0.0, ge=-MAX_RATING, le=MAX_RATING)

    def embedding_text(self) -> str | None:
        return (self.content or None) if self.embedded else None


class Evidence(BaseModel):
    """What an insight rests on: one source memory and the span of it that supports the claim."""

    model_config = ConfigDict(extra="ignore")

    source_id: str
    #: the source's node type (UserImpulse, DialogueTurn, Fact, ...)
    kind: str = ""
    #: the supporting span, quoted from the source (at most a few hundred characters)
    quote: str = ""


class Claim(BaseModel):
    """One claim (sentence) of an insight with its own groundedness and evidence."""

    model_config = ConfigDict(extra="ignore")

    text: str
    #: ``supported`` by its evidence or ``unsupported`` (the insight is then unverified)
    status: Literal["supported", "unsupported"] = "supported"
    #: share of the claim's content words found in the evidence (0..1)
    support: float = Field(default=0.0, ge=0.0, le=1.0)
    #: why it is unsupported ("not in its evidence: actress, renowned")
    reason: str = ""
    evidence: list[Evidence] = Field(default_factory=list)


class Revision(BaseModel):
    """One change of an insight's standing by later evidence (truth maintenance)."""

    model_config = ConfigDict(extra="ignore")

    #: ``promoted`` (later evidence supports it), ``weakened`` (contradicted: confidence lowered),
    #: ``superseded`` (contradicted below the threshold: valid_until set, no longer recalled)
    kind: Literal["promoted", "weakened", "superseded"]
    at: int
    reason: str = ""
    #: ids of the memories (impulses, facts) that brought the evidence
    evidence: list[str] = Field(default_factory=list)


#: An insight's groundedness: ``supported`` by its evidence, ``unverified`` (stored, not recalled,
#: shown with its reason), ``promoted`` (confirmed by the user's ``!good`` or later evidence),
#: ``unchecked`` (written before insights carried evidence).
Verification = Literal["supported", "unverified", "promoted", "unchecked"]


class KnowledgeCrystal(Node):
    json_fields: ClassVar[frozenset[str]] = frozenset({"evidence", "claims", "revisions"})
    node_type: ClassVar[NodeType] = NodeType.KNOWLEDGE_CRYSTAL
    type: Literal[NodeType.KNOWLEDGE_CRYSTAL] = NodeType.KNOWLEDGE_CRYSTAL
    seed: str = ""
    tags: list[str] = Field(default_factory=list)
    strength: float = Field(default=1.0, ge=0.0)
    active: bool = True
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    source_impulse_id: str | None = None
    #: id of the stronger insight this one was merged into (set when archived by a merge)
    merged_into: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    #: how many distinct sources support it (a merge adds its sources' evidence up)
    proofs: int = Field(default=0, ge=0)
    verification: Verification = "unchecked"
    #: share of the claim's words found in its evidence (0..1; the weakest claim counts)
    support: float = Field(default=0.0, ge=0.0, le=1.0)
    #: why it is unverified ("not in its evidence: renowned, actress")
    verification_reason: str = ""
    #: each claim (sentence) with its own status, evidence and reason (unverified if any fails)
    claims: list[Claim] = Field(default_factory=list)
    #: promotions and contradictions by later evidence, oldest first
    revisions: list[Revision] = Field(default_factory=list)
    #: set when contradicting evidence superseded it (history is kept; recall skips it)
    valid_until: int | None = None

    def holds(self, now: int) -> bool:
        return self.active

    def embedding_text(self) -> str | None:
        return self.content or self.seed or None


class Concept(Node):
    node_type: ClassVar[NodeType] = NodeType.CONCEPT
    type: Literal[NodeType.CONCEPT] = NodeType.CONCEPT
    name: str
    norm: str = ""
    aliases: list[str] = Field(default_factory=list)

    def model_post_init(self, __context: Any) -> None:
        if not self.norm:
            object.__setattr__(self, "norm", normalize_name(self.name))
        if not self.content:
            object.__setattr__(self, "content", self.name)

    @classmethod
    def named(cls, name: str, user_id: str, **extra: Any) -> Concept:
        """One user's concept with its deterministic id: the same user and name always map to
        one node, and two users never share one (concepts are per user)."""
        norm = normalize_name(name)
        if not norm:
            raise ValueError("a concept name cannot be empty")
        if not user_id:
            raise ValueError("a concept belongs to a user: user_id cannot be empty")
        return cls(id=concept_id(user_id, norm), name=name.strip(), norm=norm, user_id=user_id, **extra)

    def embedding_text(self) -> str | None:
        return self.name


def concept_id(user_id: str, norm: str) -> str:
    """The id of one user's concept of this normalised name (see :func:`normalize_name`)."""
    return stable_id("concept", user_id, norm)


AnyNode = (
    UserImpulse
    | Task
    | Report
    | InstinctiveResponse
    | SearchPlan
    | FinalResponse
    | Fact
    | DialogueTurn
    | KnowledgeCrystal
    | Concept
    | Document
    | DocumentChunk
)

NODE_CLASSES: dict[NodeType, type[Node]] = {
    cls.node_type: cls
    for cls in (
        UserImpulse,
        Task,
        Report,
        InstinctiveResponse,
        SearchPlan,
        FinalResponse,
        Fact,
        DialogueTurn,
        KnowledgeCrystal,
        Concept,
        Document,
        DocumentChunk,
    )
}
