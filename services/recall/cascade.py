"""The recall cascade (no LLM).

Stages (each can be switched off for ablations):

- TRIPLES: query concepts (and a triple pattern such as (?, CAUSES, outage)) resolved
  in the graph; memories linked to those concepts are candidates.
- KEYWORDS: full-text match on memory content.
- VECTORS: embedding similarity over experience and insights, with a similarity floor.
- ACTIVATION: spreading activation from the query concepts over typed concept
  relations; memories linked to activated concepts are candidates, weighted by activation.
- TEMPORAL: the plan's time window restricts every other stage.

Candidates are fused by reciprocal rank, weighted by memory type, insight strength
and fact confidence, and must carry a real signal from at least one stage (a
similarity above the floor, a keyword match, a concept link or activation above
threshold): a question about something never discussed returns nothing. Only the
asking user's memories, and only active ones, are ever returned.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from services.plan_fallback import STOPWORDS
from services.recall.activation import ActivationConfig, Neighbour, spread
from services.recall.fusion import memory_weight, rrf
from services.recall.types import ALL_STAGES, RecallHit, RecallQuery, RecallResult, Stage
from thea.memory.universal import UniversalMemory
from thea.models import CONCEPT_RELATIONS, Collection, Node, VectorFilter, normalize_name, now_ms

log = logging.getLogger(__name__)

RECALLABLE = ("UserImpulse", "FinalResponse", "Fact", "DialogueTurn", "KnowledgeCrystal")
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


@dataclass
class RecallConfig:
    min_similarity: float = 0.30
    per_stage: int = 20
    type_weights: dict[str, float] = field(
        default_factory=lambda: {
            "UserImpulse": 1.0,
            "DialogueTurn": 1.0,
            "KnowledgeCrystal": 1.2,
            "Fact": 1.3,
            "FinalResponse": 0.6,
        }
    )
    stage_weights: dict[str, float] = field(
        default_factory=lambda: {"vectors": 1.0, "keywords": 0.8, "triples": 1.0, "activation": 0.7}
    )
    activation: ActivationConfig = field(default_factory=ActivationConfig)


def keyword_query(texts: list[str], max_terms: int = 12) -> str:
    """A safe full-text query: content words only, OR-ed (no operators from user text)."""
    terms: dict[str, None] = {}
    for text in texts:
        for word in _WORD.findall(text.lower()):
            if word not in STOPWORDS:
                terms.setdefault(word, None)
    return "|".join(list(terms)[:max_terms])


class RecallService:
    def __init__(self, memory: UniversalMemory, config: RecallConfig | None = None) -> None:
        self.memory = memory
        self.config = config or RecallConfig()

    async def recall(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult:
        return await asyncio.to_thread(self.recall_sync, query, stages)

    def recall_sync(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult:
        started = time.perf_counter()
        if query.user_id is None:
            return RecallResult(elapsed_ms=0.0)
        window = (query.time_from, query.time_to) if Stage.TEMPORAL in stages else (None, None)
        rankings: dict[str, list[str]] = {}
        signal: dict[str, float] = {}
        stage_of: dict[str, list[str]] = defaultdict(list)

        def take(stage: Stage, scored: list[tuple[str, float]]) -> None:
            scored = [(i, s) for i, s in scored if i not in query.exclude_ids]
            scored.sort(key=lambda pair: -pair[1])
            rankings[stage.value] = [i for i, _ in scored[: self.config.per_stage]]
            for node_id, score in scored:
                signal[node_id] = max(signal.get(node_id, 0.0), score)
                stage_of[node_id].append(stage.value)

        if Stage.VECTORS in stages and query.texts:
            take(Stage.VECTORS, self._vectors(query, window))
        if Stage.KEYWORDS in stages and query.texts:
            take(Stage.KEYWORDS, self._keywords(query, window))
        seeds = self._seed_concepts(query) if stages & {Stage.TRIPLES, Stage.ACTIVATION} else {}
        if Stage.TRIPLES in stages and seeds:
            take(Stage.TRIPLES, self._linked(query, dict.fromkeys(seeds, 1.0), window))
        if Stage.ACTIVATION in stages and seeds:
            activated = spread(seeds, self._neighbours, self.config.activation)
            spread_only = {c: a for c, a in activated.items() if c not in seeds}
            if spread_only:
                take(Stage.ACTIVATION, self._linked(query, spread_only, window))

        fused = rrf(rankings, weights=self.config.stage_weights)
        hits = self._hydrate(query, fused, stage_of, window)
        counts = {name: len(ids) for name, ids in rankings.items()}
        elapsed = (time.perf_counter() - started) * 1000
        log.debug("recall user=%s: %d hits %s in %.1f ms", query.user_id, len(hits), counts, elapsed)
        return RecallResult(hits=hits[: query.limit], stage_counts=counts, elapsed_ms=elapsed)

    # -- stages ------------------------------------------------------------------------

    def _vectors(self, query: RecallQuery, window: tuple[int | None, int | None]) -> list[tuple[str, float]]:
        vectors = self.memory.embedder.embed_documents(query.texts[:4])
        best: dict[str, float] = {}
        for collection, active in ((Collection.EXPERIENCE, None), (Collection.INSIGHTS, True)):
            flt = VectorFilter(
                types=list(RECALLABLE),
                user_id=query.user_id,
                active=active,
                created_from=window[0],
                created_to=window[1],
            )
            for vector in vectors:
                for hit in self.memory.vectors.search(
                    collection, vector, self.config.per_stage, flt, self.config.min_similarity
                ):
                    best[hit.id] = max(best.get(hit.id, 0.0), hit.score)
        return list(best.items())

    def _keywords(self, query: RecallQuery, window: tuple[int | None, int | None]) -> list[tuple[str, float]]:
        text = keyword_query(query.texts)
        if not text:
            return []
        rows = self.memory.graph.run(
            "fulltext_search",
            query=text,
            types=list(RECALLABLE),
            user_id=query.user_id,
            limit=self.config.per_stage * 2,
        )
        out = []
        for row in rows:
            props = row["props"]
            if props.get("user_id") != query.user_id:
                continue
            created = int(props.get("created_at", 0))
            if (window[0] is not None and created < window[0]) or (
                window[1] is not None and created >= window[1]
            ):
                continue
            out.append((str(props["id"]), float(row["score"])))
        return out

    def _seed_concepts(self, query: RecallQuery) -> dict[str, float]:
        norms = {normalize_name(c) for c in query.concepts if normalize_name(c)}
        seeds = {node.id: 1.0 for node in self.memory.graph.concepts_by_norm(list(norms)).values()}
        pattern = query.triple_pattern
        if pattern and pattern[1]:
            subject, relation, obj = pattern
            rows = self.memory.graph.run(
                "recall_triple_subjects",
                relation=str(relation).upper(),
                subject=normalize_name(subject) if subject else None,
                object=normalize_name(obj) if obj else None,
                now=now_ms(),
            )
            for row in rows:
                for key in ("subject", "object"):
                    seeds[str(row[key])] = 1.0
        return seeds

    def _linked(
        self, query: RecallQuery, concepts: dict[str, float], window: tuple[int | None, int | None]
    ) -> list[tuple[str, float]]:
        rows = self.memory.graph.run(
            "recall_by_concepts",
            concept_ids=list(concepts),
            user_id=query.user_id,
            time_from=window[0],
            time_to=window[1],
            limit=self.config.per_stage * 10,
        )
        score: dict[str, float] = defaultdict(float)
        for row in rows:
            score[str(row["id"])] += concepts.get(str(row["cid"]), 0.0)
        return list(score.items())

    def _neighbours(self, frontier: list[str]) -> list[Neighbour]:
        rows = self.memory.graph.run(
            "recall_concept_neighbours",
            ids=frontier,
            relations=[r.value for r in CONCEPT_RELATIONS],
            now=now_ms(),
        )
        return [(str(r["src"]), str(r["dst"]), str(r["relation"]), r["confidence"]) for r in rows]

    # -- fusion ------------------------------------------------------------------------

    def _hydrate(
        self,
        query: RecallQuery,
        fused: dict[str, float],
        stage_of: dict[str, list[str]],
        window: tuple[int | None, int | None],
    ) -> list[RecallHit]:
        if not fused:
            return []
        ranked = sorted(fused, key=lambda i: -fused[i])[: query.limit * 4]
        nodes: dict[str, Node] = {n.id: n for n in self.memory.get(ranked)}
        hits: list[RecallHit] = []
        for node_id in ranked:
            node = nodes.get(node_id)
            if node is None or not self._allowed(node, query, window):
                continue
            strength = getattr(node, "strength", None)
            confidence = getattr(node, "confidence", None)
            weight = self.config.type_weights.get(node.type.value, 1.0) * memory_weight(strength, confidence)
            hits.append(
                RecallHit(
                    id=node.id,
                    type=node.type.value,
                    text=node.content,
                    score=fused[node_id] * weight * 100,
                    stages=sorted(set(stage_of[node_id])),
                    created_at=node.created_at,
                    strength=strength if strength is not None else 1.0,
                    confidence=confidence,
                )
            )
        hits.sort(key=lambda h: -h.score)
        return hits

    @staticmethod
    def _allowed(node: Node, query: RecallQuery, window: tuple[int | None, int | None]) -> bool:
        if node.type.value not in RECALLABLE or node.user_id != query.user_id or node.id in query.exclude_ids:
            return False
        data: dict[str, Any] = node.__dict__
        if data.get("active") is False:
            return False
        if data.get("valid_until") is not None and data["valid_until"] <= now_ms():
            return False
        created = node.created_at
        return not (
            (window[0] is not None and created < window[0])
            or (window[1] is not None and created >= window[1])
        )
