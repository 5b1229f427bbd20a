"""Request and response bodies of the v1 API (pydantic; the OpenAPI schema is built from them)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from thea.models import AnyNode, HealthStatus, Report, Step, Task, TaskStatus, UserImpulse

#: ids people and programs pass around: uuids, prefixes, session names
Ident = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")]
#: any graph node; its ``type`` literal picks the model
NodeUnion = AnyNode

MAX_TEXT_CHARS = 200_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- errors --------------------------------------------------------------------------------

#: ``stopping``: the service is on its way out (a local client waits for it and asks a new one)
ErrorKind = Literal[
    "input",
    "not_found",
    "auth",
    "busy",
    "backend",
    "job",
    "config",
    "failed",
    "internal",
    "stopping",
    "interrupted",
]


class ErrorBody(BaseModel):
    """Every error response: a one-line message and what kind of problem it is."""

    error: str
    kind: ErrorKind
    #: same as ``error`` (kept for clients that read FastAPI's ``detail``)
    detail: str = ""


# -- service -------------------------------------------------------------------------------


class Health(BaseModel):
    ok: bool = True
    version: str
    api_version: str
    profile: str
    pid: int
    #: whether requests on this connection need a bearer token
    auth: bool = False
    #: set when a store is damaged: only check and repair work until `thea memory repair`
    maintenance: str | None = None


class WhoAmI(BaseModel):
    user_id: str
    session_id: str | None = None
    last_impulse_id: str | None = None


class ModelStatus(BaseModel):
    provider: str
    name: str
    loaded: bool


class QueueCountsView(BaseModel):
    name: str
    queued: int
    started: int
    scheduled: int
    failed: int
    finished: int


class ServiceStatus(BaseModel):
    pid: int
    version: str
    api_version: str
    profile: str
    data_dir: str
    started_at: float
    uptime_s: float
    model: ModelStatus
    queues: list[QueueCountsView]
    workers: int
    users: list[str]
    sessions: int
    requests_in_flight: int
    listening: list[str]
    idle_stop_s: float
    rss_bytes: int
    maintenance: str | None = None
    #: imported memories whose vectors the background still computes (found by words meanwhile)
    vectors_pending: int = 0


# -- the cycle -----------------------------------------------------------------------------


class AskRequest(_Body):
    text: str = Field(max_length=MAX_TEXT_CHARS, description="the message (one impulse)")
    session_id: Ident | None = Field(None, description="conversation id; a new one when omitted")
    stream: bool = Field(False, description="answer as server-sent events (token, done, error)")


class Usage(BaseModel):
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


class StepSummary(BaseModel):
    step: Step
    status: TaskStatus
    duration_ms: float
    error: str | None = None


class AskResult(BaseModel):
    answer: str
    impulse_id: str
    response_id: str | None
    session_id: str
    failed_steps: list[str] = Field(default_factory=list)
    recalled_ids: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    steps: list[StepSummary] = Field(default_factory=list)


class ChatRequest(_Body):
    """A chat front-end's line: a message, or a ``!`` command."""

    text: str = Field(max_length=MAX_TEXT_CHARS)
    session_id: Ident | None = None


# -- conversations (sessions): the web chat's history ------------------------------------------


class ChatSessionSummary(BaseModel):
    """One of the caller's conversations: its id, its first message as a title, when it began
    and last spoke, and how many messages it holds."""

    session_id: str
    #: the conversation's first message, clipped
    title: str
    started_at: int
    last_at: int
    messages: int


class ChatSessionList(BaseModel):
    """The caller's conversations, the latest first."""

    sessions: list[ChatSessionSummary] = Field(default_factory=list)


class ExchangeView(BaseModel):
    """A message of a conversation and thea's answer to it."""

    impulse_id: str
    text: str
    #: when it was said (epoch ms)
    at: int
    #: thea's answer (None: the cycle gave none, e.g. it was cancelled)
    answer: str | None = None
    response_id: str | None = None
    answered_at: int | None = None
    #: "cancelled" or "incomplete" when the cycle did not end with an answer
    status: str | None = None


class ChatSessionView(BaseModel):
    """One conversation's messages and answers, oldest first (its last ``limit`` messages).
    Unknown and other users' sessions are empty: nobody learns that a session exists."""

    session_id: str
    exchanges: list[ExchangeView] = Field(default_factory=list)
    #: whether older messages were left out
    truncated: bool = False


