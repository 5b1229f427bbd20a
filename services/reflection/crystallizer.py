"""Crystallization: one finished cycle becomes a weak insight with typed triples.

Reads the experience island of an impulse (the impulse, its final answer and its
concepts), asks the model for a compact insight, tags and typed triples, adds any
plain notation found in the user's text (``A -> B``, ``A::B``, ``a~b~c``), and
records a KnowledgeCrystal (strength 1, active) linked to its concepts and source
impulse, the triples as concept relations with provenance, and the job's own
Task/Report under the impulse's correlation id so it shows in the trace.

Grounded (issue 13): a message that tells nothing (a question, a request, a greeting) yields no
insight; concepts, triple ends and tags are kept only when their words occur in what the user
said or in the memories the answer recalled (never the answer itself: the model may have
invented it); prompt examples and relation names never become tags. The insight carries its
evidence (source ids with quoted spans) and a groundedness verdict (services/reflection/grounding.py): an
insight its evidence does not support is stored ``unverified``, inactive (not recalled), with
the reason, until ``!good`` or later evidence promotes it.

Idempotent: the crystal id derives from the impulse id, and an impulse that
already has its crystal is left alone (a rerun must not revive a merged insight).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from langchain_core.language_models import BaseChatModel

from services.common.job_trace import JobTrace
from services.common.limits import MAX_CONCEPT_CHARS, MAX_CRYSTAL_CONCEPTS
from services.common.llm_calls import ask_structured
from services.common.notation import Triple, parse_notation
from services.common.restate import restate
from services.common.tokens import clip_for_prompt
from services.common.told import statements_of
from services.prompts import crystallize as prompt
from services.reflection.grounding import Sources, check_claims, evidence_strength, proof_count
from services.reflection.revision import Item, RevisionOutcome, RevisionRequest, revise_insights
from services.reflection.verification import verify_with_model
from services.views.trace import load_trace
from thea.errors import JobError
from thea.memory.ports import CrystallizerMemory
from thea.models import (
    Concept,
    Edge,
    EdgeType,
    Fact,
    FinalResponse,
    KnowledgeCrystal,
    Node,
    NodeType,
    Revision,
    Step,
    TaskStatus,
    UserImpulse,
    is_evidence,
    normalize_name,
    now_ms,
    relation,
    stable_id,
)
from thea.tuning import MAX_INSIGHT_CHARS, MAX_RECALLED_SOURCES, GroundingTuning
from thea.words import terms

log = logging.getLogger(__name__)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def compact(text: str, limit: int = MAX_INSIGHT_CHARS) -> str:
    """Whole leading sentences up to ``limit`` characters: small models ramble on."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    out = ""
    for sentence in _SENTENCE_END.split(text):
        if out and len(out) + 1 + len(sentence) > limit:
            break
        out = f"{out} {sentence}".strip()
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def crystal_id(impulse_id: str) -> str:
    return stable_id("crystal", impulse_id)


def stated_id(impulse_id: str) -> str:
    """The grounded insight restating the user's own sentences (when the model's was unsupported)."""
    return stable_id("stated", impulse_id)


def concept_links(insight_id: str, concepts: Mapping[str, Node]) -> list[Edge]:
    """An insight's INSIGHT_FROM_CONCEPT edges, one per concept (a concept kept under two
    spellings is linked once)."""
    unique = {c.id: c for c in concepts.values()}
    return [Edge(src=insight_id, dst=cid, type=EdgeType.INSIGHT_FROM_CONCEPT) for cid in unique]


def triple_relations(
    triples: Sequence[Triple], by_norm: Mapping[str, Node], *, source: str, user_id: str | None
) -> list[Edge]:
    """The typed concept relations the triples assert, with ``source`` as provenance: only
    triples whose both ends are known concepts (by normalised name), never a self-loop."""
    edges: list[Edge] = []
    for t in triples:
        src, dst = by_norm.get(normalize_name(t.subject)), by_norm.get(normalize_name(t.object))
        if src is None or dst is None or src.id == dst.id:
            continue
        edges.append(
            relation(src.id, t.predicate, dst.id, confidence=t.confidence, source=source, user_id=user_id)
        )
    return edges


