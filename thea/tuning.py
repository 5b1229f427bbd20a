"""Every tunable of thea's cognition in one typed place.

- :class:`RecallTuning`: the recall cascade's weights (keyed by :class:`Stage` and node type),
  thresholds and depths, with named :data:`RECALL_PRESETS`. A user sets it in the config file
  (``[embedded.tuning.recall]``) or the environment (``THEA_TUNING__RECALL__MIN_SIMILARITY``);
  ``Settings.tuning`` validates it like every other setting.
- Fixed numbers (module constants below): the caps that bound the work of one message, the
  grounding thresholds an insight must pass, the crystallizer's caps, the answer's relevance
  floor, the default retry waits of slow-loop jobs. They are measured choices, not settings.

docs/configuration.md lists them all in one table. Defaults here are the defaults everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from thea.models import EdgeType, NodeType


class Stage(StrEnum):
    """Cascade stages; each can be switched off (ablation)."""

    TRIPLES = "triples"  # triple pattern / concept match in the graph
    KEYWORDS = "keywords"  # full-text match on content
    VECTORS = "vectors"  # embedding similarity
    ACTIVATION = "activation"  # spreading activation over concept relations
    TEMPORAL = "temporal"  # time-window filter from the plan


ALL_STAGES: frozenset[Stage] = frozenset(Stage)

#: how much activation each concept relation passes on (spreading activation)
DEFAULT_DECAY: dict[EdgeType, float] = {
    EdgeType.IS_A: 0.8,
    EdgeType.PART_OF: 0.75,
    EdgeType.HAS_PROPERTY: 0.6,
    EdgeType.CAUSES: 0.7,
    EdgeType.SOLVES: 0.7,
    EdgeType.PREVENTS: 0.6,
    EdgeType.REQUIRES: 0.65,
    EdgeType.USED_WITH: 0.6,
    EdgeType.PRECEDES: 0.5,
    EdgeType.PREFERRED_OVER: 0.5,
    EdgeType.RELATED_TO: 0.5,
    EdgeType.CONTRADICTS: 0.3,
}
#: reciprocal rank fusion's k (the usual 60)
RRF_K = 60


class ActivationTuning(BaseModel):
    """Spreading activation over concept relations."""

    model_config = ConfigDict(extra="forbid")

    #: keyed by concept relation
    decay: dict[EdgeType, float] = Field(default_factory=lambda: dict(DEFAULT_DECAY))
    #: spreading stops below this activation ...
    threshold: float = Field(default=0.25, ge=0.0, le=1.0)
    #: ... or after this many hops
    max_depth: int = Field(default=3, ge=0, le=10)
    #: confidence of a relation that has none
    default_confidence: float = Field(default=0.8, ge=0.0, le=1.0)

    def decay_of(self, relation: str) -> float:
        """The decay of a relation as the graph names it (0 for a relation without one)."""
        # EdgeType members hash and compare as their names: a lookup by the stored string
        return cast(Mapping[str, float], self.decay).get(relation, 0.0)


def _type_weights() -> dict[NodeType, float]:
    return {
        NodeType.USER_IMPULSE: 1.0,
        NodeType.DIALOGUE_TURN: 1.0,
        NodeType.KNOWLEDGE_CRYSTAL: 1.2,
        NodeType.FACT: 1.3,
        NodeType.FINAL_RESPONSE: 0.6,
        #: a pasted document's chunk (services/recall/documents.py: admitted only when the
        #: question's words tell it apart, one per document)
        NodeType.DOCUMENT_CHUNK: 0.6,
    }


def _stage_weights() -> dict[Stage, float]:
    return {Stage.VECTORS: 1.0, Stage.KEYWORDS: 1.0, Stage.TRIPLES: 0.25, Stage.ACTIVATION: 0.25}


class RecallTuning(BaseModel):
    """The recall cascade's weights, thresholds and depths."""

    model_config = ConfigDict(extra="forbid")

    #: vector hits below this cosine similarity are dropped
    min_similarity: float = Field(default=0.30, ge=-1.0, le=1.0)
    #: candidates each stage contributes
    per_stage: int = Field(default=20, ge=1, le=500)
    #: a memory's score is multiplied by its kind's weight
    type_weights: dict[NodeType, float] = Field(default_factory=_type_weights)
    #: Stage weights in fusion. Score fusion (the default) scales each stage to [0, 1] first;
    #: keywords and vectors weigh the same (keywords are the stronger stage on short social turns,
    #: vectors on user-assistant chats with long replies: issue 26; 0.5-1.0 for vectors measured
    #: within 0.01 of each other on LoCoMo dev), the concept stages little: without an LLM-built
    #: concept graph they mostly match names said everywhere (docs/benchmarks.md has the ablations).
    stage_weights: dict[Stage, float] = Field(default_factory=_stage_weights)
    activation: ActivationTuning = Field(default_factory=ActivationTuning)
    #: "score" (each stage's scores scaled to [0, 1], weighted sum) or "rrf" (reciprocal rank:
    #: flat, so memories several weak stages mention outrank one strong keyword match)
    fusion: Literal["rrf", "score"] = "score"
    #: score fusion: each stage scaled on its own best this many scores (its top score 1, the
    #: next one after them 0), so bunched similarities count as much as spread BM25 scores
    #: (0 = scaled from the stage's fixed floor)
    fusion_depth: int = Field(default=0, ge=0, le=500)
    #: score fusion: the vector stage weighs its stage weight times this share when its best
    #: similarities are bunched, rising to the whole weight as its best stands out from its
    #: ``separation_depth``-th best (1 = always the whole weight; issue 26: 0.6 gains nDCG@10 on
    #: LoCoMo dev and is level on BEAM dev, docs/benchmarks.md)
    vector_weight_floor: float = Field(default=0.6, ge=0.0, le=1.0)
    separation_depth: int = Field(default=20, ge=2, le=500)
    rrf_k: int = Field(default=RRF_K, ge=1)
    #: best candidates per other stage that get an exact similarity when the vector search missed
    #: them, so fusion sees both scores for every strong candidate (0 = off)
    dense_fill: int = Field(default=20, ge=0, le=500)
    #: the vector stage scores a memory by its best chunk; a memory longer than one embedding
    #: window (``window_chars``) loses this much similarity per doubling of its length, so a
    #: long reply's many chunks do not outrank the short message that holds the fact (0 = off)
    long_penalty: float = Field(default=0.12, ge=0.0, le=1.0)
    window_chars: int = Field(default=700, ge=1)
    #: memories the vector search returns (at least ``per_stage``). 60 was tried so that a short
    #: message that many chunks of long replies outscore before ``long_penalty`` is still found;
    #: on the full development sets 20 is level-or-better on both shapes and cheaper (issue 26)
    vector_candidates: int = Field(default=20, ge=1, le=500)
    #: the keyword stage also matches the words a turn replies to (its ``context``) ...
    reply_context: bool = True
    #: ... as a second field whose words count this much of the turn's own (BM25F): a turn is
    #: found by what it says before what it answers (issue 26: 0.5 gains on LoCoMo, level on BEAM)
    context_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    #: a memory longer than this many words is scored by the keyword stage by its best window of
    #: that many words (a long reply is no better a match for holding more words; 0 = whole)
    passage_terms: int = Field(default=0, ge=0)
    #: ... and the month and year a memory happened in
    index_dates: bool = True
    #: pseudo-relevance feedback: the keyword stage's query gains this many words of its own best
    #: ``prf_docs`` hits (frequent there, rare among the candidates), each weighing ``prf_weight``
    #: of a query word; one more full-text lookup per word (0 = off; issue 26: measured on both
    #: shapes in docs/benchmarks.md)
    prf_terms: int = Field(default=0, ge=0, le=20)
    prf_docs: int = Field(default=3, ge=1, le=20)
    prf_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    #: a second hop for multi-hop questions: the names in the ``hop_from`` best first-pass hits
    #: that the query does not name (at most ``hop_concepts``) are looked up among the user's
    #: concepts, and the other memories linked to them join fusion as a stage weighing
    #: ``hop_weight`` (0 = off; issue 26)
    hop_from: int = Field(default=0, ge=0, le=20)
    hop_concepts: int = Field(default=6, ge=1, le=50)
    hop_weight: float = Field(default=0.25, ge=0.0, le=2.0)
    #: for a question asking when, memories that mention a time rank this much higher
    when_boost: float = Field(default=0.3, ge=0.0)
    #: hits a configured reranker (``recall.reranker``) reorders
    rerank_depth: int = Field(default=20, ge=2, le=200)
    #: full-text candidates per query word fetched for BM25 re-scoring
    keyword_candidates: int = Field(default=50, ge=1, le=1000)
    #: at most this many concepts are looked up for the triple and activation stages
    max_concepts: int = Field(default=12, ge=0, le=100)
    #: seconds the collection size (for idf) is cached
    size_ttl_s: float = Field(default=30.0, ge=0.0)