class TraceStepView(BaseModel):
    step: str
    status: TaskStatus
    duration_ms: float | None
    error: str | None
    task: Task
    report: Report | None
    outputs: list[NodeUnion] = Field(default_factory=list)


class RecalledMemoryView(BaseModel):
    """One memory recall found, as the trace explains it."""

    id: str
    type: str
    #: its text, clipped to one line (empty for traces recorded before texts were kept)
    text: str = ""
    #: the fused score recall ranked it by
    score: float = 0.0
    #: which stages found it
    stages: list[str] = Field(default_factory=list)
    #: each stage's own score before fusion (vectors: similarity, keywords: BM25, ...)
    stage_scores: dict[str, float] = Field(default_factory=dict)
    #: whether it reached the answering model's prompt, as a reference or a fact of record
    #: (the others fell below the relevance floor or outside the token budget)
    in_prompt: bool = False


class FactUsedView(BaseModel):
    """A fact of record the answering prompt held, or the answer said back."""

    id: str
    text: str = ""
    #: why it answers the question (said-back answers: whom it is about, what it speaks of)
    why: str = ""


class FactRecordedView(BaseModel):
    """A fact of record this message added."""

    id: str
    subject: str = ""
    attribute: str = ""
    value: str = ""
    text: str = ""


class SupersededView(BaseModel):
    """A fact this message replaced: ``by`` is the id of the fact that replaced it."""

    id: str
    text: str = ""
    by: str = ""
    #: why it was replaced (when recorded)
    reason: str = ""


class PromptMessageView(BaseModel):
    #: system, human or ai (LangChain's message types)
    role: str
    content: str


class PromptUsedView(BaseModel):
    """The prompt the answering model was asked with."""

    id: str
    version: str = ""
    #: how many messages it had
    message_count: int = 0
    #: every message, exactly as sent; only when asked for (``prompts=true``), else None
    messages: list[PromptMessageView] | None = None


class TraceExplanation(BaseModel):
    """Why the answer is what it is: what recall found, what of it reached the prompt, the
    facts of record used, and the prompt itself."""

    #: what the message was: statement, question, request, small_talk or mix (when recorded)
    act: str | None = None
    #: recalled memories in recall order (best first)
    recalled: list[RecalledMemoryView] = Field(default_factory=list)
    #: facts of record in the answering prompt
    facts: list[FactUsedView] = Field(default_factory=list)
    #: facts of record this message added, and the older ones they replaced
    facts_recorded: list[FactRecordedView] = Field(default_factory=list)
    superseded: list[SupersededView] = Field(default_factory=list)
    #: how the answer was made: "model", or the rule that made it without one
    #: ("acknowledgement", "not told", "document stored"); None when synthesis has no report
    mode: str | None = None
    prompt: PromptUsedView | None = None


class TraceView(BaseModel):
    """One cycle: the impulse, each step's Task and Report and what it produced."""

    impulse: UserImpulse
    complete: bool
    failed_steps: list[str] = Field(default_factory=list)
    steps: list[TraceStepView] = Field(default_factory=list)
    related: list[NodeUnion] = Field(default_factory=list)
    #: the answer explained from the reports (None from an older service)
    explanation: TraceExplanation | None = None


class CommandResult(BaseModel):
    """What a ``!`` command did: a line for the user, its data, a trace for ``!trace``."""

    text: str
    command: str
    data: dict[str, Any] = Field(default_factory=dict)
    trace: TraceView | None = None
    quit: bool = False


# -- knowledge -----------------------------------------------------------------------------


#: which insights to list: ``unverified`` ones are inactive because their evidence does not
#: support them; ``archived`` ones were merged into another
InsightState = Literal["active", "archived", "unverified", "all"]


class InsightSummary(BaseModel):
    id: str
    content: str
    seed: str = ""
    strength: float
    active: bool
    confidence: float
    tags: list[str] = Field(default_factory=list)
    concepts: list[str] = Field(default_factory=list)
    created_at: int
    #: supported, unverified, promoted or unchecked (written before insights carried evidence)
    verification: str = "unchecked"
    #: share of the weakest claim's words found in its evidence (0..1)
    support: float = 0.0
    #: why it is unverified
    verification_reason: str = ""
    #: distinct sources that support it
    proofs: int = 0
    #: set when contradicting evidence superseded it (no longer recalled)
    valid_until: int | None = None


