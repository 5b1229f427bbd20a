"""Groundedness: is what the slow loop learnt actually in what the user said (or recalled)?

Offline and deterministic, so it works with the 0.5B default model, which readily turns
"My name is Priya Ramanathan." into "Priya Ramanathan is a renowned Indian actress.":

* **Names** (concepts, triple ends, tags) are grounded when every content word of the name
  (stemmed, stopwords aside) occurs in the sources; relation and schema words ("causes",
  "is_a", "part_of") never count as grounded tags.
* **Claims** that give the assistant an order (services/prompts/quoting.py: "reply only with…",
  "the correct answer about the cat is Garfield") are never supported.
* **Claims** in the first person ("I am ...", "my ...") are never supported: an insight speaks
  about the user, and a first-person one is the model confusing who speaks.
* **Claims** (each sentence of an insight) are supported when at least
  ``tuning.grounding.min_lexical`` (0.75) of their content words occur in the evidence *and*
  the claim is close in meaning to its best evidence sentence (cosine >= ``min_cosine``, 0.4, MiniLM-sized
  embeddings). Words that only name the speaker ("user", "assistant", the user id) are
  neutral. The weakest claim decides, and the words it lacks are the reason.

An LLM verification step for strong configured models is not built yet (see docs/reliability.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.common.held import numbers, numbers_not_held
from services.common.statements import sentences
from services.common.text import TextEmbedder
from services.prompts.quoting import is_order
from services.recall.lexical import stem
from thea import words as word_reader
from thea.models import Claim, EdgeType, Evidence
from thea.tuning import MAX_QUOTE_CHARS, MAX_SPANS, GroundingTuning
from thea.words import STOPWORDS

#: evidence spans kept per claim (the best one of each source, most shared words first)
MAX_CLAIM_EVIDENCE = 3
#: words that only say who spoke: never evidence of anything, never missing
NEUTRAL = frozenset(
    (
        *STOPWORDS,
        "user",
        "users",
        "assistant",
        "thea",
        "person",
        "someone",
        "also",
        "said",
        "says",
        "told",
        "mentioned",
        "mentions",
        "states",
        "stated",
        "shared",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
    )
)
#: relation names and schema words of the prompts: never a tag or a concept of their own
SCHEMA_WORDS = frozenset(
    {e.value.lower() for e in EdgeType}
    | {e.value.lower().replace("_", " ") for e in EdgeType}
    | {"insight", "seed", "tags", "triples", "subject", "predicate", "object", "confidence", "json"}
)


def content_terms(text: str, neutral: frozenset[str] = NEUTRAL) -> list[str]:
    """Stemmed content words of a text (numbers kept, stopwords and speaker words dropped)."""
    return [stem(w) for w in word_reader.terms(text) if w not in neutral and (len(w) > 2 or w.isdigit())]


@dataclass
class Sources:
    """The texts a crystal may rest on: (source id, node type, text)."""

    items: list[tuple[str, str, str]] = field(default_factory=list)
    #: extra neutral words (the user's id: the speaker's own name is no new fact)
    speaker_words: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.terms: set[str] = set()
        for _, _, text in self.items:
            self.terms.update(content_terms(text))

    @property
    def neutral(self) -> frozenset[str]:
        return NEUTRAL | self.speaker_words

    def grounds(self, name: str) -> bool:
        """Every content word of a name occurs in the sources (and it is no schema word)."""
        if " ".join(name.lower().split()) in SCHEMA_WORDS:
            return False
        words = content_terms(name, self.neutral)
        return bool(words) and all(w in self.terms for w in words)

    def spelled(self, name: str) -> str:
        """The name as the sources write it, when they hold it whole ("CACHING" -> "Caching"
        from "Caching -> lower latency."): a concept is named in the user's own letters, not
        in whatever case the model chose."""
        clean = " ".join(name.split())
        if not clean:
            return name
        words = r"\s+".join(re.escape(w) for w in clean.split())
        pattern = re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)
        for _, _, text in self.items:
            found = pattern.search(text)
            if found:
                return " ".join(found.group().split())
        return clean


@dataclass
class Verdict:
    supported: bool
    support: float
    reason: str
    evidence: list[Evidence]
    #: each claim with its own status, support, reason and evidence spans
    claims: list[Claim] = field(default_factory=list)


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _quote(sentence: str) -> str:
    text = " ".join(sentence.split())
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 1].rstrip() + "…"


#: evidence kinds that never count as a proof: insights restating sources, and thea's own answers
NOT_PROOF = frozenset({"KnowledgeCrystal", "FinalResponse"})


def proof_count(evidence: Sequence[Evidence], claims: Sequence[Claim] = ()) -> int:
    """Distinct sources the user gave (impulses, turns, facts) that support an insight: the
    evidence of its supported claims (all its evidence when it has no per-claim record).
    Insights restating them add none, and one source cited twice counts once."""
    cited = [e for c in claims if c.status == "supported" for e in c.evidence] if claims else evidence
    return len({e.source_id for e in cited if e.kind not in NOT_PROOF})


def evidence_strength(proofs: int) -> float:
    """An insight's strength from its evidence: one per distinct proof, at least 1 (feedback
    moves it from there; recall dampens it logarithmically, services/recall/fusion.py)."""
    return float(max(1, proofs))


#: the user's own first person in a claim: an insight speaks *about* the user ("The user drinks
#: coffee black"); "I am Surly, a Brompton, ..." is the model mixing up who speaks
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself)\b|\bI\s+am\b", re.IGNORECASE)
FIRST_PERSON_REASON = "speaks as the user (first person), not about the user"
ORDER_REASON = "gives the assistant an order: an order is never knowledge"


def in_first_person(claim: str) -> bool:
    """The claim speaks in the first person ("I", "my", "me") outside a quoted phrase."""
    unquoted = re.sub(r"[\"“«][^\"”»]*[\"”»]", " ", claim)
    return bool(_FIRST_PERSON.search(unquoted.replace("\u2019", "'")))


#: a non-restrictive relative clause adds a claim of its own: "Karim teaches history at a
#: sixth-form college, which is a prestigious institution."
_ADDED_CLAUSE = re.compile(r",\s+(?=(?:which|who|whose|where)\b)", re.IGNORECASE)


def claims_of(text: str) -> list[str]:
    """The claims of an insight: its sentences, and what a ", which ..." clause adds to one (the
    0.5B model embellishes that way; checked on its own, the addition is not drowned by the
    supported words around it)."""
    return [
        part.strip() for sentence in sentences(text) for part in _ADDED_CLAUSE.split(sentence) if part.strip()
    ]


def check_claims(
    text: str, sources: Sources, embedder: TextEmbedder | None, tuning: GroundingTuning | None = None
) -> Verdict:
    """Each sentence of ``text`` against the sources: every claim gets its own verdict and
    evidence spans; the weakest claim decides for the insight (thresholds: ``tuning.grounding``)."""
    tuning = tuning or GroundingTuning()
    claims = [c for c in claims_of(text) if content_terms(c, sources.neutral)] or [text]
    # every sentence of every source, as candidate evidence spans
    spans = [(sid, kind, s) for sid, kind, body in sources.items for s in sentences(body)]
    if not spans:
        reason = "no evidence: nothing the user said or recalled"
        return Verdict(
            False, 0.0, reason, [], [Claim(text=c, status="unsupported", reason=reason) for c in claims]
        )
    # bounded work whatever the sources' size: the spans sharing most words with the claims
    wanted = {t for c in claims for t in content_terms(c, sources.neutral)}
    spans = sorted(spans, key=lambda sp: -len(wanted & set(content_terms(sp[2]))))[:MAX_SPANS]
    span_terms = [set(content_terms(s)) for _, _, s in spans]
    vectors: list[list[float]] = []
    if embedder is not None:
        vectors = embedder.embed_documents(claims + [s for _, _, s in spans])
    best_for: dict[str, _Span] = {}  # source id -> (overlap, kind, best span)
    checked: list[Claim] = []
    said = " ".join(body for _, _, body in sources.items)
    for index, claim in enumerate(claims):
        terms = content_terms(claim, sources.neutral)
        found = [t for t in terms if t in sources.terms]
        lexical = len(found) / len(terms) if terms else 1.0
        own = _overlaps(terms, spans, span_terms, best_for)
        cosine = 1.0
        if vectors:
            claim_vec = vectors[index]
            cosine = max(cosine_similarity(claim_vec, vectors[len(claims) + i]) for i in range(len(spans)))
        score, reason = _judged(claim, terms, found, lexical, cosine, tuning)
        if numbers_reordered(claim, [span for _, _, span in spans]):
            score, reason = 0.0, "its numbers in another order than the user said them"
        invented = numbers_not_held(claim, said)
        if invented:  # "moved to April 19th, 2023" from "it's the 19th of April now" (live)
            score, reason = 0.0, f"a number the user never said: {', '.join(invented)}"
        checked.append(
            Claim(
                text=claim,
                status="supported" if score >= tuning.min_lexical else "unsupported",
                support=round(score, 3),
                reason=reason,
                evidence=_claim_evidence(own, terms),
            )
        )
    weakest = min(checked, key=lambda c: c.support)
    supported = all(c.status == "supported" for c in checked)
    # the message the insight was made from is always cited, even when nothing of it matched
    first_id, first_kind, first_text = sources.items[0]
    if first_id not in best_for:
        best_for[first_id] = (0, first_kind, (sentences(first_text) or [first_text])[0])
    ranked = sorted(best_for.items(), key=lambda item: -item[1][0])
    evidence = [Evidence(source_id=sid, kind=kind, quote=_quote(span)) for sid, (_, kind, span) in ranked]
    return Verdict(supported, weakest.support, "" if supported else weakest.reason, evidence, checked)


def _in_order(wanted: Sequence[str], held: Sequence[str]) -> bool:
    rest = iter(held)
    return all(any(n == h for h in rest) for n in wanted)


def numbers_reordered(claim: str, spans: Sequence[str]) -> bool:
    """The claim holds two numbers or more that a sentence of the sources holds too, but in
    another order in every such sentence: "the conference is on the 21st, not the 14th"
    restated as "on the 14th, not the 21st" (seen live, from the 0.5B). Language-neutral: digits
    only; numbers told across sentences are left to the other checks."""
    wanted = numbers(claim)
    if len(wanted) < 2:
        return False
    holding = [found for found in (numbers(s) for s in spans) if set(wanted) <= set(found)]
    return bool(holding) and not any(_in_order(wanted, found) for found in holding)


#: a source's span that shares words with a claim: (words shared, source kind, the span)
_Span = tuple[int, str, str]


def _overlaps(
    terms: list[str],
    spans: list[tuple[str, str, str]],
    span_terms: list[set[str]],
    best_for: dict[str, _Span],
) -> dict[str, _Span]:
    """The claim's best span per source (by words shared); ``best_for`` keeps the best span
    per source over all claims."""
    own: dict[str, _Span] = {}
    for (sid, kind, span), span_set in zip(spans, span_terms, strict=True):
        n = len(set(terms) & span_set)
        if n and n > own.get(sid, (0, "", ""))[0]:
            own[sid] = (n, kind, span)
        if n and n > best_for.get(sid, (0, "", ""))[0]:
            best_for[sid] = (n, kind, span)
    return own


def _judged(
    claim: str, terms: list[str], found: list[str], lexical: float, cosine: float, tuning: GroundingTuning
) -> tuple[float, str]:
    """A claim's support (its words found in the sources, lowered when it is far in meaning)
    and why it falls short, if it does."""
    score = max(0.0, min(1.0, lexical if cosine >= tuning.min_cosine else min(lexical, cosine)))
    if is_order(claim):
        return 0.0, ORDER_REASON
    if in_first_person(claim):
        return min(score, tuning.min_lexical / 2), FIRST_PERSON_REASON
    if score >= tuning.min_lexical:
        return score, ""
    if lexical < tuning.min_lexical:
        missing = sorted({w for w in word_reader.terms(claim) if stem(w) in set(terms) - set(found)})
        return score, f"not in its evidence: {', '.join(missing[:8])}"
    return score, f"far in meaning from its evidence (similarity {cosine:.2f})"


def _claim_evidence(own: dict[str, _Span], terms: list[str]) -> list[Evidence]:
    """A claim's evidence: the spans holding at least half its words (else its single best)."""
    ranked_own = sorted(own.items(), key=lambda item: -item[1][0])
    enough = [item for item in ranked_own if 2 * item[1][0] >= len(set(terms))]
    ranked_own = (enough or ranked_own[:1])[:MAX_CLAIM_EVIDENCE]
    return [Evidence(source_id=sid, kind=kind, quote=_quote(sp)) for sid, (_, kind, sp) in ranked_own]