#: Named recall configurations: ``default`` is the product's; ``rank-fusion`` is the cascade as it
#: was before issue 14 (rank fusion, no reply context, no dates, no when-intent), kept for comparison.
RECALL_PRESETS: dict[str, RecallTuning] = {
    "default": RecallTuning(),
    "rank-fusion": RecallTuning(
        fusion="rrf",
        dense_fill=0,
        reply_context=False,
        index_dates=False,
        when_boost=0.0,
        long_penalty=0.0,
        vector_candidates=20,
        context_weight=1.0,
        vector_weight_floor=1.0,
        stage_weights={Stage.VECTORS: 1.0, Stage.KEYWORDS: 1.0, Stage.TRIPLES: 1.0, Stage.ACTIVATION: 0.7},
    ),
}
RecallPreset = Literal["default", "rank-fusion"]


#: Defaults of the settings below. The answer: memories scoring below this share of the best
#: hit stay out of the prompt: weak distractors mislead small models (measured: with the
#: offline 0.5B model, "What is my cat's name?" was answered with the user's own name when a
#: low-scoring "My name is Ana ..." was included).
RELATIVE_FLOOR = 0.35

#: Grounding: share of a claim's content words its evidence must hold
MIN_LEXICAL = 0.75
#: ... and its meaning check against the best evidence sentence (MiniLM cosine)
MIN_COSINE = 0.4


