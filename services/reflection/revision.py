"""Truth maintenance: later evidence promotes unverified insights and weakens contradicted ones.

Run after every crystallization (the user's new message is the evidence) and every ``!fact``
(the fact is). Bounded: only insights linked to concepts the new evidence names (the
crystal's concepts, plus the user's concepts found in the text by indexed name lookups) are
read, at most :data:`MAX_CANDIDATES` of them, plus the :data:`NEAREST` insights closest in
meaning (vector index; "My name is Anna." names no concept of "The user's name is Priya.").

* **Promotion.** An ``unverified`` insight whose claims pass the groundedness check
  (services/reflection/grounding.py) against its old evidence *plus* the new evidence becomes active,
  ``promoted``, with the new evidence appended and a :class:`~thea.models.Revision`
  recording when, why and which memory brought the evidence.
* **Contradiction.** An insight the new evidence contradicts (services/knowledge/contradiction.py: the
  same attribute with another value, or opposite polarity on the same topic) loses
  confidence: :data:`STRONG_DROP` for a single-valued attribute (a name, an age, an
  employer), :data:`STEP` otherwise. Below :data:`SUPERSEDE_BELOW` it is superseded like a
  fact: ``valid_until``, inactive (not recalled), a SUPERSEDES edge from the newer memory,
  and the concept relations it asserted closed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from services.common.restate import restate_sentence
from services.common.statements import sentences
from services.knowledge.contradiction import conflicting_attribute, heuristic_verdict
from services.reflection.grounding import (
    Sources,
    check_claims,
    cosine_similarity,
    evidence_strength,
    proof_count,
)
from thea.memory.ports import InsightRevisionSource
from thea.models import (
    Collection,
    Edge,
    EdgeType,
    Fact,
    KnowledgeCrystal,
    Revision,
    VectorFilter,
    now_ms,
)
from thea.tuning import GroundingTuning

log = logging.getLogger(__name__)

MAX_CANDIDATES = 20
#: nearest insights by meaning also checked (they may share no concept: "my name is ...")
NEAREST = 8
NEAR = 0.3
STEP = 0.15
STRONG_DROP = 0.3
SUPERSEDE_BELOW = 0.3
#: attributes a person has one value of at a time ("my name is X" replaces "my name is Y")
SINGLE_VALUED = frozenset(
    {"name", "full name", "first name", "last name", "surname", "age", "birthday", "email", "phone",
     "address", "employer", "job", "job title", "title", "role", "nationality", "hometown",
     "husband", "wife", "partner", "boss", "manager", "favourite colour", "favorite color"}
)  # fmt: skip


#: one piece of new evidence: (memory id, node type, text)
class Item(NamedTuple):
    """One piece of new evidence: the memory's id, its node type and its text."""

    id: str
    type: str
    text: str


@dataclass
class RevisionOutcome:
    promoted: list[str] = field(default_factory=list)
    weakened: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        return {"promoted": self.promoted, "weakened": self.weakened, "superseded": self.superseded}


def _quote(items: Sequence[Item]) -> str:
    return "; ".join(f'{kind} {sid[:8]} "{" ".join(text.split())[:120]}"' for sid, kind, text in items)


def _contradiction(
    insight: KnowledgeCrystal, items: Sequence[Item], spans: list[tuple[str, list[float]]],
    vectors: dict[str, list[float]],
) -> tuple[float, str] | None:  # fmt: skip
    """(confidence drop, reason) when the new evidence contradicts the insight. ``spans`` are the
    evidence sentences with their vectors, ``vectors`` the insights' claims'."""
    for _, _, text in items:
        found = conflicting_attribute(insight.content, text)
        if found:
            old, new = found
            drop = STRONG_DROP if old.attribute in SINGLE_VALUED else STEP
            return drop, f"contradicted: {old.subject}'s {old.attribute} is {new.value!r}, not {old.value!r}"
    for claim in sentences(insight.content):
        for span, span_vector in spans:
            similarity = cosine_similarity(vectors[claim], span_vector)
            if heuristic_verdict(claim, span, similarity) == "contradicts":
                return STEP, f"contradicted (opposite statement): {span[:120]!r}"
    return None


@dataclass(frozen=True)
class RevisionRequest:
    """New evidence about one user, and how to weigh it."""

    user_id: str
    items: Sequence[Item]
    #: the memory newer knowledge lives in (the SUPERSEDES edge starts there)
    by: str
    #: concepts the evidence is known to be about (a crystal's), beside those its text names
    concept_ids: Sequence[str] = ()
    #: insights left alone (e.g. the crystal that brought the evidence)
    exclude: Sequence[str] = ()
    speaker_words: frozenset[str] = frozenset()
    #: when an insight's claims count as supported
    grounding: GroundingTuning | None = None

    @property
    def evidence_ids(self) -> set[str]:
        return {sid for sid, _, _ in self.items}


@dataclass
class _Revised:
    """The insights changed so far, and the SUPERSEDES edges of those superseded."""

    changed: list[KnowledgeCrystal] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)


def revise_insights(memory: InsightRevisionSource, request: RevisionRequest) -> RevisionOutcome:
    """Promote or weaken the user's insights about what ``request.items`` (new evidence) talk
    about."""
    outcome = RevisionOutcome()
    if not request.user_id or not request.items:
        return outcome
    candidates = _candidates(memory, request)
    if not candidates:
        return outcome
    spans, claims = _embedded(memory, request.items, candidates)
    now = now_ms()
    revised = _Revised()
    for insight in candidates:
        contradiction = _contradiction(insight, request.items, spans, claims)
        if contradiction:
            _weaken(insight, contradiction, request, now, revised, outcome)
        elif insight.verification == "unverified":
            _promote(memory, insight, request, now, revised, outcome)
    if revised.changed:
        memory.record(revised.changed, revised.edges)
        memory.close_insight_relations(outcome.superseded, now)
        log.info("revised insights of %s by %s: %s", request.user_id, request.by, outcome.as_dict())
    return outcome


