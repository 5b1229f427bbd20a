"""The recall cascade (no LLM).

Stages (each can be switched off for ablations):

- TRIPLES: query concepts (and a triple pattern such as (?, CAUSES, outage)) resolved
  in the graph; memories linked to those concepts are candidates, each concept weighted
  by its idf (a concept linked to most memories tells little).
- KEYWORDS: full-text candidates (every query word in one lookup) ranked by BM25 (lexical.py)
  over the memory's words, the words it replies to (an imported turn's ``context``) and
  the month and year it happened in.
- VECTORS: embedding similarity over experience and insights, with a similarity floor;
  the strongest candidates of the other stages that the search missed get their exact
  similarity too (``dense_fill``).
- ACTIVATION: spreading activation from the query concepts over typed concept
  relations; memories linked to activated concepts are candidates, weighted by activation.
- TEMPORAL: the plan's time window restricts every other stage.

Candidates are fused by their scores (each stage scaled to [0, 1], weighted; reciprocal
rank fusion is an option; the vector stage weighs less for a query whose best similarities
are bunched, ``_vector_share``), weighted by memory type, insight strength and fact confidence;
a question asking *when* ranks memories that say when a little higher (temporal.py); an
optional reranker reorders the best hits (rerank.py). Every hit carries a real signal from
at least one stage (a similarity above the floor, a keyword match, a concept link or
activation above threshold): a question about something never discussed returns nothing.
Only the asking user's memories, and only active ones, are ever returned.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter, defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from services.common.limits import MAX_KEYWORD_TERMS, MAX_QUERY_CHARS, MAX_QUERY_TEXTS, MAX_TERM_CHARS
from services.common.plan_fallback import candidate_concepts
from services.recall.activation import Neighbour, spread
from services.recall.documents import admitted, one_per_document
from services.recall.fusion import memory_weight, ranked, rating_weight, rrf, score_fusion, separation
from services.recall.lexical import LexicalDoc, bm25, idf_weight, lexical_document, stem
from services.recall.rerank import Reranker, apply_rerank
from services.recall.temporal import asks_when, mentions_time
from services.recall.types import ALL_STAGES, RecallHit, RecallQuery, RecallResult, Stage, TimeWindow
from thea import words as word_reader
from thea.errors import VectorStoreUnavailable
from thea.memory.operations import KeywordMatch
from thea.memory.recall_port import RecallSource
from thea.memory.universal import collection_for
from thea.models import (
    CONCEPT_RELATIONS,
    Collection,
    Fact,
    Node,
    NodeType,
    VectorFilter,
    is_evidence,
    normalize_name,
    now_ms,
)
from thea.tuning import RecallTuning
from thea.words import STOPWORDS

log = logging.getLogger(__name__)

RECALLABLE = frozenset(
    {
        NodeType.USER_IMPULSE,
        NodeType.FINAL_RESPONSE,
        NodeType.FACT,
        NodeType.DIALOGUE_TURN,
        NodeType.KNOWLEDGE_CRYSTAL,
        NodeType.DOCUMENT_CHUNK,
    }
)
_RECALLABLE_TYPES = tuple(sorted(RECALLABLE))
#: sorted, so the query text and its parameters are the same on every call
_CONCEPT_RELATIONS = sorted(CONCEPT_RELATIONS)
#: the second hop's entry in the stage scores (not a stage of its own: it runs after fusion)
HOP = "hop"


def keyword_words(texts: list[str], max_terms: int = MAX_KEYWORD_TERMS) -> list[str]:
    """Content words of the query texts (lower-cased, stopwords and words longer than
    ``MAX_TERM_CHARS`` dropped), first seen first, at most ``max_terms``."""
    words: dict[str, None] = {}
    for text in texts:
        for word in word_reader.terms(text):
            if len(word) >= 3 and word not in STOPWORDS and len(word) <= MAX_TERM_CHARS:
                words.setdefault(word, None)
                if len(words) >= max_terms:
                    return list(words)
    return list(words)


def keyword_query(texts: list[str], max_terms: int = MAX_KEYWORD_TERMS) -> str:
    """A safe full-text query: content words only, OR-ed (no operators from user text)."""
    return "|".join(keyword_words(texts, max_terms))


def event_time(props: dict[str, Any]) -> int:
    """When a memory happened: a dialogue turn's ``event_time`` (imported history), else ``created_at``."""
    when = props.get("event_time")
    return int(when if when is not None else props.get("created_at", 0))


