"""Consistency of the memory layers: find, and repair, what a partial write or a crash left behind.

The graph is the source of truth (``UniversalMemory.record`` writes it first). :func:`check`
walks it in id order, one page at a time (keyset pagination, never everything at once), and
for each page asks the vector store and the chronicle in one batch which of the page's nodes
they hold. It then walks the vector points and the chronicle events page by page and asks the
graph, again in batches, which of their nodes still exist. Impulses whose cycle recorded no
``FinalResponse`` and that are older than a grace period are *incomplete cycles* (the process
died mid-cycle, or synthesis failed and the user got the fallback answer).

:func:`repair` does the same walk and fixes as it goes: it re-embeds missing vectors from the
graph content, re-appends missing chronicle events, deletes orphan points and events (the
chronicle's records of erasures, ``thea.memory.erasure``, stand for no node by design and are
kept), and marks incomplete cycles with ``status = "incomplete"`` (they are then no longer
reported). Every fix is idempotent, so a second repair finds nothing to do.

Nodes whose vectors a large import left to the background (graph property ``embed_pending``,
see ``UniversalMemory.embed_pending``) are *pending*, not missing: the scan counts them apart,
they do not make the memory inconsistent, and ``repair`` leaves them to the background.

A derived layer whose files cannot be read at all (see ``thea.memory.salvage``) arrives as a
:class:`Damage`: ``check`` skips it and reports it, ``repair`` gets a fresh empty one in its
place and refills it from the graph like any other missing data.

Known limit: a node counts as embedded when at least one of its chunks has a point; a single
lost chunk of a long text is not detected.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from thea.errors import TheaError
from thea.memory.concept_owners import give_owners, is_shared_concept
from thea.memory.erasure import is_erasure_event
from thea.memory.universal import EMBED_PENDING, UniversalMemory, collection_for
from thea.models import Collection, CycleStatus, Node, NodeType, now_ms

log = logging.getLogger(__name__)

#: Value of the ``status`` property that repair sets on impulses of incomplete cycles.
INCOMPLETE = "incomplete"
#: A cycle younger than this may still be running (4 steps, each up to the LLM timeout).
DEFAULT_GRACE_MS = 15 * 60 * 1000
#: How many ids of each issue a report keeps as examples.
EXAMPLES = 10

#: ``progress(phase, done, total)``; phases are ``graph``, ``vectors`` and ``chronicle``.
ProgressFn = Callable[[str, int, int], None]


class Issue(StrEnum):
    MISSING_VECTORS = "missing_vectors"
    MISSING_EVENTS = "missing_events"
    ORPHAN_POINTS = "orphan_points"
    ORPHAN_EVENTS = "orphan_events"
    INCOMPLETE_CYCLES = "incomplete_cycles"
    SHARED_CONCEPTS = "shared_concepts"


ISSUE_HELP: dict[Issue, str] = {
    Issue.MISSING_VECTORS: "recall-worthy graph nodes without an embedding",
    Issue.MISSING_EVENTS: "graph nodes without a chronicle event",
    Issue.ORPHAN_POINTS: "vector points whose node is not in the graph",
    Issue.ORPHAN_EVENTS: "chronicle events whose node is not in the graph",
    Issue.INCOMPLETE_CYCLES: "impulses whose cycle recorded no final response",
    Issue.SHARED_CONCEPTS: "concepts without an owner (written before concepts were per user)",
}


def _zero() -> dict[Issue, int]:
    return dict.fromkeys(Issue, 0)


@dataclass
class Damage:
    """A derived layer's file or directory that cannot be read."""

    layer: str  # "chronicle" or "vectors"
    path: str
    reason: str
    #: the vector collection, for a damaged collection directory
    collection: str | None = None
    #: where ``repair`` moved it (None: still in place, skipped by the scan)
    moved_to: str | None = None
    #: what to do, when it is not ``thea memory repair``
    advice: str | None = None

    def describe(self) -> str:
        what = f"{self.layer} {self.path}"
        if self.advice and not self.moved_to:
            return f"{what} is unreadable ({self.reason}); {self.advice}"
        rebuilt = "rebuilt from the graph" if self.layer == "chronicle" else "re-embedded from the graph"
        if self.moved_to:
            return f"{what} was unreadable ({self.reason}); moved aside to {self.moved_to} and {rebuilt}"
        verb = "move it aside and rebuild it" if self.layer == "chronicle" else "move it aside and re-embed"
        return f"{what} is unreadable ({self.reason}); run `thea memory repair` to {verb} from the graph"