def _candidates(memory: InsightRevisionSource, request: RevisionRequest) -> list[KnowledgeCrystal]:
    """The user's insights the evidence may bear on: those about the concepts it names, and the
    nearest by meaning; not archived, not already resting on this evidence."""
    user_id, items, exclude = request.user_id, request.items, request.exclude
    named = [c.id for _, _, text in items for c in memory.concepts_named_in(text, user_id)]
    concepts = list(dict.fromkeys([*request.concept_ids, *named]))
    found = {k.id: k for k in memory.insights_about(concepts, user_id, exclude=exclude, limit=MAX_CANDIDATES)}
    # "my name is Anna" shares no concept with "The user's name is Priya": its nearest insights
    # (the vector index, restated in the third person as insights are written) are asked too
    restated = " ".join(restate_sentence(s) for _, _, text in items for s in sentences(text))
    flt = VectorFilter(user_id=user_id)
    hits = memory.search(restated, Collection.INSIGHTS, flt=flt, limit=NEAREST, score_threshold=NEAR)
    near = [h.id for h in hits if h.id not in found and h.id not in exclude]
    for node in memory.get(near) if near else []:
        if isinstance(node, KnowledgeCrystal) and node.valid_until is None:
            found[node.id] = node
    new_ids = request.evidence_ids
    return [
        k
        for k in found.values()
        # archived by a merge: its merged insight stands for it; already resting on this evidence
        if (k.active or k.verification == "unverified") and not new_ids & {e.source_id for e in k.evidence}
    ]


def _embedded(
    memory: InsightRevisionSource, items: Sequence[Item], candidates: Sequence[KnowledgeCrystal]
) -> tuple[list[tuple[str, list[float]]], dict[str, list[float]]]:
    """The evidence sentences and the candidates' claims with their vectors (one batch)."""
    spans = [s for _, _, text in items for s in sentences(text)]
    claims = list(dict.fromkeys(c for k in candidates for c in sentences(k.content)))
    embedded = memory.recall_port.embed_documents(spans + claims) if spans and claims else []
    span_vectors = list(zip(spans, embedded[: len(spans)], strict=True)) if embedded else []
    claim_vectors = dict(zip(claims, embedded[len(spans) :], strict=True)) if embedded else {}
    return span_vectors, claim_vectors


def _weaken(
    insight: KnowledgeCrystal,
    contradiction: tuple[float, str],
    request: RevisionRequest,
    now: int,
    revised: _Revised,
    outcome: RevisionOutcome,
) -> None:
    """A contradicted insight loses confidence; below SUPERSEDE_BELOW it is superseded."""
    drop, reason = contradiction
    confidence = round(max(0.0, insight.confidence - drop), 3)
    superseded = confidence < SUPERSEDE_BELOW
    revision = Revision(
        kind="superseded" if superseded else "weakened",
        at=now,
        reason=reason,
        evidence=sorted(request.evidence_ids),
    )
    update: dict[str, object] = {
        "confidence": confidence,
        "revisions": [*insight.revisions, revision],
    }
    if superseded:
        update.update(valid_until=now, active=False)
        revised.edges.append(Edge(src=request.by, dst=insight.id, type=EdgeType.SUPERSEDES))
        outcome.superseded.append(insight.id)
    else:
        outcome.weakened.append(insight.id)
    revised.changed.append(insight.model_copy(update=update))


def _promote(
    memory: InsightRevisionSource,
    insight: KnowledgeCrystal,
    request: RevisionRequest,
    now: int,
    revised: _Revised,
    outcome: RevisionOutcome,
) -> None:
    """An unverified insight whose claims the old and new evidence now support is promoted."""
    old = [(e.source_id, e.kind, e.quote) for e in insight.evidence]
    sources = Sources([*old, *request.items], request.speaker_words)
    verdict = check_claims(insight.content, sources, memory.recall_port, request.grounding)
    if not verdict.supported:
        return
    reason = f"supported by later evidence: {_quote(request.items)}"
    revision = Revision(kind="promoted", at=now, reason=reason, evidence=sorted(request.evidence_ids))
    evidence = verdict.evidence
    proofs = proof_count(evidence, verdict.claims)
    # strength follows the evidence; what feedback added or took stays
    bonus = insight.strength - evidence_strength(insight.proofs)
    revised.changed.append(
        insight.model_copy(
            update={
                "active": True,
                "verification": "promoted",
                "support": verdict.support,
                "verification_reason": "",
                "claims": verdict.claims,
                "evidence": evidence,
                "proofs": proofs,
                "strength": max(0.1, evidence_strength(proofs) + bonus),
                "revisions": [*insight.revisions, revision],
            }
        )
    )
    outcome.promoted.append(insight.id)


@dataclass(frozen=True)
class FactRevision:
    """What a told fact (``!fact``) does to the user's insights: the reviser
    :class:`services.knowledge.facts.FactKeeper` is given by the composition
    (thea/runtime/assembly.py), so the knowledge services never import reflection."""

    memory: InsightRevisionSource
    #: when an insight's claims count as supported
    grounding: GroundingTuning | None = None

    def __call__(self, user_id: str, fact: Fact) -> RevisionOutcome:
        request = RevisionRequest(
            # the user's own words (a claim's quote) are the evidence, not thea's line for it
            user_id,
            [Item(fact.id, fact.type.value, fact.quote or fact.content)],
            by=fact.id,
            grounding=self.grounding,
        )
        return revise_insights(self.memory, request)
