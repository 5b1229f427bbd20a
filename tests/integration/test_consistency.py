"""`thea memory check` / `repair` on real embedded layers: damage made behind thea's back is
found, repaired from the graph, and a second repair has nothing left to do."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from typer.testing import CliRunner

from tests.service_support import stop_services_under
from thea.cli.main import app
from thea.config import Settings
from thea.errors import ChronicleDamaged, VectorStoreDamaged
from thea.memory.chronicle.redis import RedisChronicle
from thea.memory.consistency import INCOMPLETE, Issue, check, repair
from thea.memory.embedded_server import EmbeddedFalkorDB
from thea.memory.factory import data_dir, open_memory
from thea.memory.universal import UniversalMemory
from thea.memory.vector.qdrant_server import QdrantServerStore
from thea.models import (
    ChronicleEvent,
    Collection,
    Concept,
    Fact,
    FinalResponse,
    Task,
    UserImpulse,
    VectorFilter,
    VectorRecord,
    now_ms,
)

HOUR_MS = 3_600_000


@pytest.fixture
def memory(settings: Settings) -> Iterator[UniversalMemory]:
    mem = open_memory(settings)
    try:
        yield mem
    finally:
        mem.close()


def _delete_event_behind_thea(settings: Settings, event_id: str) -> None:
    """Another program edits the chronicle file directly."""
    with sqlite3.connect(data_dir(settings) / "chronicle.sqlite3") as db:
        assert db.execute("DELETE FROM events WHERE id = ?", (event_id,)).rowcount == 1


def _recalled_ids(memory: UniversalMemory, text: str, user: str) -> list[str]:
    return [h.id for h in memory.search(text, flt=VectorFilter(user_id=user), limit=5)]


def test_lost_vector_and_event_are_found_repaired_and_a_second_repair_is_a_no_op(
    memory: UniversalMemory, settings: Settings
) -> None:
    impulse = UserImpulse(content="I moved to Lisbon last spring.", user_id="ana")
    fact = Fact(content="Ana's cat is called Miso.", user_id="ana")
    concept = Concept.named("Lisbon", "ana")
    task = Task(step="plan", service="planner", content="plan for impulse", user_id="ana")
    memory.record([impulse, fact, concept, task])
    assert check(memory).ok

    memory.vectors.delete(Collection.EXPERIENCE, [fact.id])
    _delete_event_behind_thea(settings, impulse.id)
    assert fact.id not in _recalled_ids(memory, "What is my cat called?", "ana")

    report = check(memory)
    assert not report.ok
    assert report.found[Issue.MISSING_VECTORS] == 1
    assert report.examples[Issue.MISSING_VECTORS] == [fact.id]
    assert report.found[Issue.MISSING_EVENTS] == 1
    assert report.examples[Issue.MISSING_EVENTS] == [impulse.id]
    assert report.total_found == 2
    assert report.checked_nodes == 4
    assert report.total_repaired == 0  # check changes nothing
    assert not check(memory).ok

    fixed = repair(memory)
    assert fixed.repaired[Issue.MISSING_VECTORS] == 1
    assert fixed.repaired[Issue.MISSING_EVENTS] == 1
    assert fact.id in _recalled_ids(memory, "What is my cat called?", "ana")  # recallable again
    (event,) = [e for e in memory.events(0, 2**62, user_id="ana") if e.id == impulse.id]
    assert event.summary == impulse.content
    assert check(memory).ok

    again = repair(memory)
    assert again.total_found == 0
    assert again.total_repaired == 0


def test_orphan_point_and_event_are_detected_and_removed(memory: UniversalMemory) -> None:
    kept = UserImpulse(content="The deploy runs on Fridays.", user_id="ana")
    memory.record([kept])
    ghost = UserImpulse(content="A ghost memory about Fridays that the graph never saw.", user_id="ana")
    memory.vectors.upsert(memory.vector_records([ghost]))  # as if the graph write had been lost
    memory.chronicle.append([memory.event_of(ghost)])
    assert ghost.id in _recalled_ids(memory, "ghost memory about Fridays", "ana")

    report = check(memory)
    assert report.found[Issue.ORPHAN_POINTS] == 1
    assert report.examples[Issue.ORPHAN_POINTS] == [ghost.id]
    assert report.found[Issue.ORPHAN_EVENTS] == 1
    assert report.examples[Issue.ORPHAN_EVENTS] == [ghost.id]
    assert report.found[Issue.MISSING_VECTORS] == report.found[Issue.MISSING_EVENTS] == 0

    fixed = repair(memory)
    assert fixed.repaired[Issue.ORPHAN_POINTS] == 1
    assert fixed.repaired[Issue.ORPHAN_EVENTS] == 1
    recalled = _recalled_ids(memory, "ghost memory about Fridays", "ana")
    assert ghost.id not in recalled
    assert kept.id in recalled  # the real memory is untouched
    assert memory.chronicle.existing_ids([ghost.id, kept.id]) == {kept.id}
    assert check(memory).ok
    assert repair(memory).total_repaired == 0


def test_old_cycles_without_a_final_response_are_marked_incomplete(memory: UniversalMemory) -> None:
    old = now_ms() - HOUR_MS

    def cycle_impulse(text: str, created_at: int) -> UserImpulse:
        impulse = UserImpulse(content=text, user_id="ana", created_at=created_at)
        impulse.correlation_id = impulse.id
        return impulse

    crashed = cycle_impulse("The process died while answering this.", old)
    answered = cycle_impulse("This one got an answer.", old)
    response = FinalResponse(content="Here it is.", user_id="ana", correlation_id=answered.id)
    running = cycle_impulse("This cycle is still running.", now_ms())
    imported = UserImpulse(content="Imported history, not a cycle.", user_id="ana", created_at=old)
    memory.record([crashed, answered, response, running, imported])

    report = check(memory)
    assert report.found[Issue.INCOMPLETE_CYCLES] == 1
    assert report.examples[Issue.INCOMPLETE_CYCLES] == [crashed.id]
    assert check(memory, grace_ms=0).found[Issue.INCOMPLETE_CYCLES] == 2  # the running one too

    fixed = repair(memory)
    assert fixed.repaired[Issue.INCOMPLETE_CYCLES] == 1
    (props,) = [p for p in memory.admin.memory_page("", 1000) if p["id"] == crashed.id]
    assert props["status"] == INCOMPLETE
    assert memory.get([crashed.id])[0].content == crashed.content  # still readable as a node
    after = check(memory)
    assert after.ok
    assert after.marked_incomplete == 1
    assert repair(memory).total_repaired == 0


def test_scans_page_through_every_layer(memory: UniversalMemory, settings: Settings) -> None:
    tasks = [Task(step="recall", service="recall", content=f"task {i}", user_id="ana") for i in range(950)]
    impulses = [UserImpulse(content=f"note number {i} about queues", user_id="ana") for i in range(60)]
    memory.record([*tasks, *impulses])
    damaged = [tasks[10].id, tasks[500].id, tasks[949].id, impulses[59].id]
    for event_id in damaged:
        _delete_event_behind_thea(settings, event_id)
    memory.vectors.delete(Collection.EXPERIENCE, [impulses[0].id, impulses[33].id])

    calls: list[tuple[str, int, int]] = []
    report = check(memory, page_size=100, progress=lambda *a: calls.append(a))
    assert report.checked_nodes == 1010
    assert report.found[Issue.MISSING_EVENTS] == 4
    assert sorted(report.examples[Issue.MISSING_EVENTS]) == sorted(damaged)
    assert report.found[Issue.MISSING_VECTORS] == 2
    graph_pages = [c for c in calls if c[0] == "graph"]
    assert len(graph_pages) == 11  # one progress step per page of 100
    assert graph_pages[-1][1:] == (1010, 1010)
    assert {c[0] for c in calls} == {"graph", "vectors", "chronicle"}
    assert [c for c in calls if c[0] == "chronicle"][-1][1] == 1010 - 4

    assert repair(memory, page_size=100).total_repaired == 6
    assert check(memory, page_size=7).ok  # a page size that does not divide the counts


def test_cli_check_exits_1_on_damage_and_repair_fixes_it(settings: Settings) -> None:
    memory = open_memory(settings)
    try:
        fact = Fact(content="The staging database is on port 5433.", user_id="ana")
        memory.record([fact])
        memory.vectors.delete(Collection.EXPERIENCE, [fact.id])
    finally:
        memory.close()  # one process owns the embedded vector store: the CLI opens it next

    runner = CliRunner()
    obj = {"settings": settings}
    result = runner.invoke(app, ["memory", "check"], obj=obj)
    assert result.exit_code == 1, result.output
    assert "missing_vectors" in result.output
    assert fact.id[:8] in result.output

    as_json = runner.invoke(app, ["memory", "check", "--json"], obj=obj)
    assert as_json.exit_code == 1
    data = json.loads(as_json.stdout)
    assert data["ok"] is False
    assert data["found"]["missing_vectors"] == 1

    fixed = runner.invoke(app, ["memory", "repair"], obj=obj)
    assert fixed.exit_code == 0, fixed.output
    assert "repaired 1" in fixed.output

    clean = runner.invoke(app, ["memory", "check"], obj=obj)
    assert clean.exit_code == 0, clean.output
    assert "consistent" in clean.output


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")
def test_the_server_adapters_support_the_scans_behind_check_and_repair(
    falkordb_server: EmbeddedFalkorDB,
) -> None:
    chronicle = RedisChronicle(falkordb_server.client(), key_prefix="thea-test")
    events = [
        ChronicleEvent(id=f"e{i:03d}", type="UserImpulse", time=1000 + i, user_id="ana", correlation_id="c1")
        for i in range(120)
    ]
    chronicle.append(events)
    assert _all_pages(lambda cursor: chronicle.scan_ids(cursor, 50)) == {e.id for e in events}
    assert chronicle.delete(["e000", "e001", "not-logged"]) == 2
    assert chronicle.count() == 118
    assert "e000" not in {e.id for e in chronicle.by_correlation("c1")}
    assert "e001" not in {e.id for e in chronicle.range(0, 2**62, user_id="ana")}

    store = QdrantServerStore(client=QdrantClient(":memory:"), dimension=3)
    records = [
        VectorRecord(
            id=f"node-{i}",
            collection=Collection.EXPERIENCE,
            vector=[1.0, i, 0.5],
            type="Fact",
            text="t",
            chunk=c,
        )
        for i in range(40)
        for c in range(3)  # three chunks per node
    ]
    store.upsert(records)
    seen = _all_pages(lambda cursor: store.scan_node_ids(Collection.EXPERIENCE, cursor, 25))
    assert seen == {f"node-{i}" for i in range(40)}
    assert store.existing_ids(Collection.EXPERIENCE, ["node-3", "ghost"]) == {"node-3"}


def _all_pages(fetch: Callable[[str | None], tuple[list[str], str | None]]) -> set[str]:
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(1000):
        ids, cursor = fetch(cursor)
        seen.update(ids)
        if cursor is None:
            return seen
    raise AssertionError("the scan never ended")


def _record_and_close(settings: Settings, nodes: list[UserImpulse | Fact]) -> None:
    memory = open_memory(settings)
    try:
        memory.record(nodes)
    finally:
        memory.close()  # the CLI opens the embedded stores next


def test_a_chronicle_with_garbage_in_its_header_is_reported_then_rebuilt_from_the_graph(
    settings: Settings,
) -> None:
    impulse = UserImpulse(content="I moved to Lisbon last spring.", user_id="ana")
    fact = Fact(content="Ana's cat is called Miso.", user_id="ana")
    _record_and_close(settings, [impulse, fact])
    path = data_dir(settings) / "chronicle.sqlite3"
    with path.open("r+b") as f:
        f.write(b"this is not an SQLite header, just garbage" * 3)

    with pytest.raises(ChronicleDamaged, match="thea memory repair"):  # what every other command says
        open_memory(settings)

    runner = CliRunner()
    obj = {"settings": settings}
    checked = runner.invoke(app, ["memory", "check"], obj=obj)
    assert checked.exit_code == 1, checked.output
    assert "Traceback" not in checked.output
    one_line = " ".join(checked.output.split())
    assert f"chronicle {path} is unreadable (file is not a database)" in one_line
    assert "run `thea memory repair`" in one_line
    data = json.loads(runner.invoke(app, ["memory", "check", "--json"], obj=obj).stdout)
    assert data["ok"] is False
    (damaged,) = data["damaged"]
    assert {k: v for k, v in damaged.items() if k != "description"} == {
        "layer": "chronicle",
        "path": str(path),
        "reason": "file is not a database",
        "collection": None,
        "moved_to": None,
        "advice": None,
    }
    assert path.read_bytes().startswith(b"this is not an SQLite header")  # check changed nothing

    fixed = runner.invoke(app, ["memory", "repair"], obj=obj)
    assert fixed.exit_code == 0, fixed.output
    (aside,) = path.parent.glob("chronicle.sqlite3.damaged-*")
    assert aside.read_bytes().startswith(b"this is not an SQLite header")  # kept for inspection
    assert f"moved aside to {aside}" in " ".join(fixed.output.split())

    stop_services_under(Path(settings.data_dir))  # repair ended the maintenance service: let it go
    memory = open_memory(settings)
    try:
        events = {e.id: e for e in memory.events(0, 2**62, user_id="ana")}
        assert events[impulse.id].summary == impulse.content
        assert events[fact.id].summary == fact.content
        assert check(memory).ok
    finally:
        memory.close()
    assert runner.invoke(app, ["memory", "check"], obj=obj).exit_code == 0


def test_a_chronicle_with_a_corrupt_page_is_found_by_the_page_check(settings: Settings) -> None:
    memory = open_memory(settings)
    try:
        memory.record([UserImpulse(content=f"note {i} " + "x" * 300, user_id="ana") for i in range(300)])
    finally:
        memory.close()
    path = data_dir(settings) / "chronicle.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    with path.open("r+b") as f:  # the header is intact: only reading every page finds this
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\xff" * 4096)

    runner = CliRunner()
    checked = runner.invoke(app, ["memory", "check", "--json"], obj={"settings": settings})
    assert checked.exit_code == 1, checked.output
    (damage,) = json.loads(checked.stdout)["damaged"]
    assert damage["layer"] == "chronicle"
    fixed = runner.invoke(app, ["memory", "repair", "--json"], obj={"settings": settings})
    assert fixed.exit_code == 0, fixed.output
    assert json.loads(fixed.stdout)["repaired"]["missing_events"] == 300
    assert runner.invoke(app, ["memory", "check"], obj={"settings": settings}).exit_code == 0


def test_a_damaged_vector_collection_is_named_then_re_embedded_from_the_graph(settings: Settings) -> None:
    fact = Fact(content="Ana's cat is called Miso.", user_id="ana")
    _record_and_close(settings, [fact, UserImpulse(content="I moved to Lisbon last spring.", user_id="ana")])
    folder = data_dir(settings) / "vectors" / Collection.EXPERIENCE.value
    for mapping in folder.glob("segments/*/mutable_id_tracker.mappings"):
        mapping.write_bytes(b"\xff" * mapping.stat().st_size)

    with pytest.raises(VectorStoreDamaged, match="thea memory repair"):
        open_memory(settings)

    runner = CliRunner()
    obj = {"settings": settings}
    checked = runner.invoke(app, ["memory", "check"], obj=obj)
    assert checked.exit_code == 1, checked.output
    assert "Traceback" not in checked.output
    one_line = " ".join(checked.output.split())
    assert f"vectors {folder} is unreadable" in one_line
    assert "re-embed from the graph" in one_line

    fixed = runner.invoke(app, ["memory", "repair"], obj=obj)
    assert fixed.exit_code == 0, fixed.output
    (aside,) = folder.parent.glob("experience.damaged-*")
    assert f"moved aside to {aside}" in " ".join(fixed.output.split())
    stop_services_under(Path(settings.data_dir))
    memory = open_memory(settings)
    try:
        assert fact.id in _recalled_ids(memory, "What is my cat called?", "ana")
        assert check(memory).ok
    finally:
        memory.close()


def test_a_vector_store_deleted_under_the_running_service_is_reported(settings: Settings) -> None:
    """Qdrant Edge keeps serving the files it mapped after they were deleted, so counts and
    searches looked fine and `check` said "consistent" (issue 22)."""
    _record_and_close(settings, [Fact(content="Ana's cat is called Miso.", user_id="ana")])
    runner = CliRunner()
    obj = {"settings": settings}
    before = runner.invoke(app, ["memory", "check"], obj=obj)  # starts the service: stores open
    assert before.exit_code == 0, before.output
    shutil.rmtree(data_dir(settings) / "vectors")

    checked = runner.invoke(app, ["memory", "check", "--json"], obj=obj)
    assert checked.exit_code == 1, checked.output
    report = json.loads(checked.stdout)
    assert report["ok"] is False
    lost = {d["collection"] for d in report["damaged"] if d["layer"] == "vectors"}
    assert lost == {c.value for c in Collection}
    assert "deleted while the service had the store open" in report["damaged"][0]["description"]
    said = runner.invoke(app, ["memory", "check"], obj=obj)
    assert said.exit_code == 1
    assert "consistent" not in said.output
    stop_services_under(Path(settings.data_dir))


def test_a_repair_bounded_by_its_start_fixes_what_came_before_and_leaves_what_is_being_written(
    memory: UniversalMemory, settings: Settings
) -> None:
    """The repair a service runs after an unclean stop: what its predecessor wrote is fixed (a
    lost event, a cycle that never got an answer, however recent), what is written since the
    start is left alone (its vector or event may still be on the way)."""
    before = UserImpulse(content="I keep bees.", user_id="ana")
    before.correlation_id = before.id  # it started a cycle, which the kill cut short
    memory.record([before])
    started = now_ms() + 1
    during = UserImpulse(content="I keep two hives now.", user_id="ana", created_at=started + 5)
    during.correlation_id = during.id
    memory.record([during])
    _delete_event_behind_thea(settings, before.id)
    _delete_event_behind_thea(settings, during.id)

    report = repair(memory, written_before_ms=started)

    assert report.repaired[Issue.MISSING_EVENTS] == 1  # the predecessor's, not this run's
    assert report.repaired[Issue.INCOMPLETE_CYCLES] == 1
    (props,) = [p for p in memory.admin.memory_page("", 1000) if p["id"] == before.id]
    assert props["status"] == INCOMPLETE
    assert check(memory).found[Issue.MISSING_EVENTS] == 1  # this run's own write was left alone