@dataclass
class CrystallizeOutcome:
    impulse_id: str
    crystal_id: str
    created: bool
    concepts: list[str] = field(default_factory=list)
    triples: int = 0
    #: why no insight was made (a message that tells nothing)
    skipped: str = ""
    verification: str = ""
    #: the grounded insight stored from the user's own sentences beside an unsupported one
    stated_id: str = ""
    #: older insights this message promoted, weakened or superseded (services/reflection/revision.py)
    revised: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class _Reading:
    """What crystallizing one message starts from."""

    impulse: UserImpulse
    response: FinalResponse | None
    #: the names of the concepts the message already links
    known: list[str]
    job: JobTrace
    #: what the message told ("" when nothing)
    told: str

    @property
    def user_id(self) -> str | None:
        return self.impulse.user_id


@dataclass
class _Drafted:
    """The crystal before it is stored, with what it links."""

    crystal: KnowledgeCrystal
    #: the user's own words, kept when the model's insight was unsupported
    stated: KnowledgeCrystal | None
    concepts: Mapping[str, Concept]
    #: the concept relations the message's grounded triples assert
    asserted: list[Edge]
    #: facts the message told that newer ones already replaced
    replaced: list[Fact]


class Crystallizer:
    def __init__(
        self,
        memory: CrystallizerMemory,
        llm: BaseChatModel,
        timeout_s: float = 120.0,
        prompt_tokens: int | None = None,
        verify: bool = False,
        grounding: GroundingTuning | None = None,
    ) -> None:
        self.memory = memory
        #: when a claim counts as supported (settings: tuning.grounding)
        self.grounding = grounding or GroundingTuning()
        self.llm = llm
        self.timeout_s = timeout_s
        self.prompt_tokens = prompt_tokens
        #: ask the model whether the evidence supports each claim (services/reflection/verification.py)
        self.verify = verify

    async def crystallize(self, impulse_id: str) -> CrystallizeOutcome:
        cid = crystal_id(impulse_id)
        if await asyncio.to_thread(self.memory.get, [cid]):
            log.info("impulse %s: already crystallized as %s", impulse_id, cid)
            return CrystallizeOutcome(impulse_id, cid, created=False)
        read = await self._read(impulse_id)
        if not read.told:
            outcome = CrystallizeOutcome(impulse_id, cid, False, skipped="the message tells nothing new")
            nodes, job_edges = read.job.build(TaskStatus.SUCCESS, output=outcome.as_dict())
            await self.memory.arecord(nodes, job_edges)
            log.info("impulse %s: nothing to crystallize (it tells nothing new)", impulse_id)
            return outcome
        sources = await asyncio.to_thread(self._sources, read.impulse, read.response)
        out = await self._ask_model(read)
        drafted = await self._draft(read, out, sources)
        outcome = await self._store(read, drafted)
        if read.user_id:  # what this message says may support or contradict older insights
            outcome.revised = (await self._revise(read, drafted, sources)).as_dict()
        log.info(
            "impulse %s: crystal %s (%s) with %d concepts, %d triples%s",
            impulse_id,
            cid,
            drafted.crystal.verification,
            len(drafted.concepts),
            len(drafted.asserted),
            f"; stored the user's own words as {drafted.stated.id}" if drafted.stated else "",
        )
        return outcome

    async def _read(self, impulse_id: str) -> _Reading:
        """The message, its answer, the concepts it already links and what it told."""
        trace = await asyncio.to_thread(load_trace, self.memory, impulse_id)
        impulse = trace.impulse
        response = next((o for s in trace.steps for o in s.outputs if isinstance(o, FinalResponse)), None)
        user_id = impulse.user_id
        island = await asyncio.to_thread(
            lambda: self.memory.neighbourhood(impulse_id, 1, [EdgeType.CONTAINS_CONCEPT], user_id=user_id)
        )
        job = JobTrace(
            step=Step.CRYSTALLIZE,
            service="crystallizer",
            key=impulse_id,
            user_id=impulse.user_id,
            session_id=impulse.session_id,
            correlation_id=impulse_id,
            impulse_id=impulse_id,
        )
        return _Reading(
            impulse=impulse,
            response=response,
            known=[n.content for n in island.nodes if n.type is NodeType.CONCEPT],
            job=job,
            told=statements_of(impulse),
        )

    async def _ask_model(self, read: _Reading) -> prompt.CrystalOutput:
        """The model's insight, triples, tags and seed; a failure is recorded and raised (RQ retries)."""
        try:
            out, read.job.usage = await ask_structured(
                self.llm,
                prompt.CrystalOutput,
                prompt.build(clip_for_prompt(read.told, self.prompt_tokens), read.known),
                prompt.PROMPT,
                timeout_s=self.timeout_s,
            )
        except Exception as exc:  # any model/transport error: record it, let RQ retry
            nodes, edges = read.job.build(TaskStatus.FAILURE, error=f"{type(exc).__name__}: {exc}")
            await self.memory.arecord(nodes, edges)
            raise JobError(
                f"crystallize {read.impulse.id}: the model failed ({type(exc).__name__}: {exc})"
            ) from exc
        return out

    async def _draft(self, read: _Reading, out: prompt.CrystalOutput, sources: Sources) -> _Drafted:
        """The crystal (and the user's own words when the model's insight is unsupported), its
        concepts and the relations its grounded triples assert."""
        impulse, user_id = read.impulse, read.user_id
        # the ends are spelled as the user wrote them ("CACHING" -> "Caching")
        modelled = [
            Triple(
                sources.spelled(t.subject),
                EdgeType.parse(t.predicate),
                sources.spelled(t.object),
                t.confidence,
            )
            for t in out.triples
        ]
        # the model's triples count only when both ends are the user's (or memory's) words
        triples = [
            t
            for t in modelled
            if sources.grounds(t.subject) and sources.grounds(t.object) and not _same(t.subject, t.object)
        ] + parse_notation(impulse.content)
        known = [k for k in read.known if sources.grounds(k)]
        names = _concept_names(known, triples) if user_id else []
        concepts = (
            await asyncio.to_thread(self.memory.get_or_create_concepts, names, user_id) if user_id else {}
        )
        # triples may spell a concept differently from the name kept for it ("redis" / "Redis")
        by_norm = {normalize_name(k): v for k, v in concepts.items()}
        content = compact(without_thea_words(out.insight)) or restate(read.told)
        verdict = await asyncio.to_thread(
            check_claims, content, sources, self.memory.recall_port, self.grounding
        )
        if self.verify:  # a strong model's judgement: only ever stricter
            verdict = await verify_with_model(self.llm, verdict, timeout_s=self.timeout_s)
        proofs = proof_count(verdict.evidence, verdict.claims)
        tags = [t.strip().lower() for t in out.tags if t.strip() and sources.grounds(t)]
        tags = list(dict.fromkeys(tags or [c.content.lower() for c in concepts.values()]))[:6]
        seed = ", ".join(w for w in (p.strip() for p in out.seed.split(",")) if w and sources.grounds(w))
        replaced = await asyncio.to_thread(self._replaced_facts, impulse)
        crystal = KnowledgeCrystal(
            id=crystal_id(impulse.id),
            content=content,
            seed=seed,
            tags=tags,
            strength=evidence_strength(proofs),
            active=verdict.supported,
            evidence=verdict.evidence,
            proofs=proofs,
            verification="supported" if verdict.supported else "unverified",
            support=verdict.support,
            verification_reason=verdict.reason,
            claims=verdict.claims,
            revisions=_superseded_revisions(replaced),
            valid_until=replaced[0].valid_until if replaced else None,
            source_impulse_id=impulse.id,
            user_id=impulse.user_id,
            session_id=impulse.session_id,
            correlation_id=impulse.id,
        )
        stated = (
            None if verdict.supported else await asyncio.to_thread(self._stated, crystal, impulse, sources)
        )
        asserted = triple_relations(triples, by_norm, source=crystal.id, user_id=user_id)
        return _Drafted(crystal, stated, concepts, asserted, replaced)

    async def _store(self, read: _Reading, drafted: _Drafted) -> CrystallizeOutcome:
        """Record the crystal, its links and the job's trace (as history when the message's
        facts were replaced or withdrawn meanwhile)."""
        impulse_id = read.impulse.id
        crystal, stated, concepts = drafted.crystal, drafted.stated, drafted.concepts
        edges = []
        for node in (crystal, stated):
            if node is None:
                continue
            edges.append(Edge(src=node.id, dst=impulse_id, type=EdgeType.DERIVED_FROM))
            edges += concept_links(node.id, concepts)
        for edge in drafted.asserted:
            edges.append(edge)
            edges.append(Edge(src=impulse_id, dst=edge.src, type=EdgeType.CONTAINS_CONCEPT))
            edges.append(Edge(src=impulse_id, dst=edge.dst, type=EdgeType.CONTAINS_CONCEPT))
        outcome = CrystallizeOutcome(
            impulse_id,
            crystal.id,
            True,
            sorted(c.content for c in concepts.values()),
            len(drafted.asserted),
            verification=crystal.verification,
            stated_id=stated.id if stated else "",
        )
        produced = [crystal] if stated is None else [crystal, stated]
        # a newer fact already replaced what this message told, or the user withdrew it: history
        withdrawn = bool(drafted.replaced) or await asyncio.to_thread(self._withdrawn, read.impulse)
        if withdrawn:
            produced = [k.model_copy(update={"active": False}) for k in produced]
        nodes, job_edges = read.job.build(TaskStatus.SUCCESS, output=outcome.as_dict(), produced=produced)
        await self.memory.arecord([*produced, *nodes], edges + job_edges)
        return outcome

    async def _revise(self, read: _Reading, drafted: _Drafted, sources: Sources) -> RevisionOutcome:
        """Older insights this message supports or contradicts (services/reflection/revision.py)."""
        impulse, crystal, stated = read.impulse, drafted.crystal, drafted.stated
        request = RevisionRequest(
            read.user_id or "",
            [Item(impulse.id, impulse.type.value, impulse.content)],
            concept_ids=[c.id for c in drafted.concepts.values()],
            by=stated.id if stated else (crystal.id if crystal.verification == "supported" else impulse.id),
            exclude=[crystal.id, stated_id(impulse.id)],
            speaker_words=sources.speaker_words,
            grounding=self.grounding,
        )
        return await asyncio.to_thread(revise_insights, self.memory, request)

    def _stated(
        self, crystal: KnowledgeCrystal, impulse: UserImpulse, sources: Sources
    ) -> KnowledgeCrystal | None:
        """The user's telling sentences restated ("The user's name is Priya Ramanathan."), with
        those sentences as evidence: what is remembered when the model's insight was unsupported."""
        content = restate(statements_of(impulse))
        if not content:
            return None
        own = Sources(sources.items[:1], sources.speaker_words)  # the user's message only
        verdict = check_claims(content, own, self.memory.recall_port, self.grounding)
        if not verdict.supported:  # cannot happen for a faithful restatement; never store a doubt
            log.warning("impulse %s: restated statement not supported (%s)", impulse.id, verdict.reason)
            return None
        return crystal.model_copy(
            update={
                "id": stated_id(impulse.id),
                "content": content,
                "active": True,
                "evidence": verdict.evidence,
                "proofs": proof_count(verdict.evidence, verdict.claims),
                "strength": evidence_strength(proof_count(verdict.evidence, verdict.claims)),
                "verification": "supported",
                "support": verdict.support,
                "verification_reason": "",
                "claims": verdict.claims,
            }
        )

    def _replaced_facts(self, impulse: UserImpulse) -> list[Fact]:
        """The facts this message told that newer facts already replaced."""
        if not impulse.fact_ids:
            return []
        found = self.memory.get(impulse.fact_ids)
        return [f for f in found if isinstance(f, Fact) and f.superseded_by]

    def _withdrawn(self, impulse: UserImpulse) -> bool:
        """Whether the user deleted (``thea memories forget``) or outdated a fact this message told
        before it was crystallized, or its reading found only orders in it (it is no evidence):
        the insight would state it again."""
        if impulse.withdrawn:
            return True
        if not impulse.fact_ids:
            return False
        found = {f.id: f for f in self.memory.get(impulse.fact_ids) if isinstance(f, Fact)}
        return any(
            i not in found
            or (found[i].valid_until is not None and not found[i].superseded_by and found[i].change != "end")
            for i in impulse.fact_ids
        )

    def _sources(self, impulse: UserImpulse, response: FinalResponse | None) -> Sources:
        """What the insight may rest on: the user's statements and the evidence its answer
        recalled (never thea's own answers, never the user's questions)."""
        items = [(impulse.id, impulse.type.value, statements_of(impulse) or impulse.content)]
        if response is not None and response.recalled_ids:
            recalled = self.memory.get(response.recalled_ids[:MAX_RECALLED_SOURCES])
            items += [
                (n.id, n.type.value, n.content)
                for n in recalled
                if n.user_id == impulse.user_id
                and is_evidence(n.to_props())
                and n.holds(now_ms())
                # a fact this very message told is the message again, not a second proof
                and getattr(n, "source_message_id", None) != impulse.id
            ]
        speaker = frozenset(terms(impulse.user_id or ""))
        return Sources(items, speaker)