@dataclass
class ConsistencyReport:
    """What a scan found (and, for :func:`repair`, what it fixed)."""

    checked_nodes: int = 0
    checked_points: int = 0
    checked_events: int = 0
    found: dict[Issue, int] = field(default_factory=_zero)
    repaired: dict[Issue, int] = field(default_factory=_zero)
    examples: dict[Issue, list[str]] = field(default_factory=lambda: {i: [] for i in Issue})
    #: Cycles marked incomplete by an earlier repair (acknowledged, not an issue any more).
    marked_incomplete: int = 0
    #: Nodes without vectors that wait for the background to compute them (not an issue).
    pending_vectors: int = 0
    #: Derived layers that could not be read (and, after repair, where they were moved).
    damaged: list[Damage] = field(default_factory=list)

    @property
    def unreadable(self) -> list[Damage]:
        """Damage still in place (a check found it; a repair did not move it)."""
        return [d for d in self.damaged if d.moved_to is None]

    @property
    def ok(self) -> bool:
        return not any(self.found.values()) and not self.unreadable

    @property
    def total_found(self) -> int:
        return sum(self.found.values())

    @property
    def total_repaired(self) -> int:
        return sum(self.repaired.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": {
                "nodes": self.checked_nodes,
                "points": self.checked_points,
                "events": self.checked_events,
            },
            "found": {i.value: n for i, n in self.found.items()},
            "repaired": {i.value: n for i, n in self.repaired.items()},
            "examples": {i.value: ids for i, ids in self.examples.items()},
            "meaning": {i.value: ISSUE_HELP[i] for i in Issue},
            "marked_incomplete": self.marked_incomplete,
            "pending_vectors": self.pending_vectors,
            "damaged": [{**asdict(d), "description": d.describe()} for d in self.damaged],
        }


def check(
    memory: UniversalMemory,
    *,
    grace_ms: int = DEFAULT_GRACE_MS,
    page_size: int = 500,
    progress: ProgressFn | None = None,
    damage: Sequence[Damage] = (),
) -> ConsistencyReport:
    """Compare the layers; change nothing. ``damage``: layers found unreadable when opening."""
    return _Scan(
        memory, fix=False, grace_ms=grace_ms, page_size=page_size, progress=progress, damage=damage
    ).run()


def repair(
    memory: UniversalMemory,
    *,
    grace_ms: int = DEFAULT_GRACE_MS,
    page_size: int = 500,
    progress: ProgressFn | None = None,
    damage: Sequence[Damage] = (),
    written_before_ms: int | None = None,
) -> ConsistencyReport:
    """Re-derive what is missing from the graph and drop what has no graph node (idempotent).
    ``damage``: layers that were unreadable and have been moved aside (refilled here).
    ``written_before_ms``: only nodes written before then are looked at for missing vectors and
    events, and every cycle started before then without an answer is incomplete (a service
    repairing what its killed predecessor left, while its own writes go on)."""
    return _Scan(
        memory,
        fix=True,
        grace_ms=grace_ms,
        page_size=page_size,
        progress=progress,
        damage=damage,
        written_before_ms=written_before_ms,
    ).run()