class GroundingTuning(BaseModel):
    """When a claim of an insight counts as supported by its evidence (services/reflection/grounding.py)."""

    model_config = ConfigDict(extra="forbid")

    #: share of a claim's content words its evidence must hold
    min_lexical: float = Field(default=MIN_LEXICAL, ge=0.0, le=1.0)
    #: meaning check against the best evidence sentence (MiniLM cosine)
    min_cosine: float = Field(default=MIN_COSINE, ge=-1.0, le=1.0)


class Tuning(BaseModel):
    """The tunables a user may set (``Settings.tuning``)."""

    model_config = ConfigDict(extra="forbid")

    #: the named recall configuration the fields of ``recall`` set here are laid over
    recall_preset: RecallPreset = "default"
    recall: RecallTuning = Field(default_factory=RecallTuning)
    #: when an insight's claims count as supported by their evidence
    grounding: GroundingTuning = Field(default_factory=GroundingTuning)
    #: an imported turn is searched with the words of the turn it replies to only when that turn
    #: is short (at most 400 characters, the context's bound): the tail of a long assistant reply
    #: would drown the short user message after it (issue 26; docs/benchmarks.md: a gain on BEAM,
    #: level on LoCoMo, where almost every turn is short)
    short_reply_context: bool = True
    #: a recalled memory enters the answer's prompt only when its score is at least this share of
    #: the best memory's (weak distractors mislead a small model)
    relevance_floor: float = Field(default=RELATIVE_FLOOR, ge=0.0, le=1.0)

    def effective_recall(self) -> RecallTuning:
        """The preset with the recall fields set explicitly (config file, environment) over it."""
        changed = {name: getattr(self.recall, name) for name in self.recall.model_fields_set}
        return RECALL_PRESETS[self.recall_preset].model_copy(update=changed)