class EvidenceView(BaseModel):
    """One source an insight rests on, with the span of it that supports the claim."""

    source_id: str
    kind: str = ""
    quote: str = ""


class ClaimView(BaseModel):
    """One claim (sentence) of an insight: its own status, support, reason and evidence."""

    text: str
    #: supported or unsupported (the insight is unverified when any claim is)
    status: str = "supported"
    support: float = 0.0
    reason: str = ""
    evidence: list[EvidenceView] = Field(default_factory=list)


class RevisionView(BaseModel):
    """A later change of an insight's standing: promoted, weakened or superseded by evidence."""

    kind: str
    at: int
    reason: str = ""
    #: ids of the memories (impulses, facts) that brought the evidence
    evidence: list[str] = Field(default_factory=list)


class Relation(BaseModel):
    model_config = ConfigDict(extra="allow")

    subject: str
    relation: str
    object: str
    confidence: float | None = None
    valid_until: int | None = None


class LineageEntry(BaseModel):
    id: str
    content: str = ""
    strength: float | None = None
    active: bool | None = None


class SourceImpulse(BaseModel):
    id: str
    content: str
    created_at: int


class InsightDetailView(InsightSummary):
    relations: list[Relation] = Field(default_factory=list)
    merged_from: list[LineageEntry] = Field(default_factory=list)
    merged_into: list[LineageEntry] = Field(default_factory=list)
    source_impulses: list[SourceImpulse] = Field(default_factory=list)
    evidence: list[EvidenceView] = Field(default_factory=list)
    #: per claim (sentence); empty for insights written before claims were checked one by one
    claims: list[ClaimView] = Field(default_factory=list)
    #: promotions and contradictions by later evidence, oldest first
    revisions: list[RevisionView] = Field(default_factory=list)


class InsightList(BaseModel):
    insights: list[InsightSummary]


class SlowLoopView(BaseModel):
    """What the slow loop still has to do for the caller (``GET /slow-loop``)."""

    #: jobs queued or running (every user's: the caller's wait behind them)
    jobs: int = 0
    #: the caller's messages still to be read for their claims
    unread: int = 0
    #: roughly how long until the jobs are done (None: no pace known yet)
    eta_s: float | None = None
    #: some jobs have no pace known yet: ``eta_s`` counts only the others (a lower bound)
    eta_at_least: bool = False
    #: one line for people ("" when nothing waits)
    summary: str = ""


class ReflectRequest(_Body):
    wait_s: float | None = Field(None, ge=0, le=3600, description="how long to wait for the merge")


class ReflectionResult(BaseModel):
    """``done`` with the counts, or ``queued`` when no worker finished it within ``wait_s``."""

    status: Literal["done", "queued"]
    job_id: str | None = None
    user_id: str | None = None
    insights: int = 0
    groups_found: int = 0
    merged: int = 0
    skipped: int = 0
    archived: int = 0
    errors: list[str] = Field(default_factory=list)
    merged_ids: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    summary: str = ""


class FactRequest(_Body):
    text: str = Field(max_length=MAX_TEXT_CHARS)
    session_id: Ident | None = None


class FactResult(BaseModel):
    fact_id: str
    confidence: float
    agreed: list[str] = Field(default_factory=list)
    contradicted: list[str] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)
    summary: str


MAX_QUERY_CHARS = 2000


class RecallRequest(_Body):
    """Search the caller's memory the way a cycle's recall step does (no model involved)."""

    query: str = Field(max_length=MAX_QUERY_CHARS, description="what to look for, in plain words")
    limit: int = Field(8, ge=1, le=50, description="most memories to return")


class MemoryHit(BaseModel):
    """One recalled memory: what it says, how well it matched, and which stages found it."""

    id: str
    type: str = Field(description="the node type: UserImpulse, DialogueTurn, KnowledgeCrystal, Fact, ...")
    text: str
    score: float
    stages: list[str] = Field(default_factory=list, description="triples, keywords, vectors, activation")
    #: when it happened (epoch ms): an imported turn's date, else when it was recorded
    time: int
    created_at: int


class RecallView(BaseModel):
    memories: list[MemoryHit]
    #: candidates each stage found before fusion
    stage_counts: dict[str, int] = Field(default_factory=dict)
    #: stages skipped because their store was unavailable
    failed_stages: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0


#: what ``remember`` stores: a message kept verbatim, or a fact
MemoryKind = Literal["message", "fact"]