class _Scan:
    def __init__(
        self,
        memory: UniversalMemory,
        *,
        fix: bool,
        grace_ms: int,
        page_size: int,
        progress: ProgressFn | None,
        damage: Sequence[Damage] = (),
        written_before_ms: int | None = None,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be positive")
        self.memory = memory
        self.fix = fix
        self.written_before_ms = written_before_ms
        self.cutoff = written_before_ms if written_before_ms is not None else now_ms() - max(grace_ms, 0)
        self.page = page_size
        self.progress = progress or (lambda phase, done, total: None)
        self.report = ConsistencyReport(damaged=list(damage))
        unreadable = self.report.unreadable
        self.chronicle_ok = not any(d.layer == "chronicle" for d in unreadable)
        self.collections = [c for c in Collection if c.value not in {d.collection for d in unreadable}]

    def run(self) -> ConsistencyReport:
        self._graph_pass()
        self._vector_pass()
        if self.chronicle_ok:
            self._chronicle_pass()
        r = self.report
        log.info(
            "consistency %s: checked %d nodes, %d points, %d events; found %s; repaired %s",
            "repair" if self.fix else "check",
            r.checked_nodes,
            r.checked_points,
            r.checked_events,
            {i.value: n for i, n in r.found.items() if n},
            {i.value: n for i, n in r.repaired.items() if n},
        )
        return r

    # -- bookkeeping -------------------------------------------------------------------

    def _found(self, issue: Issue, ids: Sequence[str]) -> None:
        if not ids:
            return
        self.report.found[issue] += len(ids)
        room = EXAMPLES - len(self.report.examples[issue])
        if room > 0:
            self.report.examples[issue].extend(ids[:room])

    def _graph_has(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        return self.memory.exchange.existing_ids(ids)

    # -- graph -> vectors, chronicle, cycles ---------------------------------------------

    def _graph_pass(self) -> None:
        counts = self.memory.graph.count_by_type()
        total = sum(n for kind, n in counts.items() if kind != "edges")
        after = ""
        while True:
            props = self.memory.admin.memory_page(after, self.page)
            if not props:
                break
            after = str(props[-1]["id"])
            shared = [p for p in props if is_shared_concept(p)]
            self._shared_concepts(shared)
            nodes: list[Node] = []
            pending = {str(p["id"]) for p in props if p.get(EMBED_PENDING)}
            for p in props:
                if is_shared_concept(p):
                    continue
                try:
                    nodes.append(Node.from_props(p))
                except (TheaError, ValueError) as exc:
                    log.warning("consistency: skipping unreadable node %s: %s", p.get("id"), exc)
            if self.written_before_ms is not None:  # what is written now may be under way
                nodes = [n for n in nodes if n.created_at < self.written_before_ms]
            self._check_events(nodes)
            self._check_vectors(nodes, pending)
            self._check_cycles(props)
            self.report.checked_nodes += len(props)
            self.progress("graph", self.report.checked_nodes, max(total, self.report.checked_nodes))
            if len(props) < self.page:
                break

    def _shared_concepts(self, shared: list[dict[str, Any]]) -> None:
        """Unowned concepts reach no user (reads match the owner); repair gives each user a copy."""
        self._found(Issue.SHARED_CONCEPTS, [str(p["id"]) for p in shared])
        if self.fix and shared:
            give_owners(self.memory, shared)
            self.report.repaired[Issue.SHARED_CONCEPTS] += len(shared)

    def _check_events(self, nodes: Sequence[Node]) -> None:
        if not self.chronicle_ok:
            return
        have = self.memory.chronicle.existing_ids([n.id for n in nodes])
        missing = [n for n in nodes if n.id not in have]
        self._found(Issue.MISSING_EVENTS, [n.id for n in missing])
        if self.fix and missing:
            self.memory.chronicle.append([self.memory.event_of(n) for n in missing])
            self.report.repaired[Issue.MISSING_EVENTS] += len(missing)

    def _check_vectors(self, nodes: Sequence[Node], pending: set[str]) -> None:
        by_collection: dict[Collection, list[Node]] = defaultdict(list)
        for node in nodes:
            text = node.embedding_text()
            if text and text.strip():
                by_collection[collection_for(node.type)].append(node)
        for collection, group in by_collection.items():
            if collection not in self.collections:
                continue
            have = self.memory.vectors.existing_ids(collection, [n.id for n in group])
            waiting = [n for n in group if n.id not in have and n.id in pending]
            self.report.pending_vectors += len(waiting)  # the background computes them
            missing = [n for n in group if n.id not in have and n.id not in pending]
            self._found(Issue.MISSING_VECTORS, [n.id for n in missing])
            if self.fix and missing:
                records = self.memory.vector_records(missing)  # re-embedded from graph content
                if records:
                    self.memory.vectors.upsert(records)
                self.report.repaired[Issue.MISSING_VECTORS] += len(missing)

    def _check_cycles(self, props: Sequence[dict[str, Any]]) -> None:
        candidates: list[str] = []
        for p in props:
            if p.get("type") != NodeType.USER_IMPULSE.value or p.get("correlation_id") != p.get("id"):
                continue  # only impulses that started a cycle (the orchestrator sets correlation = id)
            if p.get("status") == INCOMPLETE:
                self.report.marked_incomplete += 1
                continue
            if p.get("status") == CycleStatus.CANCELLED:
                continue  # the user cancelled it: no answer is expected
            if int(p.get("created_at") or 0) < self.cutoff:
                candidates.append(str(p["id"]))
        if not candidates:
            return
        incomplete = self.memory.admin.cycles_without_response(candidates)
        self._found(Issue.INCOMPLETE_CYCLES, incomplete)
        if self.fix and incomplete:
            self.memory.graph.set_properties(incomplete, {"status": INCOMPLETE})
            self.report.repaired[Issue.INCOMPLETE_CYCLES] += len(incomplete)

    # -- vectors -> graph ----------------------------------------------------------------

    def _vector_pass(self) -> None:
        totals = {c: self.memory.vectors.count(c) for c in self.collections}
        total = sum(totals.values())
        for collection in self.collections:
            reported: set[str] = set()  # an orphan's chunks may span pages
            cursor: str | None = None
            while True:
                ids, cursor = self.memory.vectors.scan_node_ids(collection, cursor, self.page)
                self.report.checked_points += len(ids)
                unique = [i for i in dict.fromkeys(ids) if i and i != "None"]
                exists = self._graph_has(unique)
                orphans = [i for i in unique if i not in exists and i not in reported]
                reported.update(orphans)
                self._found(Issue.ORPHAN_POINTS, orphans)
                if self.fix and orphans:
                    self.memory.vectors.delete(collection, orphans)
                    self.report.repaired[Issue.ORPHAN_POINTS] += len(orphans)
                self.progress("vectors", self.report.checked_points, max(total, self.report.checked_points))
                if cursor is None or not ids:
                    break

    # -- chronicle -> graph --------------------------------------------------------------

    def _chronicle_pass(self) -> None:
        total = self.memory.chronicle.count()
        reported: set[str] = set()
        cursor: str | None = None
        while True:
            ids, cursor = self.memory.chronicle.scan_ids(cursor, self.page)
            self.report.checked_events += len(ids)
            unique = [i for i in dict.fromkeys(ids) if not is_erasure_event(i)]
            exists = self._graph_has(unique)
            orphans = [i for i in unique if i not in exists and i not in reported]
            reported.update(orphans)
            self._found(Issue.ORPHAN_EVENTS, orphans)
            if self.fix and orphans:
                self.report.repaired[Issue.ORPHAN_EVENTS] += self.memory.chronicle.delete(orphans)
            self.progress("chronicle", self.report.checked_events, max(total, self.report.checked_events))
            if cursor is None or not ids:
                break


__all__ = [
    "DEFAULT_GRACE_MS",
    "INCOMPLETE",
    "ISSUE_HELP",
    "ConsistencyReport",
    "Damage",
    "Issue",
    "check",
    "repair",
]
