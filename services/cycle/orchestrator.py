"""The Orchestrator: one user impulse through instinct -> plan -> recall -> synthesis.

Each step is a Task handled by a cognitive service and answered by a Report; the
impulse, tasks, reports and step outputs are recorded under one correlation id
(the impulse id), so ``thea trace`` can show the whole thought process. A step
that raises or times out yields a FAILURE report and the cycle goes on; the user
always gets an answer.

A cycle holds the model's foreground gate while it runs, so slow-loop jobs give the model
up to it (see :mod:`thea.llm.scheduler`). A cycle that is cancelled (the user pressed
Ctrl-C or closed the page) records a CANCELLED report for the step it was in and marks the
impulse ``status="cancelled"``; nothing is handed to the slow loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import thea.tracing as tracing
from services.common.exchange import Exchange
from services.common.impulse_input import validate_impulse_text
from services.common.limits import MAX_CONCEPT_CHARS, MAX_LINKED_CONCEPTS
from services.common.llm_calls import TokenSink
from services.common.pasted import is_pasted
from services.common.tokens import clip_for_prompt
from services.common.understanding import understand
from services.cycle.context import Conversation, ConversationCache
from services.cycle.fact_match import about_told
from services.cycle.steps import CognitiveService, CycleState, StepOutcome
from services.cycle.synthesis import SynthesisService
from services.cycle.turns import DEFAULT_MAX_WAITING, DEFAULT_SLOTS, FairTurns
from services.knowledge.documents import Paste, is_document, make_paste
from thea.errors import LLMTimeout, PartialWriteError, TheaError
from thea.llm.scheduler import ForegroundGate, foreground
from thea.memory.ports import CycleMemory
from thea.models import (
    FIRST_LOOK,
    CycleStatus,
    Edge,
    EdgeType,
    FinalResponse,
    LLMUsage,
    MessageKind,
    Node,
    NodeType,
    Report,
    Step,
    Task,
    TaskStatus,
    UserImpulse,
    cycle_node_id,
    now_ms,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
#: exchanges of a conversation read back from the graph when it is reopened (then cut to the budget)
RESTORED_EXCHANGES = 20

FALLBACK_ANSWER = "I could not compose a full answer just now ({reason}). Please try again."


class JobSink(Protocol):
    """Where the cycle hands work to the slow loop (implemented by workers/)."""

    def enqueue_claims(self, impulse_id: str, user_id: str, session_id: str) -> None: ...

    def enqueue_crystallize(self, impulse_id: str, user_id: str, session_id: str) -> None: ...

    def enqueue_distill(self, exchanges: Sequence[Exchange], user_id: str, session_id: str) -> None: ...


@dataclass
class StepRecord:
    step: Step
    status: TaskStatus
    duration_ms: float
    task_id: str
    report_id: str
    error: str | None = None


@dataclass
class CycleResult:
    impulse_id: str
    answer: str
    steps: list[StepRecord] = field(default_factory=list)
    usage: LLMUsage = field(default_factory=LLMUsage)
    recalled_ids: list[str] = field(default_factory=list)
    response_id: str | None = None
    #: recalled memories per recall stage that found them (a memory counts for each of its stages)
    recall_stage_hits: dict[str, int] = field(default_factory=dict)

    @property
    def failed_steps(self) -> list[str]:
        return [s.step for s in self.steps if s.status is TaskStatus.FAILURE]


#: told about every cycle: its result (None unless done), seconds, and "done", "cancelled" or "error"
CycleObserver = Callable[[CycleResult | None, float, str], None]


@dataclass(frozen=True)
class CycleSteps:
    """The cycle's four steps, run in this order."""

    instinct: CognitiveService
    planner: CognitiveService
    recall: CognitiveService
    synthesis: SynthesisService

    def in_order(self) -> list[CognitiveService]:
        return [self.instinct, self.planner, self.recall, self.synthesis]


@dataclass(frozen=True)
class CycleParts:
    """What the orchestrator works with, built by the composition root (thea/runtime/assembly.py)."""

    memory: CycleMemory
    steps: CycleSteps
    #: the sessions' short-term conversations
    context: ConversationCache
    #: where slow-loop work is queued (None: nothing is handed off)
    jobs: JobSink | None = None
    #: held while a cycle runs, so background work yields the model
    gate: ForegroundGate | None = None