def _vectors_first(raw: dict[str, dict[str, float]]) -> None:
    """Put the vector stage's scores first, where fusion has always read them (the vector stage
    now ends after the graph stages; the order of fusion's sums and of equal scores is kept)."""
    if Stage.VECTORS.value in raw:
        rest = {name: scores for name, scores in raw.items() if name != Stage.VECTORS.value}
        dense = raw[Stage.VECTORS.value]
        raw.clear()
        raw[Stage.VECTORS.value] = dense
        raw.update(rest)


class RecallService:
    def __init__(
        self, memory: RecallSource, config: RecallTuning | None = None, reranker: Reranker | None = None
    ) -> None:
        self.memory = memory
        self.config = config or RecallTuning()
        self.reranker = reranker
        self._size: tuple[float, int] = (-1e9, 0)
        self._pool: ThreadPoolExecutor | None = None

    def _embedder(self) -> ThreadPoolExecutor:
        """The threads that embed queries while the graph stages run (made on first use)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="recall-embed")
        return self._pool

    def collection_size(self) -> int:
        """Number of recallable memories (all users), cached briefly: the N of idf."""
        at, size = self._size
        if time.monotonic() - at < self.config.size_ttl_s:
            return size
        try:
            size = self.memory.recall_port.recallable_count()
        except Exception as exc:  # idf then falls back to the candidate count
            log.warning("could not count memories for idf: %s", exc)
            size = 0
        self._size = (time.monotonic(), size)
        return size

    async def recall(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult:
        return await asyncio.to_thread(self.recall_sync, query, stages)

    def recall_sync(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult:
        started = time.perf_counter()
        if query.user_id is None:
            return RecallResult(elapsed_ms=0.0)
        # a query's cost is bounded whatever the message: a few texts, each cut (services/common/limits.py)
        query = query.model_copy(
            update={"texts": [t[:MAX_QUERY_CHARS] for t in query.texts[:MAX_QUERY_TEXTS]]}
        )
        window = query.window if Stage.TEMPORAL in stages else TimeWindow()
        excluded = set(query.exclude_ids)
        raw: dict[str, dict[str, float]] = {}
        stage_of: dict[str, list[str]] = defaultdict(list)

        def take(stage: Stage, scored: list[tuple[str, float]]) -> None:
            kept = {i: s for i, s in scored if i not in excluded}
            raw[stage.value] = kept
            for node_id in kept:
                stage_of[node_id].append(stage.value)

        failed: list[str] = []
        vectors: list[list[float]] = []
        kinds: dict[str, str] = {}  # node id -> type, for keyword candidates
        lengths: dict[str, int] = {}  # node id -> characters, for keyword candidates
        read: dict[str, Node] = {}  # nodes read from the graph during this recall, by id
        # the query is embedded and searched while the graph stages run (the embedder and the
        # graph's round trips release the GIL): most of a recall's time was the two in a row
        searching = self._start_vectors(query, stages, window)
        if Stage.KEYWORDS in stages and query.texts:
            take(Stage.KEYWORDS, self._keywords(query, window, kinds, lengths))
        seeds = self._seed_concepts(query) if stages & {Stage.TRIPLES, Stage.ACTIVATION} else {}
        if Stage.TRIPLES in stages and seeds:
            take(Stage.TRIPLES, self._linked(query, dict.fromkeys(seeds, 1.0), window))
        if Stage.ACTIVATION in stages and seeds:
            user_id = query.user_id
            activated = spread(seeds, lambda ids: self._neighbours(ids, user_id), self.config.activation)
            spread_only = {c: a for c, a in activated.items() if c not in seeds}
            if spread_only:
                take(Stage.ACTIVATION, self._linked(query, spread_only, window))
        if searching is not None:
            # the vector store is one layer among several: if it is down, the graph stages still
            # recall (graph failures do propagate: the graph is the source of truth)
            try:
                vectors, similar = searching.result()
                take(Stage.VECTORS, similar)
            except VectorStoreUnavailable as exc:
                log.warning("recall without vectors for user %s: %s", query.user_id, exc)
                failed.append(Stage.VECTORS.value)
            _vectors_first(raw)
        if vectors and Stage.VECTORS.value not in failed and self.config.dense_fill:
            self._fill_dense(query, vectors, raw, stage_of, window, kinds)
        if self.config.long_penalty > 0 and raw.get(Stage.VECTORS.value):
            self._penalise_long(raw[Stage.VECTORS.value], lengths, read)

        fused = self._with_second_hop(query, self._fuse(raw), raw, stage_of, window, read)
        rankings = {name: ranked(list(pairs.items()), self.config.per_stage) for name, pairs in raw.items()}
        hits = self._hydrate(query, fused, stage_of, raw, window, read)
        counts = {name: len(ids) for name, ids in rankings.items()}
        elapsed = (time.perf_counter() - started) * 1000
        log.debug("recall user=%s: %d hits %s in %.1f ms", query.user_id, len(hits), counts, elapsed)
        return RecallResult(
            hits=hits[: query.limit], stage_counts=counts, elapsed_ms=elapsed, failed_stages=failed
        )

    def _fuse(self, raw: dict[str, dict[str, float]]) -> dict[str, float]:
        cfg = self.config
        weights = {stage.value: weight for stage, weight in cfg.stage_weights.items()}
        if cfg.fusion == "score":
            # a concept match counts in full only for a concept as rare as one memory in the collection
            rare = idf_weight(1, self.collection_size())
            scales = {Stage.TRIPLES.value: rare, Stage.ACTIVATION.value: rare, HOP: rare}
            weights[HOP] = cfg.hop_weight
            floors = {Stage.VECTORS.value: cfg.min_similarity}
            weights[Stage.VECTORS.value] = weights.get(Stage.VECTORS.value, 1.0) * self._vector_share(raw)
            return score_fusion(raw, weights, floors, scales, depth=cfg.fusion_depth)
        rankings = {name: ranked(list(scores.items()), cfg.per_stage) for name, scores in raw.items()}
        return rrf(rankings, k=cfg.rrf_k, weights=weights)

    def _vector_share(self, raw: dict[str, dict[str, float]]) -> float:
        """The share of its weight the vector stage gets for this query: in full when its best
        similarities stand out from its ``separation_depth``-th best, down to
        ``vector_weight_floor`` when they are bunched (short social turns, where cosines of 0.45-
        0.55 tell little apart and outvote the keywords' order; issue 26)."""
        least = self.config.vector_weight_floor
        if least >= 1.0:
            return 1.0
        similarities = raw.get(Stage.VECTORS.value, {}).values()
        spread = separation(similarities, self.config.separation_depth, self.config.min_similarity)
        return least + (1.0 - least) * spread

    def _fill_dense(
        self,
        query: RecallQuery,
        vectors: list[list[float]],
        raw: dict[str, dict[str, float]],
        stage_of: dict[str, list[str]],
        window: TimeWindow,
        kinds: dict[str, str],
    ) -> None:
        """Exact similarity for the best keyword candidates that the vector search did not return
        (one filtered vector query per collection they are in), so fusion compares every strong
        candidate on both scales."""
        dense = raw.setdefault(Stage.VECTORS.value, {})
        keywords = raw.get(Stage.KEYWORDS.value, {})
        best = sorted(keywords, key=lambda i: -keywords[i])[: self.config.dense_fill]
        missing = [i for i in best if i not in dense]
        if not missing:
            return
        by_collection: dict[Collection, list[str]] = defaultdict(list)
        for node_id in missing:
            by_collection[collection_for(NodeType.parse(kinds.get(node_id, "DialogueTurn")))].append(node_id)
        try:
            found = self._vector_scores(query, vectors, window, by_collection=by_collection)
        except VectorStoreUnavailable as exc:
            log.warning("no exact similarity for recall candidates: %s", exc)
            return
        for node_id, score in found.items():
            if score > self.config.min_similarity:
                dense[node_id] = score
                stage_of[node_id].append(Stage.VECTORS.value)

    def _penalise_long(self, dense: dict[str, float], lengths: dict[str, int], read: dict[str, Node]) -> None:
        """A long memory's similarity is that of its best chunk, and the more chunks it has the
        likelier one of them is close to any question by chance: a 4 kB assistant reply
        outranked the short user message that holds the fact. Its similarity loses
        ``long_penalty`` per doubling of its length beyond one embedding window
        (``window_chars``); memories of one window or less are untouched."""
        cfg = self.config
        unknown = [i for i in dense if i not in lengths]
        if unknown:
            for node in self.memory.recall_port.nodes(unknown):
                read[node.id] = node
                lengths[node.id] = len(node.content or "")
        for node_id, score in dense.items():
            windows = lengths.get(node_id, 0) / cfg.window_chars
            if windows > 1:
                dense[node_id] = score - cfg.long_penalty * math.log2(windows)

    # -- stages ------------------------------------------------------------------------

    def _embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Query embeddings (an embedder with a batched ``embed_queries`` is asked once)."""
        return self.memory.recall_port.embed_queries(texts)

    def _start_vectors(
        self, query: RecallQuery, stages: frozenset[Stage], window: TimeWindow
    ) -> Future[tuple[list[list[float]], list[tuple[str, float]]]] | None:
        """The vector stage started in a thread, when it is on and there is text to embed."""
        if Stage.VECTORS not in stages or not query.texts:
            return None
        return self._embedder().submit(self._embed_and_search, query, window)

    def _embed_and_search(
        self, query: RecallQuery, window: TimeWindow
    ) -> tuple[list[list[float]], list[tuple[str, float]]]:
        """The query's vectors and the vector stage's candidates (run beside the graph stages)."""
        vectors = self._embed_queries(query.texts[:4])
        return vectors, self._vectors(query, vectors, window)

    def _vector_scores(
        self,
        query: RecallQuery,
        vectors: list[list[float]],
        window: TimeWindow,
        *,
        limit: int = 0,
        floor: float | None = None,
        by_collection: dict[Collection, list[str]] | None = None,
    ) -> dict[str, float]:
        """Best similarity per node: the ``limit`` nearest, or exactly the given nodes."""
        best: dict[str, float] = {}
        everything: dict[Collection, list[str] | None] = {
            Collection.EXPERIENCE: None,
            Collection.INSIGHTS: None,
        }
        searches: dict[Collection, list[str] | None] = dict(by_collection) if by_collection else everything
        for collection, node_ids in searches.items():
            flt = VectorFilter(
                types=sorted(RECALLABLE),
                user_id=query.user_id,
                active=True if collection is Collection.INSIGHTS or not query.conversation else None,
                created_from=window.start,
                created_to=window.end,
                node_ids=node_ids,
            )
            size = len(node_ids) if node_ids is not None else limit
            for vector in vectors:
                for hit in self.memory.recall_port.nearest(collection, vector, size, flt, floor):
                    best[hit.id] = max(best.get(hit.id, 0.0), hit.score)
        return best

    def _vectors(
        self, query: RecallQuery, vectors: list[list[float]], window: TimeWindow
    ) -> list[tuple[str, float]]:
        cfg = self.config
        limit = max(cfg.per_stage, cfg.vector_candidates)
        scores = self._vector_scores(query, vectors, window, limit=limit, floor=cfg.min_similarity)
        return list(scores.items())

    def _keywords(
        self,
        query: RecallQuery,
        window: TimeWindow,
        kinds: dict[str, str],
        lengths: dict[str, int],
    ) -> list[tuple[str, float]]:
        """Full-text candidates, ranked by BM25 (see services/recall/lexical.py).

        One full-text lookup per query word: every memory holding a rare word is a
        candidate even when a common word (a name said in every other turn) matches
        more memories than the candidate limit.
        """
        words = keyword_words(query.texts)
        docs: dict[str, LexicalDoc] = {}
        contents: dict[str, str] = {}
        self._gather(query, words, window, docs, contents, kinds, lengths)
        cfg = self.config
        asked = {stem(w): 1.0 for w in words}
        scores = self._bm25(asked, docs)
        if cfg.prf_terms > 0 and scores:
            extra = self._feedback_words(asked, docs, contents, scores)
            if extra:
                self._gather(query, extra, window, docs, contents, kinds, lengths)
                scores = self._bm25({**{stem(w): cfg.prf_weight for w in extra}, **asked}, docs)
        return list(scores.items())

    def _bm25(self, weights: dict[str, float], docs: dict[str, LexicalDoc]) -> dict[str, float]:
        cfg = self.config
        return bm25(
            weights,
            docs,
            self.collection_size(),
            context_weight=cfg.context_weight,
            passage=cfg.passage_terms,
        )

    def _gather(
        self,
        query: RecallQuery,
        words: list[str],
        window: TimeWindow,
        docs: dict[str, LexicalDoc],
        contents: dict[str, str],
        kinds: dict[str, str],
        lengths: dict[str, int],
    ) -> None:
        """The full-text candidates of ``words`` (each word's best ``keyword_candidates``, all in
        one lookup) into ``docs``."""
        matches = self.memory.recall_port.keyword_matches(
            words, _RECALLABLE_TYPES, query.user_id, self.config.keyword_candidates
        )
        for match in matches:
            if match.id in docs or match.user_id != query.user_id:
                continue
            if not (match.evidence or query.conversation):
                continue
            if window.holds(match.event_time):
                docs[match.id] = self._document(match)
                contents[match.id] = match.content
                kinds[match.id] = match.type
                lengths[match.id] = len(match.content)

    def _feedback_words(
        self,
        asked: dict[str, float],
        docs: dict[str, LexicalDoc],
        contents: dict[str, str],
        scores: dict[str, float],
    ) -> list[str]:
        """Pseudo-relevance feedback: the words of the best ``prf_docs`` keyword hits that say
        most about them (share of the hit's words, times the hit's score relative to the best,
        times rarity among the candidates), not already asked, the best ``prf_terms`` of them."""
        cfg = self.config
        best = sorted(scores, key=lambda i: -scores[i])[: cfg.prf_docs]
        df = Counter(t for doc in docs.values() for t in set(doc.own))
        top_score = scores[best[0]]
        weight: dict[str, float] = defaultdict(float)
        surface: dict[str, str] = {}
        for doc_id in best:
            own = docs[doc_id].own
            counts = Counter(own)
            for word in keyword_words([contents[doc_id]], max_terms=len(own) + 1):
                key = stem(word)
                if key in asked or key in surface or not counts[key]:
                    continue
                surface[key] = word
            for key, count in counts.items():
                if key in surface:
                    rarity = math.log(1.0 + len(docs) / df[key])
                    weight[key] += scores[doc_id] / top_score * count / len(own) * rarity
        chosen = sorted(weight, key=lambda k: -weight[k])[: cfg.prf_terms]
        return [surface[k] for k in chosen]

    def _document(self, match: KeywordMatch) -> LexicalDoc:
        """What the keyword stage matches: the memory's words and the month and year it happened
        in, and as a second field weighing less, the words it replies to."""
        cfg = self.config
        when = match.event_time if cfg.index_dates else None
        around = match.context if cfg.reply_context else ""
        return lexical_document(match.content, around, when)

    def _seed_concepts(self, query: RecallQuery) -> dict[str, float]:
        """The asking user's concepts named by the query, plus those matching its triple pattern
        (looked up only among the user's own concepts and relations)."""
        assert query.user_id is not None
        user_id = query.user_id
        norms = [n for n in dict.fromkeys(normalize_name(c) for c in query.concepts) if n]
        norms = norms[: self.config.max_concepts]
        pattern = query.triple_pattern
        ends: list[str] = []
        if pattern and pattern[1]:
            ends = [normalize_name(e) if e else "" for e in (pattern[0], pattern[2])]
        found = self.memory.recall_port.concepts_by_norm([*norms, *(e for e in ends if e)], user_id)
        seeds = {found[n].id: 1.0 for n in norms if n in found}
        if ends and any(ends):
            subject, obj = (found[e].id if e in found else None for e in ends)
            known, other = (subject, obj) if subject else (obj, None)
            if known is None:
                return seeds  # the named end is not one of the user's concepts: nothing matches
            matches = self.memory.recall_port.triple_matches(
                str(pattern[1] if pattern else "").upper(),
                known,
                known_is_subject=subject is not None,
                other=other,
                user_id=user_id,
                now=now_ms(),
            )
            for match in matches:
                seeds[match.known] = seeds[match.other] = 1.0
        return seeds

    def _linked(
        self, query: RecallQuery, concepts: dict[str, float], window: TimeWindow
    ) -> list[tuple[str, float]]:
        """Memories linked to the concepts, each concept weighted by its activation times its
        idf: a concept linked to most memories (a speaker's name) says little, a rare one a lot.

        One lookup per concept, so a common concept cannot use up the row limit of the others.
        """
        limit = self.config.per_stage * 10
        strongest = sorted(concepts, key=lambda c: -concepts[c])[: self.config.max_concepts]
        size = self.collection_size()
        score: dict[str, float] = defaultdict(float)
        for cid in strongest:
            linked = self.memory.recall_port.linked_memories(
                [cid], query.user_id, window.start, window.end, limit
            )
            weight = concepts[cid] * idf_weight(len(linked), size)
            for memory_id in linked:
                score[memory_id] += weight
        return list(score.items())

    def _with_second_hop(
        self,
        query: RecallQuery,
        fused: dict[str, float],
        raw: dict[str, dict[str, float]],
        stage_of: dict[str, list[str]],
        window: TimeWindow,
        read: dict[str, Node],
    ) -> dict[str, float]:
        """``fused`` with the second hop's memories (``hop_from`` > 0) fused in as one more stage."""
        if self.config.hop_from <= 0 or not fused:
            return fused
        hop = self._second_hop(query, fused, window, read)
        if not hop:
            return fused
        raw[HOP] = hop
        for node_id in hop:
            stage_of[node_id].append(HOP)
        return self._fuse(raw)

    def _second_hop(
        self,
        query: RecallQuery,
        fused: dict[str, float],
        window: TimeWindow,
        read: dict[str, Node],
    ) -> dict[str, float]:
        """Memories linked to the names in the best first-pass hits that the query does not name
        (a multi-hop question's second fact shares a name with its first, not a word with the
        question), weighted by each name's idf; the first hits themselves are left out."""
        assert query.user_id is not None
        cfg = self.config
        first = sorted(fused, key=lambda i: -fused[i])[: cfg.hop_from]
        nodes = self._read(first, read)
        read.update(nodes)
        asked = {normalize_name(c) for c in query.concepts}
        names: dict[str, None] = {}
        for node_id in first:
            node = nodes.get(node_id)
            for name in candidate_concepts(node.content if node else ""):
                norm = normalize_name(name)
                if len(name.strip()) >= 3 and norm and norm not in asked:
                    names.setdefault(norm, None)
        wanted = list(names)[: cfg.hop_concepts]
        found = self.memory.recall_port.concepts_by_norm(wanted, query.user_id) if wanted else {}
        concepts = {found[n].id: 1.0 for n in wanted if n in found}
        linked = self._linked(query, concepts, window) if concepts else []
        return {node_id: score for node_id, score in linked if node_id not in first}

    def _neighbours(self, frontier: list[str], user_id: str | None) -> list[Neighbour]:
        found = self.memory.recall_port.concept_neighbours(frontier, _CONCEPT_RELATIONS, user_id, now_ms())
        return [(n.src, n.dst, n.relation, n.confidence) for n in found]

    # -- fusion ------------------------------------------------------------------------

    def _hydrate(
        self,
        query: RecallQuery,
        fused: dict[str, float],
        stage_of: dict[str, list[str]],
        raw: dict[str, dict[str, float]],
        window: TimeWindow,
        read: dict[str, Node],
    ) -> list[RecallHit]:
        if not fused:
            return []
        ordered = sorted(fused, key=lambda i: -fused[i])
        ranked = ordered[: query.limit * 4]
        nodes = self._read(ranked, read)
        allowed = sum(1 for n in nodes.values() if self._allowed(n, query, window))
        if allowed < query.limit and len(ordered) > len(ranked):
            # many candidates were not evidence (earlier questions, replaced facts): read on once
            more = ordered[len(ranked) : query.limit * 16]
            nodes.update(self._read(more, read))
            ranked += more
        when = bool(query.texts) and self.config.when_boost > 0 and asks_when(query.texts[0])
        query_terms = {stem(w) for w in keyword_words(query.texts)}
        hits: list[RecallHit] = []
        for node_id in ranked:
            node = nodes.get(node_id)
            if node is None or not self._allowed(node, query, window):
                continue
            if not admitted(node, query_terms):
                continue
            strength = getattr(node, "strength", None)
            confidence = getattr(node, "confidence", None)
            weight = self.config.type_weights.get(node.type, 1.0) * memory_weight(strength, confidence)
            weight *= rating_weight(getattr(node, "rating", None))
            if when and mentions_time(node.content):
                weight *= 1.0 + self.config.when_boost
            hits.append(
                RecallHit(
                    id=node.id,
                    type=node.type.value,
                    text=node.content,
                    score=fused[node_id] * weight * 100,
                    stages=sorted(set(stage_of[node_id])),
                    stage_scores={
                        stage: round(scores[node_id], 4) for stage, scores in raw.items() if node_id in scores
                    },
                    created_at=node.created_at,
                    event_time=node.happened_at(),
                    strength=strength if strength is not None else 1.0,
                    confidence=confidence,
                    document_id=getattr(node, "document_id", None),
                    source_id=getattr(node, "source_impulse_id", None)
                    or getattr(node, "source_message_id", None),
                )
            )
        hits.sort(key=lambda h: -h.score)
        hits = one_per_document(hits)
        if self.reranker is not None and query.texts and len(hits) > 1:
            hits = self._rerank(query.texts[0], hits)
        return hits

    def _read(self, ids: list[str], read: dict[str, Node]) -> dict[str, Node]:
        """The nodes of ``ids``: those this recall read already, and the others from the graph."""
        missing = [i for i in ids if i not in read]
        found = {n.id: n for n in self.memory.recall_port.nodes(missing)} if missing else {}
        return {i: read[i] for i in ids if i in read} | found

    def _rerank(self, text: str, hits: list[RecallHit]) -> list[RecallHit]:
        """The reranker's order for the best ``rerank_depth`` hits; they keep the fused scores'
        spread (best score to the new first), so later relevance floors still work."""
        assert self.reranker is not None
        depth = self.config.rerank_depth
        by_id = {h.id: h for h in hits}
        order = apply_rerank(self.reranker, text, [(h.id, h.text) for h in hits], depth)
        head = [by_id[i] for i in order[:depth]]
        for hit, score in zip(head, sorted((h.score for h in head), reverse=True), strict=True):
            hit.score = score
        return head + [by_id[i] for i in order[depth:]]

    @staticmethod
    def _allowed(node: Node, query: RecallQuery, window: TimeWindow) -> bool:
        if node.type not in RECALLABLE or node.user_id != query.user_id or node.id in query.exclude_ids:
            return False
        if not (query.conversation or is_evidence(node.to_props())):
            return False
        earlier = query.history and isinstance(node, Fact) and node.subject_key is not None
        return (node.holds(now_ms()) or earlier) and window.holds(node.happened_at())
