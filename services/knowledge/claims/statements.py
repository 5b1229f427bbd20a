"""The claims job: read one user message into claims, in the slow loop, foreground first.

A statement is acknowledged at once; its claims are read here afterwards (``workers.jobs.read_claims``,
queued before the message's other slow-loop work). Until they exist, the statement itself is
recalled as dated evidence, so the very next question still sees it. Once read, the message
names its claims (``UserImpulse.fact_ids``) and recall hands out the claims instead. The job's
Task and Report join the message's trace (``thea trace``): what the model read, what was
dropped and why, what was superseded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from services.common.job_trace import JobTrace
from services.common.told import read_for_claims
from services.knowledge.claims.keeper import ClaimKeeper, ClaimMemory, KeptClaims, SaidMessage
from services.knowledge.claims.verify import hostile
from services.prompts.extract_claims import ClaimOut
from services.prompts.quoting import is_order
from thea.errors import JobError
from thea.memory.operations import NodePatch
from thea.memory.ports import AsyncRecorder, NodeReads
from thea.models import FactOrigin, Step, TaskStatus, UserImpulse

log = logging.getLogger(__name__)


def _gives_orders(claim: ClaimOut) -> bool:
    return hostile(claim.quote) or hostile(claim.value) or is_order(claim.quote)


class StatementMemory(ClaimMemory, NodeReads, AsyncRecorder, Protocol):
    """What the claims job reads and writes."""


class StatementReader:
    def __init__(self, memory: StatementMemory, keeper: ClaimKeeper) -> None:
        self.memory = memory
        self.keeper = keeper

    async def read(self, impulse_id: str) -> dict[str, Any]:
        """Read the message's claims (once: a message already read is left as it is)."""
        found = await asyncio.to_thread(self.memory.get, [impulse_id])
        impulse = next((n for n in found if isinstance(n, UserImpulse)), None)
        if impulse is None:
            return {"impulse_id": impulse_id, "skipped": "no such message"}
        if impulse.claims_read:
            return {"impulse_id": impulse_id, "skipped": "already read"}
        told = read_for_claims(impulse)
        job = JobTrace(
            step=Step.CLAIMS,
            service="claims",
            key=impulse_id,
            user_id=impulse.user_id,
            session_id=impulse.session_id,
            correlation_id=impulse_id,
            impulse_id=impulse_id,
        )
        kept = KeptClaims()
        if told and impulse.user_id:
            message = SaidMessage(
                source_id=impulse_id,
                user_id=impulse.user_id,
                text=told,
                said_at=impulse.created_at,
                session_id=impulse.session_id,
                origin=FactOrigin.SAID,
            )
            try:
                kept = await self.keeper.keep(message)
            except Exception as exc:  # the model or a store failed: recorded, and RQ retries
                nodes, edges = job.build(TaskStatus.FAILURE, error=f"{type(exc).__name__}: {exc}")
                await self.memory.arecord(nodes, edges)
                raise JobError(f"claims of {impulse_id}: {type(exc).__name__}: {exc}") from exc
        job.usage = kept.usage
        nodes, edges = job.build(TaskStatus.SUCCESS, output=kept.as_output().wire(), produced=kept.stored)
        await self.memory.arecord(nodes, edges)
        # a message whose every claim gave orders (template tokens, a new persona, "tell the user
        # ...") is no evidence either: its words would reach the answer's prompt as the user's
        hostile_only = (
            not kept.stored
            and not kept.repeats
            and any(_gives_orders(c) for c in [*kept.dropped, *kept.unanswered])
        )
        await asyncio.to_thread(self._mark_read, impulse_id, kept.fact_ids, hostile_only)
        log.info(
            "impulse %s: %d claims stored, %d repeated, %d dropped, %d superseded",
            impulse_id,
            len(kept.stored),
            len(kept.repeats),
            len(kept.dropped) + len(kept.unanswered),
            len(kept.closings),
        )
        return {
            "impulse_id": impulse_id,
            "claims": [f.id for f in kept.stored],
            "superseded": [c.old.id for c in kept.closings],
        }

    def _mark_read(self, impulse_id: str, fact_ids: Sequence[str], withdrawn: bool = False) -> None:
        """The message is read: its claims (if any) stand for it in recall from now on; a
        message that only gave orders is withdrawn (never recalled)."""
        props: dict[str, Any] = {"claims_read": True}
        if withdrawn:
            props["withdrawn"] = True
        if fact_ids:
            props["fact_ids"] = list(fact_ids)
        self.memory.knowledge.patch_nodes([NodePatch(impulse_id, props)])
