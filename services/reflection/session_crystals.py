"""Crystallize imported history one session at a time (one model call per session, not per turn).

A session's turns (oldest first, capped at ``MAX_SESSION_CHARS`` so the work per session is
bounded) go to the model in one prompt; the answer becomes a KnowledgeCrystal of the user
(strength 1, active) linked to the session's turns (DERIVED_FROM) and to its concepts, the
triples become concept relations with provenance, and every turn that names a triple's
subject or object is linked to that concept, so recall's triple and activation stages can
reach the turns through the model's knowledge.

Idempotent: the crystal id derives from the user and the session, and an existing crystal is
left alone.

An experiment, not part of the product: only ``benchmarks/locomo.py --with-crystals`` (and its
tests) run it; imports are crystallized by nothing (docs/benchmarks.md, "The slow loop's
knowledge in recall").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

from langchain_core.language_models import BaseChatModel

from services.common.job_trace import JobTrace
from services.common.llm_calls import ask_structured
from services.common.notation import Triple
from services.prompts import crystallize_session as prompt
from services.reflection.crystallizer import CrystallizeOutcome, compact, concept_links, triple_relations
from thea.errors import JobError
from thea.memory.ports import CrystalWriter
from thea.models import (
    DialogueTurn,
    Edge,
    EdgeType,
    KnowledgeCrystal,
    Step,
    TaskStatus,
    normalize_name,
    stable_id,
)
from thea.tuning import MAX_SESSION_CHARS, MAX_SESSION_CONCEPTS

log = logging.getLogger(__name__)

#: At most this much of a session's text goes to the model (about 2,000 tokens).
MAX_CONCEPTS = MAX_SESSION_CONCEPTS


def session_crystal_id(user_id: str, session_id: str) -> str:
    return stable_id("session-crystal", user_id, session_id)


def session_lines(turns: Sequence[DialogueTurn], limit: int = MAX_SESSION_CHARS) -> list[str]:
    """The session's turns as lines, oldest first, as many whole turns as fit ``limit``."""
    lines, used = [], 0
    for turn in sorted(turns, key=lambda t: t.event_time or t.created_at):
        line = " ".join(turn.content.split())
        if used + len(line) > limit:
            break
        lines.append(line)
        used += len(line) + 1
    return lines


class SessionCrystallizer:
    def __init__(self, memory: CrystalWriter, llm: BaseChatModel, timeout_s: float = 120.0) -> None:
        self.memory = memory
        self.llm = llm
        self.timeout_s = timeout_s

    async def crystallize(
        self, user_id: str, session_id: str, turns: Sequence[DialogueTurn]
    ) -> CrystallizeOutcome:
        cid = session_crystal_id(user_id, session_id)
        if not turns:
            return CrystallizeOutcome(session_id, cid, created=False)
        if await asyncio.to_thread(self.memory.get, [cid]):
            return CrystallizeOutcome(session_id, cid, created=False)
        first = min(t.event_time or t.created_at for t in turns)
        when = datetime.fromtimestamp(first / 1000, tz=UTC).strftime("%d %B %Y")
        job = JobTrace(
            step=Step.CRYSTALLIZE_SESSION,
            service="session_crystallizer",
            key=f"{user_id}/{session_id}",
            user_id=user_id,
            session_id=session_id,
        )
        try:
            out, job.usage = await ask_structured(
                self.llm,
                prompt.OUTPUT,
                prompt.build(session_lines(turns), when),
                prompt.PROMPT,
                timeout_s=self.timeout_s,
            )
        except Exception as exc:  # record the failure, let the caller retry or move on
            nodes, edges = job.build(TaskStatus.FAILURE, error=f"{type(exc).__name__}: {exc}")
            await self.memory.arecord(nodes, edges)
            raise JobError(f"crystallize session {session_id}: the model failed ({exc})") from exc
        triples = [
            Triple(t.subject, EdgeType.parse(t.predicate), t.object, t.confidence) for t in out.triples
        ]
        names = _names(triples)
        concepts = (
            await asyncio.to_thread(self.memory.get_or_create_concepts, names, user_id) if names else {}
        )
        by_norm = {normalize_name(k): v for k, v in concepts.items()}
        crystal = KnowledgeCrystal(
            id=cid,
            content=compact(out.insight),
            seed=out.seed.strip(),
            tags=[t.strip().lower() for t in out.tags if t.strip()][:6],
            user_id=user_id,
            session_id=session_id,
            created_at=first,
        )
        edges = [Edge(src=cid, dst=t.id, type=EdgeType.DERIVED_FROM) for t in turns]
        edges += concept_links(cid, concepts)
        asserted = triple_relations(triples, by_norm, source=cid, user_id=user_id)
        edges += asserted
        kept = len(asserted)
        for turn in turns:  # turns that name a concept of the session's knowledge link to it
            text = turn.content.lower()
            edges += [
                Edge(src=turn.id, dst=c.id, type=EdgeType.CONTAINS_CONCEPT)
                for norm, c in by_norm.items()
                if len(norm) >= 3 and norm in text
            ]
        outcome = CrystallizeOutcome(
            session_id, cid, True, sorted(c.content for c in concepts.values()), kept
        )
        nodes, job_edges = job.build(TaskStatus.SUCCESS, output=outcome.as_dict(), produced=[crystal])
        await self.memory.arecord([crystal, *nodes], edges + job_edges)
        log.info("session %s: crystal %s with %d concepts, %d triples", session_id, cid, len(concepts), kept)
        return outcome


def _names(triples: list[Triple]) -> list[str]:
    names: dict[str, str] = {}
    for name in [*(t.subject for t in triples), *(t.object for t in triples)]:
        clean = " ".join(name.split())
        if 2 <= len(clean) <= 60 and len(clean.split()) <= 4:
            names.setdefault(normalize_name(clean), clean)
    return list(names.values())[:MAX_CONCEPTS]