class RememberRequest(_Body):
    """Store something for the caller without running a cycle: a message (kept verbatim,
    recallable at once, no model call) or a fact (its confidence checked against what thea
    already knows: one model call)."""

    text: str = Field(max_length=MAX_TEXT_CHARS)
    kind: MemoryKind = "message"
    session_id: Ident | None = None


class Remembered(BaseModel):
    id: str
    kind: MemoryKind
    summary: str
    confidence: float | None = None


#: largest history file one import request carries (bytes of JSON)
MAX_IMPORT_BYTES = 64 * 1024 * 1024


class ImportRequest(_Body):
    """A whole history file's text (LoCoMo JSON or JSONL of messages), validated before anything
    is written; importing the same file again adds nothing twice."""

    text: str
    format: Literal["auto", "locomo", "jsonl"] = "auto"
    #: the file's name, for error messages
    source: str = Field(default="file", max_length=255)
    #: answer with server-sent events: ``progress`` ({"done", "total"} turns) after each batch,
    #: then ``done`` (the result), ``stopped`` ({"done", "total", "error"}: the import stopped at
    #: a batch boundary; the same import again continues) or ``error``
    stream: bool = False


class ImportResult(BaseModel):
    #: whose memory the history went to
    user_id: str = ""
    conversations: int
    turns: int
    already_present: int
    #: messages longer than the turn limit, stored as documents of chunks
    documents: int = 0
    skipped_empty: int
    undated: int
    first_ms: int | None
    last_ms: int | None
    seconds: float
    #: memories of this import whose vectors the service computes in the background (a large
    #: import); they are found by keywords until then (`thea memory check` shows how many wait)
    vectors_pending: int = 0


class ForgetRequest(_Body):
    id: Ident


class ForgetResult(BaseModel):
    id: str
    kind: str
    summary: str


class FeedbackRequest(_Body):
    value: Literal[1, -1]
    response_id: Ident | None = Field(None, description="the answer; default: the session's last one")
    session_id: Ident | None = None


class FeedbackResult(BaseModel):
    response_id: str
    feedback: int
    changed: list[str] = Field(default_factory=list)
    summary: str


# -- jobs and memory maintenance -----------------------------------------------------------


class FailedJobView(BaseModel):
    queue: str
    job_id: str
    func: str
    reason: str
    ended_at: str


class JobsView(BaseModel):
    queues: list[QueueCountsView]
    failed: list[FailedJobView]
    #: jobs whose worker had died, handed back to their queue by this look
    recovered: list[str] = Field(default_factory=list)


class RetryRequest(_Body):
    job_id: Ident | None = None
    all: bool = False


class RetryResult(BaseModel):
    retried: list[str]


class MemoryStats(BaseModel):
    graph: dict[str, int]
    vectors: dict[str, int]
    chronicle: dict[str, int]


class ScanRequest(_Body):
    grace_minutes: float = Field(15.0, ge=0, le=100_000)


class ScanProgress(BaseModel):
    """One line of a streamed check or repair: progress, then a final ``result``."""

    event: Literal["progress", "result", "error"]
    phase: str | None = None
    done: int | None = None
    total: int | None = None
    result: dict[str, Any] | None = None
    error: ErrorBody | None = None


class OptimizeResult(BaseModel):
    seconds: float


class Stopping(BaseModel):
    """The service is stopping (running answers finish first)."""

    stopping: bool = True


class Listening(BaseModel):
    """The TCP listener the service opened (for the web page)."""

    url: str


class DoctorView(BaseModel):
    statuses: list[HealthStatus]


# -- graph view ----------------------------------------------------------------------------


class GraphElement(BaseModel):
    data: dict[str, Any]


class GraphView(BaseModel):
    nodes: list[GraphElement]
    edges: list[GraphElement]
    start: str


# -- what thea knows about the user: facts of record ---------------------------------------

#: longest correction of a fact (one statement, a few clauses)
MAX_FACT_TEXT_CHARS = 2000

#: where a fact came from: a ``message`` in a chat, a fact told with ``!fact`` (``POST /facts``,
#: ``remember(kind="fact")``), or the user's ``correction`` of an earlier fact
FactSourceKind = Literal["message", "fact_command", "correction"]