#: sentences an assistant says of itself ("I'll remember that.", "Noted: ..."): never part of an insight
_THEA_WORDS = re.compile(
    r"^\W*(?:noted\b|i'll remember|i will remember|i have noted|i've noted|got it\b|thanks? (?:you )?for)",
    re.I,
)


def without_thea_words(text: str) -> str:
    """An insight's text without sentences in which the assistant speaks of itself."""
    kept = [s for s in _SENTENCE_END.split(" ".join(text.split())) if s and not _THEA_WORDS.match(s)]
    return " ".join(kept)


def _superseded_revisions(replaced: Sequence[Fact]) -> list[Revision]:
    if not replaced:
        return []
    reason = "; ".join(f"{f.content!r} was replaced" for f in replaced)[:400]
    evidence = sorted({f.superseded_by for f in replaced if f.superseded_by})
    return [
        Revision(kind="superseded", at=replaced[0].valid_until or now_ms(), reason=reason, evidence=evidence)
    ]


def _same(a: str, b: str) -> bool:
    return normalize_name(a) == normalize_name(b)


def _concept_names(known: list[str], triples: list[Triple]) -> list[str]:
    """The concepts a crystal links: the impulse's known ones first, then both ends of each
    triple in turn while they fit ``MAX_CRYSTAL_CONCEPTS`` (so the kept triples keep both ends)."""
    names: dict[str, str] = {}

    def usable(name: str) -> tuple[str, str] | None:
        clean = " ".join(name.split())
        ok = 2 <= len(clean) <= MAX_CONCEPT_CHARS and len(clean.split()) <= 4
        return (normalize_name(clean), clean) if ok else None

    for name in known:
        found = usable(name)
        if found and found[0] not in names and len(names) < MAX_CRYSTAL_CONCEPTS:
            names[found[0]] = found[1]
    for t in triples:
        ends = [usable(t.subject), usable(t.object)]
        new = dict(e for e in ends if e is not None and e[0] not in names)
        if None not in ends and len(names) + len(new) <= MAX_CRYSTAL_CONCEPTS:
            names.update(new)
    return list(names.values())