# -- fixed numbers: measured choices and bounds, not settings --------------------------------------

#: longest evidence quote kept
MAX_QUOTE_CHARS = 240
#: at most this many evidence sentences are compared (and embedded) per insight
MAX_SPANS = 24

#: Crystallizer: longest insight kept
MAX_INSIGHT_CHARS = 240
#: at most this many recalled memories of the answer count as evidence
MAX_RECALLED_SOURCES = 12
#: a session crystal reads at most this many characters of the session, and links this many concepts
MAX_SESSION_CHARS = 8000
MAX_SESSION_CONCEPTS = 12

#: Slow-loop jobs: default waits between retries of a failed job, seconds (``queue.retry_backoff_s``)
RETRY_BACKOFF_S: tuple[int, ...] = (2, 10, 60)

# What one message may cost: the caps that keep the work of a message bounded. A message (up to
# ``max_impulse_chars``, 200,000 characters by default) turns into graph writes, embeddings,
# lookups and prompts in several places. Each place is capped here, so whatever the message's
# shape (a ``~`` chain of 30,000 names, 20,000 ``a::b`` lines, 40,000 distinct words, one
# 200,000-character word) the concepts, relations and lookups it causes are bounded by these
# numbers and the rest of its cost grows at most linearly with its length. The table in
# docs/reliability.md ("Bounded work per message") lists them with what happens to the rest.

#: Relations the plain notation (``A -> B``, ``A::B``, ``a~b~c``) of one text can assert;
#: parsing stops at this many.
MAX_NOTATION_TRIPLES = 32
#: A ``~`` chain relates every pair of its first names only (6 names: 15 pairs).
MAX_CHAIN_NAMES = 6
#: Longest concept name, in characters (longer "names" are prose, not concepts).
MAX_CONCEPT_CHARS = 60
#: Concepts one ``!fact`` may create or link (relations naming others are dropped).
MAX_FACT_CONCEPTS = 16
#: Concepts one crystallization may create or link (LLM triples and notation together).
MAX_CRYSTAL_CONCEPTS = 8
#: Concepts the planner may put into a plan, and how many of them get linked to the impulse.
MAX_PLAN_CONCEPTS = 9
MAX_LINKED_CONCEPTS = 5
#: Recall: texts searched, characters of each, keyword terms, characters of a term.
MAX_QUERY_TEXTS = 4
MAX_QUERY_CHARS = 2_000
#: how much of a recalled memory's text a trace shows
TRACE_TEXT_CHARS = 200
MAX_KEYWORD_TERMS = 12
MAX_TERM_CHARS = 40
#: Share of the model's context window a user's message may fill in a prompt (by the cautious
#: estimate of services/common/tokens.py); a longer message enters prompts as its head and tail around a
#: marker saying how much was left out (the whole text is stored and searchable).
PROMPT_SHARE = 0.4
#: A message longer than this many characters is a document (a paste): stored as numbered chunks
#: with provenance, while the impulse, the prompts and the conversation cache carry only a
#: summary of at most ``DOCUMENT_SUMMARY_CHARS`` (services/knowledge/documents.py).
DOCUMENT_CHARS = 8_000
#: Characters per document chunk: about one embedding window (256 tokens) of English text.
DOCUMENT_CHUNK_CHARS = 1_000
DOCUMENT_SUMMARY_CHARS = 400
#: A word in more than this share of a document's chunks does not tell its chunks apart; each
#: chunk keeps at most ``MAX_CHUNK_TERMS`` of the words that do.
COMMON_TERM_SHARE = 0.25
MAX_CHUNK_TERMS = 200
#: A document embeds at most this many of its chunks (evenly spread, first and last included):
#: a 200,000-character paste has ~200-400 chunks, and embedding them all took 53 s on the loaded
#: 2-core machine. The others are found by the keyword stage, which admits chunks anyway.
MAX_EMBEDDED_CHUNKS = 64