class FactSourceView(BaseModel):
    """The message a fact came from: its text and date (for a fact told with ``!fact``, the
    fact as told)."""

    kind: FactSourceKind
    #: the message's id (None for a fact told with !fact and for a correction)
    id: str | None = None
    #: what the user said (the message, or the fact or correction as told)
    text: str = ""
    #: when it was said (epoch ms)
    at: int | None = None
    #: one line for people: 'you said on 2026-05-01: "I live in Leeds."', "told with !fact"
    label: str


class EarlierValueView(BaseModel):
    """An earlier value of a fact: what a newer fact replaced, with when it held."""

    id: str
    #: the fact as told, in the second person ("You live in Leeds.")
    text: str
    value: str = ""
    #: when it became true (told) and when it stopped (replaced), epoch ms
    since: int
    until: int | None = None
    #: the fact that replaced it
    superseded_by: str | None = None
    source: FactSourceView


class FactOfRecordView(BaseModel):
    """One fact thea holds about the user or someone or something in their life."""

    id: str
    #: "user" for the user, else the subject's normalised name ("sam")
    subject_key: str | None = None
    #: the subject as shown ("You", "Sam")
    subject: str
    #: the fact in the second person, as thea tells it back ("You live in York.")
    text: str
    #: the attribute key different wordings share ("liv", "be-a") and the value ("in York")
    attribute: str = ""
    value: str = ""
    #: general, or constraint (health and diet)
    category: str = "general"
    #: since when it is known to hold (epoch ms)
    since: int
    #: set when the fact was replaced or marked outdated (then it is no longer current)
    until: int | None = None
    superseded_by: str | None = None
    current: bool = True
    #: a change told ahead ("we're moving to York in March") that takes effect on ``since``
    planned: bool = False
    source: FactSourceView
    #: the values it replaced, newest first (empty unless asked for)
    history: list[EarlierValueView] = Field(default_factory=list)


class SubjectFactsView(BaseModel):
    """The current facts about one subject (the user first, then each other subject)."""

    key: str
    name: str
    facts: list[FactOfRecordView]


class FactsOfRecordView(BaseModel):
    """What thea knows about the user: a short summary made from current facts only, then
    the current facts grouped by subject."""

    summary: str
    subjects: list[SubjectFactsView] = Field(default_factory=list)
    #: how many current facts there are
    count: int = 0


class CorrectFactRequest(_Body):
    """Correct a fact: the correction replaces it (it stays in history, with the correction
    as its replacement)."""

    action: Literal["correct"]
    text: str = Field(
        min_length=1,
        max_length=MAX_FACT_TEXT_CHARS,
        description="what is true instead, as the user says it ('I live in York.')",
    )


class OutdateFactRequest(_Body):
    """Mark a fact outdated: it no longer holds (kept in history, nothing replaces it)."""

    action: Literal["outdate"]


#: the body of ``PATCH /facts/{id}``: ``{"action": "correct", "text": ...}`` or ``{"action": "outdate"}``
FactEditRequest = Annotated[CorrectFactRequest | OutdateFactRequest, Field(discriminator="action")]


class ErasureAction(StrEnum):
    """What an erasure covered."""

    #: every fact about a subject (``DELETE /facts?about=``)
    ABOUT = "about"
    #: one conversation (``DELETE /sessions/{id}``)
    CONVERSATION = "conversation"
    #: everything the user has (``DELETE /me``)
    USER = "user"


class ErasureResult(BaseModel):
    """What forgetting everything about a subject, a conversation or a user erased."""

    action: ErasureAction
    #: how many memories were erased (the log keeps only that deletions happened)
    erased: int
    #: the facts among them
    facts: list[str] = Field(default_factory=list)
    #: how many other stored texts (messages, replies, trace steps) had the facts' words erased
    redacted: int = 0
    #: insights made from them, erased
    insights: list[str] = Field(default_factory=list)
    #: concepts only they named, erased
    concepts: list[str] = Field(default_factory=list)
    summary: str


class FactEditResult(BaseModel):
    """What a correction, an outdating or a deletion did."""

    action: Literal["correct", "outdate", "forget"]
    #: the fact acted on
    id: str
    #: a correction's new facts
    facts: list[FactOfRecordView] = Field(default_factory=list)
    #: facts no longer current because of it (the one acted on, and what the rules closed)
    closed: list[str] = Field(default_factory=list)
    #: insights resting on the fact, superseded (re-checked) because of it
    insights_superseded: list[str] = Field(default_factory=list)
    summary: str