@dataclass(frozen=True)
class CycleLimits:
    """How long and how large a cycle may be."""

    step_timeout_s: float = 120.0
    #: the steps before the answer (instinct, plan) fail after this long (None: as any step)
    first_look_timeout_s: float | None = None
    max_chars: int = 200_000
    handoff_timeout_s: float = 2.0
    #: how much of a message prompts (and the conversation cache) carry, in tokens
    prompt_tokens: int | None = None
    #: cycles that run at once; one per user at a time, users in turn (turns.py)
    slots: int = DEFAULT_SLOTS
    #: a user's cycles that may wait for their turn (one more: TooManyWaiting)
    max_waiting_per_user: int = DEFAULT_MAX_WAITING


class Orchestrator:
    def __init__(self, parts: CycleParts, limits: CycleLimits | None = None) -> None:
        limits = limits or CycleLimits()
        self.memory = parts.memory
        self.steps: list[CognitiveService] = parts.steps.in_order()
        self.synthesis = parts.steps.synthesis
        self.context = parts.context
        self.jobs = parts.jobs
        self.step_timeout_s = limits.step_timeout_s
        #: the steps before the answer (instinct, plan) fail after this long (default: as any step)
        self.first_look_timeout_s = limits.first_look_timeout_s or limits.step_timeout_s
        self.max_chars = limits.max_chars
        self.handoff_timeout_s = limits.handoff_timeout_s
        self.gate = parts.gate
        #: how much of a message prompts (and the conversation cache) carry, in tokens
        self.prompt_tokens = limits.prompt_tokens
        #: which waiting cycle runs next: users take turns, one cycle per user at a time
        self.turns = FairTurns(limits.slots, limits.max_waiting_per_user)
        #: metrics and tracing hooks (thea.service.metrics); an observer's failure is only logged
        self.observers: list[CycleObserver] = []

    async def handle_impulse(
        self,
        text: str,
        user_id: str,
        session_id: str,
        *,
        on_token: TokenSink | None = None,
        impulse_id: str | None = None,
    ) -> CycleResult:
        """One cycle. ``impulse_id`` (a fresh uuid the caller made) lets an interface name the
        impulse before its answer starts streaming (a response header)."""
        text = validate_impulse_text(text, self.max_chars)
        impulse = UserImpulse(content=text, user_id=user_id, session_id=session_id)
        if impulse_id is not None:
            impulse.id = impulse_id
        impulse.correlation_id = impulse.id
        log.info("impulse %s: start (user=%s session=%s)", impulse.id, user_id, session_id)
        started = time.perf_counter()
        outcome, result = "error", None
        try:
            with tracing.span("thea.cycle", {tracing.IMPULSE_ID: impulse.id, tracing.USER_ID: user_id}):
                async with self.turns.turn(user_id), foreground(self.gate, impulse.id):
                    result = await self._cycle(impulse, on_token)
            outcome = "done"
            return result
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            self._observe(result, time.perf_counter() - started, outcome)

    def _observe(self, result: CycleResult | None, seconds: float, outcome: str) -> None:
        for observe in self.observers:
            try:
                observe(result, seconds, outcome)
            except Exception:
                log.exception("a cycle observer failed")

    async def _cycle(self, impulse: UserImpulse, on_token: TokenSink | None) -> CycleResult:
        # a paste is stored as a document; the impulse (and every prompt) carries its summary
        paste = make_paste(impulse) if is_document(impulse.content) else None
        text, user_id, session_id = impulse.content, impulse.user_id or "", impulse.session_id or ""
        # what the message is, before anything is recorded: the impulse carries its kind
        # (questions are never evidence); what its statements tell is read in the slow loop
        # (off the event loop: the parse of a long sentence costs a tenth of a second of CPU)
        understanding = await asyncio.to_thread(understand, text) if paste is None else None
        if understanding is not None:
            impulse.kind = understanding.kind
        await self._restore_context(user_id, session_id)
        # The graph must take the impulse (GraphUnavailable propagates: nothing to answer from);
        # a vector or chronicle failure only costs recall until `thea memory repair`.
        await self._record_impulse(impulse, paste)

        # prompts carry a very long message as its head and tail (the graph keeps all of it), and
        # so does the conversation cache: its size per session stays bounded
        prompt_text = clip_for_prompt(text, self.prompt_tokens)
        evicted = await self._conversation(self.context.make_room, user_id, session_id, prompt_text) or []
        if evicted:
            await self._hand_off(lambda jobs: jobs.enqueue_distill(evicted, user_id, session_id), "distill")

        earlier = await self._conversation(self.context.exchanges, user_id, session_id) or []
        state = CycleState(
            impulse=impulse,
            correlation_id=impulse.id,
            user_id=user_id,
            session_id=session_id,
            history=Conversation(earlier).history(),
            said_before=[e.question for e in earlier],
            pasted_before=[(e.impulse_id, e.question) for e in earlier if is_pasted(e.question)],
            on_token=on_token,
            prompt_tokens=self.prompt_tokens,
            document=paste.document if paste else None,
            understanding=understanding,
        )
        result = CycleResult(impulse_id=impulse.id, answer="")
        for service in self.steps:
            record = await self._run_step(service, state, result)
            result.steps.append(record)
            if service.step is Step.PLAN and state.plan is not None and record.status is TaskStatus.SUCCESS:
                await self._link_concepts(state)

        if state.answer is None:
            failed = ", ".join(result.failed_steps) or "unknown error"
            state.answer = FALLBACK_ANSWER.format(reason=f"failed: {failed}")
            if on_token is not None:
                maybe = on_token(state.answer)
                if maybe is not None:
                    await maybe
        result.answer = state.answer
        if state.recall is not None:
            for hit in state.recall.hits:
                for stage in hit.stages:
                    result.recall_stage_hits[stage] = result.recall_stage_hits.get(stage, 0) + 1
        await self._conversation(
            self.context.add,
            user_id,
            session_id,
            Exchange(
                question=prompt_text,
                answer=state.answer,
                impulse_id=impulse.id,
                response_id=result.response_id or "",
                at=now_ms(),
                templated=state.templated,
            ),
        )
        await self._slow_work(
            impulse, read_claims=bool(understanding and understanding.read_for_claims), paste=paste
        )
        log.info("impulse %s: done, failed steps %s", impulse.id, result.failed_steps or "none")
        return result

    async def _slow_work(self, impulse: UserImpulse, *, read_claims: bool, paste: Paste | None) -> None:
        """What the slow loop does with the message: its claims first, then its insight (a
        document is recalled by its chunks; nothing is crystallized from it)."""
        user_id, session_id = impulse.user_id or "", impulse.session_id or ""
        if read_claims:
            await self._hand_off(lambda jobs: jobs.enqueue_claims(impulse.id, user_id, session_id), "claims")
        if paste is None:
            await self._hand_off(
                lambda jobs: jobs.enqueue_crystallize(impulse.id, user_id, session_id), "crystallize"
            )

    async def _restore_context(self, user_id: str, session_id: str) -> None:
        """A conversation this process does not hold (reopened after a restart, or begun on
        another replica) gets its latest exchanges back from the graph, so the model sees it."""
        if not user_id or not session_id:
            return
        held = await self._conversation(self.context.holds, user_id, session_id)
        if held is not False:  # held, or its store is down (then there is nothing to fill)
            return
        try:
            rows = await asyncio.to_thread(
                self.memory.traces.session_exchanges, user_id, session_id, RESTORED_EXCHANGES
            )
        except TheaError as exc:  # the answer comes without the earlier conversation
            log.warning("session %s: could not read its earlier exchanges: %s", session_id, exc)
            return
        exchanges = [
            Exchange(
                question=clip_for_prompt(row.impulse.content, self.prompt_tokens),
                answer=row.answer,
                impulse_id=row.impulse.id,
                response_id=row.response_id or "",
                at=row.answered_at or row.impulse.created_at,
                # a statement's acknowledgement is a template, an answer about the user's life
                # no evidence: neither is shown to the model
                templated=row.impulse.kind is MessageKind.STATEMENT
                # (read back: a question about the user; one about someone they named is not told
                # apart here, without their claims)
                or (row.impulse.kind is MessageKind.QUESTION and about_told(row.impulse.content, ())),
            )
            for row in rows
            if row.answer
        ]
        if await self._conversation(self.context.restore, user_id, session_id, exchanges):
            log.info("session %s: %d earlier exchanges restored", session_id, len(exchanges))

    async def _conversation(self, call: Callable[..., T], *args: Any) -> T | None:
        """A call to the conversation cache (in a thread: it may be Redis). When its store is
        down the answer comes without the conversation: None, and a warning."""
        try:
            return await asyncio.to_thread(call, *args)
        except TheaError as exc:
            log.warning("conversation of session %s unavailable (answered without it): %s", args[1], exc)
            return None

    async def _run_step(
        self, service: CognitiveService, state: CycleState, result: CycleResult
    ) -> StepRecord:
        ids = {
            "user_id": state.user_id,
            "session_id": state.session_id,
            "correlation_id": state.correlation_id,
        }
        task = Task(
            id=cycle_node_id(state.correlation_id, f"task:{service.step}"),
            step=service.step,
            service=service.name,
            content=f"{service.step} for impulse",
            **ids,
        )
        started = time.perf_counter()
        outcome: StepOutcome | None = None
        error: str | None = None
        with tracing.span(
            f"thea.{service.step}",
            {tracing.IMPULSE_ID: state.impulse.id, tracing.TASK_ID: task.id, tracing.STEP: service.step},
        ) as span:
            outcome, error = await self._perform(service, state, task, started)
            if error is not None:
                span.fail(error)
        duration = (time.perf_counter() - started) * 1000
        status = TaskStatus.FAILURE if outcome is None else TaskStatus.SUCCESS
        task.status = status
        usage = outcome.usage if outcome else LLMUsage()
        result.usage = result.usage.add(usage)
        report = Report(
            id=cycle_node_id(state.correlation_id, f"report:{service.step}"),
            step=service.step,
            task_id=task.id,
            status=status,
            output=outcome.output.wire() if outcome and outcome.output else {},
            error=error or (outcome.degraded if outcome else None),
            duration_ms=duration,
            model=usage.model,
            prompt_name=usage.prompt_name,
            prompt_version=usage.prompt_version,
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            llm_calls=usage.calls,
            content=f"{service.step}: {status.value}",
            **ids,
        )
        nodes = [task, report, *(outcome.nodes if outcome else [])]
        edges = [
            Edge(src=task.id, dst=state.impulse.id, type=EdgeType.IS_TASK_FOR),
            Edge(src=report.id, dst=task.id, type=EdgeType.IS_RESULT_OF),
        ]
        if outcome:
            edges += outcome.edges
            for node in outcome.nodes:
                edges.append(Edge(src=node.id, dst=report.id, type=EdgeType.DERIVED_FROM))
                if node.type == NodeType.SEARCH_PLAN:
                    edges.append(Edge(src=state.impulse.id, dst=node.id, type=EdgeType.HAS_PLAN))
                if node.type == NodeType.INSTINCTIVE_RESPONSE:
                    edges.append(Edge(src=node.id, dst=state.impulse.id, type=EdgeType.IS_RESPONSE_TO))
                if isinstance(node, FinalResponse):
                    result.response_id = node.id
                    result.recalled_ids = list(node.recalled_ids)
        await self._record(nodes, edges, state)
        log.info(
            "impulse %s task %s %s %s in %.0f ms",
            state.impulse.id,
            task.id,
            service.step,
            status.value,
            duration,
        )
        return StepRecord(service.step, status, duration, task.id, report.id, error)

    async def _perform(
        self, service: CognitiveService, state: CycleState, task: Task, started: float
    ) -> tuple[StepOutcome | None, str | None]:
        """Run one step within its time limit: its outcome, or why it has none."""
        timeout_s = self.first_look_timeout_s if service.step in FIRST_LOOK else self.step_timeout_s
        try:
            return await asyncio.wait_for(service.handle(state), timeout=timeout_s), None
        except asyncio.CancelledError:
            duration = (time.perf_counter() - started) * 1000
            # shielded: the cancellation must not also cancel writing down that it happened
            await asyncio.shield(self._record_cancelled(task, state, duration))
            raise
        except TimeoutError:
            return None, f"timed out after {timeout_s:g} s"
        except LLMTimeout as exc:
            return None, f"timed out: {exc}"
        except Exception as exc:  # a failing step must not stop the cycle
            error = f"{type(exc).__name__}: {exc}"
            log.warning("impulse %s task %s (%s) failed: %s", state.impulse.id, task.id, service.step, error)
            return None, error

    async def _record_cancelled(self, task: Task, state: CycleState, duration_ms: float) -> None:
        """The user cancelled the cycle during ``task``: a CANCELLED report, the impulse marked."""
        task.status = TaskStatus.CANCELLED
        report = Report(
            id=cycle_node_id(state.correlation_id, f"report:{task.step}"),
            step=task.step,
            task_id=task.id,
            status=TaskStatus.CANCELLED,
            error="cancelled by the user",
            duration_ms=duration_ms,
            content=f"{task.step}: {TaskStatus.CANCELLED.value}",
            user_id=state.user_id,
            session_id=state.session_id,
            correlation_id=state.correlation_id,
        )
        edges = [
            Edge(src=task.id, dst=state.impulse.id, type=EdgeType.IS_TASK_FOR),
            Edge(src=report.id, dst=task.id, type=EdgeType.IS_RESULT_OF),
        ]
        try:
            await self._record([task, report], edges, state)
            await asyncio.to_thread(
                self.memory.set_properties, [state.impulse.id], {"status": CycleStatus.CANCELLED.value}
            )
        except TheaError as exc:
            log.error("impulse %s: could not record the cancellation: %s", state.impulse.id, exc)
        log.info("impulse %s task %s %s cancelled by the user", state.impulse.id, task.id, task.step)

    async def _record_impulse(self, impulse: UserImpulse, paste: Paste | None = None) -> None:
        """The impulse, and a paste's document and chunks with it, in one batched write."""
        try:
            if paste is None:
                await self.memory.arecord([impulse])
            else:
                await self.memory.arecord([impulse, *paste.nodes], paste.edges)
        except PartialWriteError as exc:
            log.error("impulse %s: partial write: %s", impulse.id, exc)

    async def _record(self, nodes: Sequence[Node], edges: Sequence[Edge], state: CycleState) -> None:
        try:
            await self.memory.arecord(nodes, edges)
        except PartialWriteError as exc:
            # The graph holds the trace; `thea memory repair` re-derives the rest.
            log.error("impulse %s: partial write: %s", state.impulse.id, exc)

    async def _link_concepts(self, state: CycleState) -> None:
        assert state.plan is not None
        names = [c for c in state.plan.concepts if 3 <= len(c.strip()) <= MAX_CONCEPT_CHARS]
        names = names[:MAX_LINKED_CONCEPTS]
        if not names:
            return
        try:
            concepts = await asyncio.to_thread(self.memory.get_or_create_concepts, names, state.user_id)
            links = [
                Edge(src=state.impulse.id, dst=c.id, type=EdgeType.CONTAINS_CONCEPT)
                for c in concepts.values()
            ]
            await asyncio.to_thread(self.memory.link, links)
        except PartialWriteError as exc:
            log.error("impulse %s: concept write partial: %s", state.impulse.id, exc)

    async def _hand_off(self, enqueue: Callable[[JobSink], None], what: str) -> None:
        """Enqueue slow-loop work in a thread; never fail the answer, and never delay it by more
        than ``handoff_timeout_s`` (a down Redis can take seconds to refuse: the thread finishes
        on its own and logs the outcome)."""
        jobs = self.jobs
        if jobs is None:
            return

        def run() -> None:
            try:
                enqueue(jobs)
            except Exception as exc:
                log.warning("could not enqueue %s job (answer unaffected): %s", what, exc)

        try:
            await asyncio.wait_for(asyncio.to_thread(run), timeout=self.handoff_timeout_s)
        except TimeoutError:
            log.warning(
                "%s job not enqueued within %.1f s (is the queue down?); answering without waiting",
                what,
                self.handoff_timeout_s,
            )
