"""The recall cascade's fusion against a small in-memory fake of its port (thea.memory.recall_port.
RecallPort): no engine, no model. Words are the fake's embedding (one dimension per word), so what
each stage finds is known in advance and the tests check what the cascade does with it: fuse the
stages, keep each hit's provenance, drop what another user owns or what falls outside the time
window, and recall on when the vector store is down."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from services.recall.cascade import RecallService
from services.recall.types import ALL_STAGES, RecallQuery, RecallResult, Stage
from thea.errors import VectorStoreUnavailable
from thea.memory.operations import ConceptNeighbour, KeywordMatch, TripleMatch
from thea.memory.recall_port import RecallPort
from thea.models import (
    Collection,
    Concept,
    DialogueTurn,
    EdgeType,
    Node,
    NodeType,
    VectorFilter,
    VectorHit,
)
from thea.tuning import RecallTuning

DAY_MS = 86_400_000
T0 = 1_700_000_000_000


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


@dataclass
class FakeRecallPort:
    """Turns in a dict; similarity is the cosine of word counts; a concept links the turns
    that name it."""

    turns: dict[str, DialogueTurn] = field(default_factory=dict)
    concepts: dict[str, Concept] = field(default_factory=dict)
    vectors_down: bool = False
    #: keyword matches to hand out although another user owns them (the cascade must drop them)
    leaked: list[KeywordMatch] = field(default_factory=list)
    #: the embedding's dimensions: one per word seen in a query
    vocabulary: list[str] = field(default_factory=list)

    def add(self, turn_id: str, text: str, *, user: str = "ana", day: int = 0) -> None:
        when = T0 + day * DAY_MS
        self.turns[turn_id] = DialogueTurn(
            id=turn_id, content=text, user_id=user, event_time=when, created_at=when
        )

    def concept(self, name: str, user: str = "ana") -> None:
        found = Concept(name=name, user_id=user)
        self.concepts[found.norm] = found

    # -- the port -----------------------------------------------------------------------

    def recallable_count(self) -> int:
        return len(self.turns)

    def _embed(self, text: str) -> list[float]:
        words = _words(text)
        norm = math.sqrt(sum(words.count(w) ** 2 for w in set(words))) or 1.0
        return [words.count(w) / norm for w in self.vocabulary]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        for text in texts:
            self.vocabulary.extend(w for w in dict.fromkeys(_words(text)) if w not in self.vocabulary)
        return [self._embed(t) for t in texts]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def nearest(
        self,
        collection: Collection,
        vector: list[float],
        limit: int,
        flt: VectorFilter | None = None,
        floor: float | None = None,
    ) -> list[VectorHit]:
        if self.vectors_down:
            raise VectorStoreUnavailable("the fake vector store is down")
        if collection is not Collection.EXPERIENCE:
            return []
        hits: list[VectorHit] = []
        for turn in self.turns.values():
            if flt is not None and not _passes(turn, flt):
                continue
            score = sum(q * d for q, d in zip(vector, self._embed(turn.content), strict=False))
            if floor is None or score >= floor:
                hits.append(VectorHit(id=turn.id, score=score, type=turn.type.value, text=turn.content))
        hits.sort(key=lambda h: -h.score)
        return hits[: limit or len(hits)]

    def keyword_matches(
        self, queries: Sequence[str], types: Sequence[NodeType], user_id: str | None, limit: int
    ) -> list[KeywordMatch]:
        return [match for query in queries for match in self._word_matches(query.lower(), user_id, limit)]

    def _word_matches(self, word: str, user_id: str | None, limit: int) -> list[KeywordMatch]:
        found = [
            KeywordMatch(
                id=t.id,
                type=t.type.value,
                user_id=t.user_id,
                content=t.content,
                context="",
                event_time=t.happened_at(),
                score=1.0,
                evidence=True,
            )
            for t in self.turns.values()
            if word in _words(t.content) and t.user_id == user_id
        ]
        return [*found, *(m for m in self.leaked if word in _words(m.content))][:limit]

    def concepts_by_norm(self, norms: Sequence[str], user_id: str) -> dict[str, Node]:
        return {n: c for n, c in self.concepts.items() if n in norms and c.user_id == user_id}

    def triple_matches(
        self,
        relation: str,
        known: str,
        *,
        known_is_subject: bool,
        other: str | None,
        user_id: str,
        now: int,
    ) -> list[TripleMatch]:
        return []

    def linked_memories(
        self,
        concept_ids: Sequence[str],
        user_id: str | None,
        time_from: int | None,
        time_to: int | None,
        limit: int,
    ) -> list[str]:
        names = {c.norm for c in self.concepts.values() if c.id in concept_ids}
        return [t.id for t in self.turns.values() if t.user_id == user_id and names & set(_words(t.content))][
            :limit
        ]

    def concept_neighbours(
        self, concept_ids: Sequence[str], relations: Sequence[EdgeType], user_id: str | None, now: int
    ) -> list[ConceptNeighbour]:
        return []

    def nodes(self, ids: Sequence[str]) -> list[Node]:
        return [self.turns[i] for i in ids if i in self.turns]


def _passes(turn: DialogueTurn, flt: VectorFilter) -> bool:
    when = turn.happened_at()
    return (
        (flt.user_id is None or turn.user_id == flt.user_id)
        and (flt.node_ids is None or turn.id in flt.node_ids)
        and (flt.created_from is None or when >= flt.created_from)
        and (flt.created_to is None or when < flt.created_to)
    )


@dataclass
class FakeSource:
    """What RecallService is given: something handing out the port."""

    recall_port: FakeRecallPort


def cascade(port: FakeRecallPort, **config: object) -> RecallService:
    return RecallService(FakeSource(port), RecallTuning.model_validate(config))


def recall(
    port: FakeRecallPort, text: str, stages: frozenset[Stage] = ALL_STAGES, **query: Any
) -> RecallResult:
    return cascade(port).recall_sync(RecallQuery(texts=[text], user_id="ana", **query), stages)


def test_the_fake_is_a_recall_port() -> None:
    port: RecallPort = FakeRecallPort()  # checked by mypy too
    assert port.recallable_count() == 0


def test_a_memory_found_by_both_stages_ranks_first() -> None:
    port = FakeRecallPort()
    port.add("both", "Mochi the cat sleeps on the sofa")
    port.add("words", "sofa sofa sofa cushions and sofa covers everywhere in the flat today")
    port.add("other", "The weather in Lisbon was warm")
    result = recall(port, "where does Mochi sleep on the sofa")
    ids = [h.id for h in result.hits]
    assert ids[0] == "both"
    first = result.hits[0]
    assert set(first.stages) == {Stage.VECTORS.value, Stage.KEYWORDS.value}
    assert set(first.stage_scores) == {Stage.VECTORS.value, Stage.KEYWORDS.value}
    assert "other" not in ids


@pytest.mark.parametrize("fusion", ["score", "rrf"])
def test_both_fusions_agree_on_the_double_find(fusion: str) -> None:
    port = FakeRecallPort()
    port.add("both", "Mochi the cat sleeps on the sofa")
    port.add("vector-only", "cat sleeps")
    service = cascade(port, fusion=fusion)
    result = service.recall_sync(RecallQuery(texts=["Mochi sofa cat"], user_id="ana"))
    assert result.hits[0].id == "both"
    assert result.stage_counts[Stage.VECTORS.value] >= 1


def test_another_users_memory_is_never_recalled() -> None:
    port = FakeRecallPort()
    port.add("mine", "I adopted Mochi in spring")
    port.add("theirs", "Mochi is my neighbour's dog", user="bob")
    port.leaked = [
        KeywordMatch(
            id="theirs",
            type=NodeType.DIALOGUE_TURN.value,
            user_id="bob",
            content="Mochi is my neighbour's dog",
            context="",
            event_time=T0,
            score=1.0,
            evidence=True,
        )
    ]
    result = recall(port, "Mochi")
    assert [h.id for h in result.hits] == ["mine"]


def test_the_time_window_keeps_what_happened_in_it() -> None:
    port = FakeRecallPort()
    port.add("before", "We visited Porto together", day=0)
    port.add("during", "We visited Porto again", day=10)
    result = recall(port, "Porto visit", time_from=T0 + 5 * DAY_MS, time_to=T0 + 20 * DAY_MS)
    assert [h.id for h in result.hits] == ["during"]
    everything = recall(port, "Porto visit", ALL_STAGES - {Stage.TEMPORAL}, time_from=T0 + 5 * DAY_MS)
    assert {h.id for h in everything.hits} == {"before", "during"}


def test_recall_goes_on_without_the_vector_store() -> None:
    port = FakeRecallPort(vectors_down=True)
    port.add("turn", "Mochi the cat sleeps on the sofa")
    result = recall(port, "Mochi sofa")
    assert result.failed_stages == [Stage.VECTORS.value]
    assert [h.id for h in result.hits] == ["turn"]
    assert result.hits[0].stages == [Stage.KEYWORDS.value]


def test_a_named_concept_recalls_what_links_to_it_without_a_shared_word() -> None:
    port = FakeRecallPort()
    port.concept("mochi")
    port.add("linked", "mochi came home with a limp")
    result = recall(port, "how is my pet", frozenset({Stage.TRIPLES}), concepts=["Mochi"])
    assert [h.id for h in result.hits] == ["linked"]
    assert result.hits[0].stages == [Stage.TRIPLES.value]
