"""Views and jobs take the narrowest view of the memory they use (thea/memory/ports.py), so they
run against small in-memory fakes: no engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from services.common.ownership import own_node
from services.knowledge.forgetting import forget
from services.views.export import count_impulses
from thea.errors import NotFoundError
from thea.memory.ports import ExportSource, Forgetting, NodeLookup, ReflectionSource, VectorBacklog
from thea.models import DialogueTurn, Fact, Node
from workers.schedule import queue_reflections
from workers.vector_catch_up import catch_up_window


@dataclass
class Nodes:
    """NodeLookup over a dict."""

    nodes: dict[str, Node] = field(default_factory=dict)

    def get(self, ids: Sequence[str]) -> list[Node]:
        return [self.nodes[i] for i in ids if i in self.nodes]

    def resolve_id(self, prefix: str, *, user_id: str | None = None) -> str:
        found = [i for i, n in self.nodes.items() if i.startswith(prefix) and user_id in (None, n.user_id)]
        if len(found) != 1:
            raise NotFoundError(f"no memory with id starting {prefix!r}")
        return found[0]


def test_someone_elses_node_is_reported_like_a_missing_one() -> None:
    lookup: NodeLookup = Nodes({"abc1": DialogueTurn(id="abc1", content="hi", user_id="ana")})
    assert own_node(lookup, "abc", "ana").id == "abc1"
    with pytest.raises(NotFoundError) as theirs:
        own_node(lookup, "abc", "bob")
    with pytest.raises(NotFoundError) as missing:
        own_node(lookup, "zzz", "bob")
    assert str(theirs.value).replace("abc", "zzz") == str(missing.value)


@dataclass
class Counts(Nodes):
    """ExportSource's counts (its pages are not read here)."""

    exchange: object = None

    def node_counts(self) -> dict[str, int]:
        return {"UserImpulse": 3, "edges": 9}


def test_count_impulses_reads_the_counts_only() -> None:
    source: ExportSource = Counts()  # type: ignore[assignment]  # exchange left out: never read
    assert count_impulses(source) == 3


@dataclass
class Insights:
    users: list[str]

    def users_with_insights(self) -> list[str]:
        return self.users


@dataclass
class Reflection:
    reflection: Insights


@dataclass
class Jobs:
    queued: list[tuple[str, str]] = field(default_factory=list)

    def enqueue_reflect(self, user_id: str, request_id: str) -> str:
        self.queued.append((user_id, request_id))
        return f"reflect-{request_id}"


def test_one_reflection_is_queued_per_user_with_insights() -> None:
    source: ReflectionSource = Reflection(Insights(["ana", "bob"]))  # type: ignore[assignment]
    jobs = Jobs()
    ids = queue_reflections(source, jobs, "slot7")  # type: ignore[arg-type]
    assert ids == ["reflect-scheduled-slot7-ana", "reflect-scheduled-slot7-bob"]


@dataclass
class Backlog:
    waiting: list[Node]
    batches: list[list[str]] = field(default_factory=list)

    def waiting_for_vectors(self, limit: int) -> list[Node]:
        return self.waiting[:limit]

    def embed_waiting(self, nodes: Sequence[Node]) -> int:
        self.batches.append([n.id for n in nodes])
        return len(nodes)

    def pending_vectors(self) -> int:
        return len(self.waiting) - sum(len(b) for b in self.batches)


def test_catch_up_embeds_the_shortest_first_in_batches_and_stops_when_asked() -> None:
    turns: list[Node] = [DialogueTurn(id=f"t{n}", content="word " * n, user_id="ana") for n in (5, 1, 3, 2)]
    backlog: VectorBacklog = Backlog(turns)
    assert catch_up_window(backlog, window=10, batch=2) == 4
    assert isinstance(backlog, Backlog)
    assert backlog.batches == [["t1", "t2"], ["t3", "t5"]]
    again = Backlog(turns)
    answers = iter([True, False])
    assert catch_up_window(again, window=10, batch=2, before_batch=lambda: next(answers)) == 2


@dataclass
class Forgets(Nodes):
    inactive: list[str] = field(default_factory=list)
    props: dict[str, dict[str, Any]] = field(default_factory=dict)

    def set_active(self, nodes: Sequence[Node], active: bool) -> None:
        assert not active
        self.inactive += [n.id for n in nodes]

    def set_properties(self, ids: Sequence[str], props: dict[str, Any]) -> int:
        for i in ids:
            self.props.setdefault(i, {}).update(props)
        return len(ids)


def test_forgetting_a_fact_archives_it_and_ends_it() -> None:
    memory = Forgets({"f1": Fact(id="f1", content="I live in York", user_id="ana")})
    target: Forgetting = memory
    outcome = forget(target, "f1", "ana")
    assert (outcome.id, outcome.kind) == ("f1", "Fact")
    assert memory.inactive == ["f1"]
    assert memory.props["f1"]["valid_until"] > 0
    with pytest.raises(NotFoundError):
        forget(target, "f1", "bob")


@dataclass
class Recorder:
    """AsyncRecorder that keeps what it was given."""

    recorded: list[tuple[list[Node], list[Any]]] = field(default_factory=list)

    async def arecord(self, nodes: Sequence[Node], links: Sequence[Any] = ()) -> Any:
        self.recorded.append((list(nodes), list(links)))
        return None


async def test_the_distiller_only_records_what_it_distilled() -> None:
    from services.common.exchange import Exchange
    from services.reflection.distiller import Distiller
    from thea.memory.ports import AsyncRecorder

    recorder = Recorder()
    memory: AsyncRecorder = recorder
    exchange = Exchange(
        question="Where do I live?", answer="In Leeds.", impulse_id="imp1", response_id="res1"
    )
    (turn,) = await Distiller(memory, llm=None).distill([exchange], "ana", "s1")
    ((nodes, links),) = recorder.recorded
    assert nodes == [turn]
    assert turn.source_ids == ["imp1", "res1"]
    assert {link.dst for link in links} == {"imp1", "res1"}
