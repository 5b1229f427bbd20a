"""Deep reflection: merge a user's active insights about the same concepts.

For each group of 2+ insights (same concept pair, or near-duplicates by embedding)
one generalised insight is written with the union of the sources' evidence and a strength
from its distinct proofs (:func:`_carry_evidence`), MERGED_FROM
edges to every source, and the sources archived (active=false, kept for lineage).

Safety:
* a per-user lock (held across processes; see ``workers.locks``) serialises
  reflections, and
* the merge itself is a conditional, atomic graph write (``claim_merges``): a group
  is applied only if all its sources are still active. Merged ids derive from the
  source ids, so a retried or racing reflection converges on the same node.
The claim also creates the merged insight, so a reflection interrupted before it
wrote nothing and one interrupted after it left a consistent graph (embeddings of
the merged insight are then re-derived by ``thea memory repair``): no insight is
ever both active and merged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from services.common.job_trace import JobTrace
from services.common.llm_calls import ask_text
from services.prompts import reflect as prompt
from services.reflection.grounding import Sources, check_claims, evidence_strength, proof_count
from services.reflection.grouping import Candidate, Group, group_by_concepts, group_near_duplicates
from thea.errors import LLMError
from thea.memory.operations import MergeClaim
from thea.memory.ports import ReflectionMemory
from thea.models import (
    Collection,
    Edge,
    EdgeType,
    Evidence,
    KnowledgeCrystal,
    Step,
    TaskStatus,
    VectorFilter,
    now_ms,
    stable_id,
)
from thea.tuning import GroundingTuning
from thea.words import terms

log = logging.getLogger(__name__)

LockFactory = Callable[[str], AbstractContextManager[object]]


@dataclass
class ReflectionConfig:
    page_size: int = 5000
    max_group: int = 20
    #: cosine similarity above which two insights count as near-duplicates (None: off)
    dedup_similarity: float | None = 0.9
    #: at most this many ungrouped insights are checked for near-duplicates per run
    dedup_limit: int = 2000
    claim_batch: int = 200


@dataclass
class ReflectionReport:
    user_id: str
    insights: int = 0
    groups_found: int = 0
    merged: int = 0
    skipped: int = 0
    archived: int = 0
    errors: list[str] = field(default_factory=list)
    merged_ids: list[str] = field(default_factory=list)
    duration_ms: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)

    def summary(self) -> str:
        text = (
            f"reflection: {self.insights} active insights, {self.groups_found} groups, "
            f"{self.merged} merged, {self.skipped} skipped, {self.archived} archived"
        )
        if self.errors:
            text += f", {len(self.errors)} errors (first: {self.errors[0]})"
        return text


def _carry_evidence(merged: KnowledgeCrystal, sources: list[KnowledgeCrystal]) -> None:
    """A merge keeps the union of its sources' evidence (a source without evidence counts by its
    impulse, or as a source of its own when it has none) and its strength is the distinct proofs
    of that union, not the sum of the sources' strengths: two insights the model wrote from the
    same message are one proof. What feedback added to a source (its strength above its own
    proofs) is kept, the largest such bonus once."""
    evidence: dict[str, Evidence] = {}
    unknown = 0  # sources written before insights carried evidence, without an impulse
    for source in sources:
        cited = source.evidence or (
            [Evidence(source_id=source.source_impulse_id, kind="UserImpulse", quote=source.content[:240])]
            if source.source_impulse_id
            else []
        )
        unknown += 0 if cited else 1
        for item in cited:
            evidence.setdefault(item.source_id, item)
    merged.evidence = list(evidence.values())
    merged.proofs = proof_count(merged.evidence) + unknown
    bonus = max((s.strength - evidence_strength(s.proofs) for s in sources), default=0.0)
    merged.strength = round(max(0.1, evidence_strength(merged.proofs) + bonus), 3)
    checked = [s for s in sources if s.verification in ("supported", "promoted")]
    merged.verification = "supported" if checked and len(checked) == len(sources) else "unchecked"
    merged.support = min((s.support for s in checked), default=0.0)


def merged_id(source_ids: list[str]) -> str:
    return stable_id("merge", *sorted(source_ids))


@contextlib.contextmanager
def _no_lock(_: str) -> Iterator[None]:
    yield None


class Reflector:
    def __init__(
        self,
        memory: ReflectionMemory,
        llm: BaseChatModel | None,
        *,
        lock: LockFactory | None = None,
        config: ReflectionConfig | None = None,
        timeout_s: float = 120.0,
        grounding: GroundingTuning | None = None,
    ) -> None:
        self.memory = memory
        #: when a merged insight's claims count as supported (settings: tuning.grounding)
        self.grounding = grounding or GroundingTuning()
        self.llm = llm
        self.lock = lock or _no_lock
        self.config = config or ReflectionConfig()
        self.timeout_s = timeout_s

    async def reflect(self, user_id: str, request_id: str | None = None) -> ReflectionReport:
        started = time.perf_counter()
        request_id = request_id or f"{user_id}-{now_ms()}"
        with self.lock(user_id):
            report = await self._reflect_locked(user_id, request_id)
        report.duration_ms = (time.perf_counter() - started) * 1000
        log.info("reflect %s: %s", request_id, report.summary())
        return report

    async def _reflect_locked(self, user_id: str, request_id: str) -> ReflectionReport:
        job = JobTrace(
            step=Step.REFLECT, service="reflector", key=request_id, user_id=user_id, correlation_id=request_id
        )
        candidates = await asyncio.to_thread(self.load_candidates, user_id)
        report = ReflectionReport(user_id=user_id, insights=len(candidates))
        groups = group_by_concepts(candidates, self.config.max_group)
        grouped = {i for g in groups for i in g.ids}
        rest = [c for c in candidates if c.id not in grouped]
        groups += await asyncio.to_thread(self._near_duplicates, user_id, rest)
        report.groups_found = len(groups)
        produced: list[KnowledgeCrystal] = []
        for start in range(0, len(groups), self.config.claim_batch):
            batch = groups[start : start + self.config.claim_batch]
            ids = list(dict.fromkeys(c for g in batch for m in g.members for c in m.concepts))
            names = {n.id: n.content for n in await asyncio.to_thread(self.memory.get, ids)} if ids else {}
            sources = await asyncio.to_thread(self._sources_of, batch)
            merged = [await self._synthesise(g, user_id, names, report) for g in batch]
            for group, insight in zip(batch, merged, strict=True):
                members = [sources[i] for i in group.ids if i in sources]
                _carry_evidence(insight, members)
                await asyncio.to_thread(self._ground_merge, insight, members, user_id)
            claimed = await asyncio.to_thread(self._apply, batch, merged, report)
            produced += [m for m in merged if m.id in claimed]
        nodes, edges = job.build(TaskStatus.SUCCESS, output=report.as_dict(), produced=produced)
        await self.memory.arecord(nodes, edges)
        return report

    def load_candidates(self, user_id: str) -> list[Candidate]:
        out: list[Candidate] = []
        after = ""
        while True:
            rows = self.memory.reflection.candidates(user_id, after, self.config.page_size)
            out += [Candidate(r.id, r.content, r.strength, r.concepts) for r in rows]
            if len(rows) < self.config.page_size:
                return out
            after = rows[-1].id

    def _ground_merge(self, merged: KnowledgeCrystal, sources: list[KnowledgeCrystal], user_id: str) -> None:
        """Check the merged text claim by claim against the union of its sources' evidence; a
        synthesis that adds to it is replaced by the sources' own (checked) texts. Sources
        written before insights carried evidence leave the merge unchecked."""
        if merged.verification != "supported" or not merged.evidence:
            return
        items = [(e.source_id, e.kind, e.quote) for e in merged.evidence]
        speaker = frozenset(terms(user_id))
        verdict = check_claims(
            merged.content, Sources(items, speaker), self.memory.recall_port, self.grounding
        )
        if not verdict.supported:
            log.info(
                "merge %s: synthesis unsupported (%s); kept the sources' texts", merged.id, verdict.reason
            )
            merged.content = " ".join(dict.fromkeys(s.content for s in sources))[:600]
            verdict = check_claims(
                merged.content, Sources(items, speaker), self.memory.recall_port, self.grounding
            )
        merged.claims = verdict.claims
        merged.support = verdict.support

    def _sources_of(self, groups: list[Group]) -> dict[str, KnowledgeCrystal]:
        ids = [i for g in groups for i in g.ids]
        return {n.id: n for n in self.memory.get(ids) if isinstance(n, KnowledgeCrystal)}

    def _near_duplicates(self, user_id: str, rest: list[Candidate]) -> list[Group]:
        bar = self.config.dedup_similarity
        if bar is None or len(rest) < 2:
            return []
        rest = rest[: self.config.dedup_limit]
        vectors = self.memory.recall_port.embed_documents([c.content or " " for c in rest])
        flt = VectorFilter(user_id=user_id, active=True)
        allowed = {c.id for c in rest}
        neighbours: dict[str, list[str]] = {}
        for cand, vector in zip(rest, vectors, strict=True):
            hits = self.memory.recall_port.nearest(Collection.INSIGHTS, vector, 5, flt, bar)
            neighbours[cand.id] = [h.id for h in hits if h.id in allowed and h.id != cand.id]
        return group_near_duplicates(rest, neighbours, self.config.max_group)

    async def _synthesise(
        self, group: Group, user_id: str, concept_names: dict[str, str], report: ReflectionReport
    ) -> KnowledgeCrystal:
        ranked = sorted(group.members, key=lambda m: -m.strength)
        texts = [m.content for m in ranked]
        concepts = list(dict.fromkeys(c for m in group.members for c in m.concepts))
        names = [concept_names[c] for c in concepts if c in concept_names]
        text = ""
        if self.llm is not None:
            try:
                text, _ = await ask_text(
                    self.llm,
                    prompt.build([(m.id, m.content) for m in ranked], names),
                    prompt.PROMPT,
                    timeout_s=self.timeout_s,
                )
            except LLMError as exc:
                report.errors.append(f"group {group.key}: {exc}; kept the source texts")
        text = " ".join(text.split())
        if len(text) < 3:
            text = " / ".join(dict.fromkeys(texts))[:600]
        return KnowledgeCrystal(
            id=merged_id(group.ids),
            content=text,
            seed=", ".join(names[:6]),
            strength=group.strength,
            user_id=user_id,
        )

    def _apply(
        self, groups: list[Group], merged: list[KnowledgeCrystal], report: ReflectionReport
    ) -> set[str]:
        claims = [MergeClaim(m, tuple(g.ids)) for g, m in zip(groups, merged, strict=True)]
        claimed = self.memory.reflection.claim_merges(claims, now_ms())
        report.merged += len(claimed)
        report.skipped += len(groups) - len(claimed)
        report.merged_ids += sorted(claimed)
        won = [(g, m) for g, m in zip(groups, merged, strict=True) if m.id in claimed]
        if not won:
            return claimed
        sources = [s.id for g, _ in won for s in g.members]
        report.archived += len(sources)
        concept_edges = [
            Edge(src=m.id, dst=c, type=EdgeType.INSIGHT_FROM_CONCEPT)
            for g, m in won
            for c in dict.fromkeys(c for s in g.members for c in s.concepts)
        ]
        # graph already holds the merge; this adds concepts, embeddings and the log entry
        self.memory.record([m for _, m in won], concept_edges)
        self.memory.set_vector_active(Collection.INSIGHTS, sources, False)
        return claimed
