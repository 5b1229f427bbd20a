"""Forget means forget (issue 37, item 2): forgetting a fact erases its words from every place
they were said or derived — the message that told it, thea's reply, the trace, the answers that
used it, insights drawn from it, the concept it named, the vectors, the log, the short-term
conversation — and from the files on disk, while the rest of the message and what else the user
told stay. Real embedded engines (FalkorDB, Qdrant Edge, SQLite); the model is scripted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.knowledge.memory_edits import forget
from services.views.export import iter_export
from tests.claims_support import said, scripted_reader
from thea.config import Settings, load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.memory.erasure import erase
from thea.memory.graph.falkordb import QUERY_LOG_FLUSH_S
from thea.memory.redaction import FORGOTTEN_MARK
from thea.models import KnowledgeCrystal, UserImpulse
from thea.runtime import Runtime, build_runtime
from thea.testing.deployment import RedisServer, environment_settings, thea_environment

USER = "mira"
SECRET = "Zanzibar7"
TOLD = f"My secret word is {SECRET} and I live in Leeds."


#: what the (scripted) model reads in the first conversation's statement
READ = {
    SECRET: [
        said(f"My secret word is {SECRET}", "secret word", SECRET),
        said("I live in Leeds", "home", "Leeds"),
    ]
}


def script(llm: FakeChatModel) -> None:
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(READ))
    llm.answer(
        PromptId.CRYSTALLIZE,
        json.dumps(
            {"insight": f"The user's secret word is {SECRET}.", "seed": "", "tags": [], "triples": []}
        ),
    )
    llm.answer(PromptId.SYNTHESIS, f"Your secret word is {SECRET}, you told me.")


@pytest.fixture(params=["embedded", "falkordb-server"])
def setup(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Settings, list[Path], RedisServer | None]]:
    """The settings of a profile and every folder it writes: the embedded default (FalkorDB
    child, Qdrant Edge, SQLite log), or the FalkorDB server setup (config/server-falkordb.env:
    a FalkorDB server of its own holding graph, vectors, log, queue and conversations)."""
    if request.param == "embedded":
        settings = load_settings("embedded", data_dir=tmp_path / "data", llm={"provider": "fake"})
        yield settings, [settings.data_dir], None
        return
    server = RedisServer("falkordb", tmp_path / "falkordb", falkordb=True).start()
    try:
        env = thea_environment(
            server.url, f"{server.url}/0", tmp_path / "data", {USER: "tok-mira-0123456789abcdef"}
        )
        yield environment_settings(env), [tmp_path / "data", tmp_path / "falkordb"], server
    finally:
        server.stop()


def files_holding(root: Path, word: str) -> list[str]:
    """Every file under ``root`` whose bytes hold ``word`` (any case, UTF-8 or UTF-16), with the
    bytes around the first place (to tell what kept it)."""
    needles = [word.lower().encode(), word.lower().encode("utf-16-le")]
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes().lower()
            for needle in needles:
                at = data.find(needle)
                if at >= 0:
                    found.append(f"{path.relative_to(root)}: {data[max(0, at - 160) : at + 40]!r}")
                    break
    return found


def held_by_server(server: RedisServer | None, words: list[str]) -> list[str]:
    """Where a live server still holds the words (graph nodes by label, other keys by name):
    what a file holding them was written from."""
    if server is None:
        return []
    found: list[str] = []
    with server.client() as conn:
        for db in range(16):
            conn.execute_command("SELECT", db)
            for key in conn.scan_iter(count=1000):
                kind = conn.type(key).decode()
                if kind == "graphdata":
                    rows = conn.execute_command(
                        "GRAPH.RO_QUERY", key, "MATCH (n) RETURN labels(n), properties(n)"
                    )
                    for row in rows[1]:
                        text = repr(row).lower()
                        found += [f"db{db} graph {key!r} {row[0]!r}: {w}" for w in words if w.lower() in text]
                    continue
                dumped = (conn.dump(key) or b"").lower()
                found += [f"db{db} {kind} {key!r}: {w}" for w in words if w.lower().encode() in dumped]
    return found


def jobs_holding(rt: Runtime, words: list[str]) -> list[str]:
    """The slow loop's stored jobs (any state, results too) whose bytes hold any of ``words``:
    a raw scan of the queue's keys, job data decompressed."""
    redis = rt.jobs.connection
    needles = [w.lower().encode() for w in words]
    found = []
    for key in redis.scan_iter("rq:*"):
        kind = redis.type(key)
        if kind == b"hash":
            blobs = list(redis.hgetall(key).values())
        elif kind == b"stream":
            blobs = [v for _id, fields in redis.xrange(key) for v in fields.values()]
        else:
            continue
        for blob in blobs:
            with contextlib.suppress(zlib.error):
                blob = zlib.decompress(blob)
            if any(n in blob.lower() for n in needles):
                found.append(key.decode())
                break
    return found


async def queue_distillations(rt: Runtime, session: str) -> None:
    """The session's turns in the slow loop's jobs: one distillation run (RQ keeps a finished
    job's arguments for a day), one still waiting."""
    exchanges = rt.orchestrator.context.exchanges(USER, session)
    assert len(exchanges) > 1
    rt.jobs.enqueue_distill(exchanges, USER, session)
    await asyncio.to_thread(rt.run_jobs)
    rt.jobs.enqueue_distill(exchanges[:1], USER, session)


def user_texts(rt: Runtime) -> str:
    pages = rt.memory.graph.deletion.user_memory_page(USER, "", 10_000)
    return json.dumps(pages, ensure_ascii=False)


async def tell_and_use(rt: Runtime) -> str:
    told = await rt.orchestrator.handle_impulse(TOLD, USER, "s1")
    await asyncio.to_thread(rt.run_jobs)  # claims read, the exchange crystallized
    asked = await rt.orchestrator.handle_impulse("What is my secret word?", USER, "s1")
    assert SECRET in asked.answer
    await asyncio.to_thread(rt.run_jobs)
    return told.impulse_id


async def test_a_forgotten_fact_leaves_no_trace_in_memory_nor_on_disk_after_a_restart(
    setup: tuple[Settings, list[Path], RedisServer | None], llm: FakeChatModel
) -> None:
    settings, folders, server = setup
    script(llm)
    rt = build_runtime(settings, llm=llm)
    try:
        told = await tell_and_use(rt)
        facts = {f.attribute: f for f in rt.memory.facts.facts_of_record(USER, current_only=True, limit=50)}
        assert set(facts) == {"secret word", "home"}
        assert SECRET.lower() in user_texts(rt).lower()  # said, answered, crystallized
        pages = rt.memory.graph.deletion.user_memory_page(USER, "", 10_000)
        held = [n for n in pages if n.get("type") == "KnowledgeCrystal"]
        assert held, "the exchange was not crystallized: the test would not test insights"
        await queue_distillations(rt, "s1")
        assert len(jobs_holding(rt, [SECRET])) >= 2, "the jobs hold no words: they would test nothing"

        result = forget(rt.memory, facts["secret word"].id, USER, rt.orchestrator.context, rt.jobs)
        assert "erased" in result.summary
        assert "keeps old files" not in result.summary  # every engine rewrote its files

        assert [
            n
            for n in rt.memory.graph.deletion.user_memory_page(USER, "", 10_000)
            if SECRET.lower() in json.dumps(n).lower()
        ] == []
        (message,) = rt.memory.get([told])
        assert isinstance(message, UserImpulse)
        assert message.content == f"{FORGOTTEN_MARK} and I live in Leeds."  # the rest stays
        left = rt.memory.facts.facts_of_record(USER, current_only=True, limit=50)
        assert [f.value for f in left] == ["Leeds"]
        assert not [k for k in rt.memory.get([str(n["id"]) for n in held]) if isinstance(k, KnowledgeCrystal)]
        assert all(SECRET not in e.question + e.answer for e in rt.orchestrator.context.exchanges(USER, "s1"))
        hits = rt.memory.search(SECRET, limit=20)
        assert all(SECRET.lower() not in h.text.lower() for h in hits)
        assert jobs_holding(rt, [SECRET]) == []
        assert jobs_holding(rt, ["Leeds"]), "the waiting distillation lost the rest of its words"
        exported = "".join(r.model_dump_json() for r in iter_export(rt.memory, user_id=USER))
        assert "Leeds" in exported  # the export holds the cycles ...
        assert SECRET.lower() not in exported.lower()  # ... and not the forgotten words
    finally:
        rt.close()

    rt = build_runtime(settings, llm=llm)  # the restart: nothing comes back
    try:
        llm.answer(PromptId.SYNTHESIS, "I don't know your secret word.")
        asked = await rt.orchestrator.handle_impulse("What is my secret word?", USER, "s2")
        assert SECRET not in asked.answer
        assert SECRET.lower() not in user_texts(rt).lower()
    finally:
        rt.close()
    assert [f for folder in folders for f in files_holding(folder, SECRET)] == [], held_by_server(
        server, [SECRET]
    )


SISTER = "My sister Zelda lives in Kirkenes."


async def tell_a_second_conversation(rt: Runtime, llm: FakeChatModel) -> None:
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                **READ,
                "Zelda": [
                    said("My sister Zelda", "name", "Zelda", subject="Zelda", relation="sister"),
                    said("Zelda lives in Kirkenes", "home", "Kirkenes", subject="Zelda", relation="sister"),
                ],
            }
        ),
    )
    await rt.orchestrator.handle_impulse(SISTER, USER, "s2")
    await asyncio.to_thread(rt.run_jobs)


def values(rt: Runtime) -> set[str]:
    return {f.value or "" for f in rt.memory.facts.facts_of_record(USER, current_only=False, limit=50)}


#: what each erasure covers: how it is asked, the words that must be gone, the facts that stay
ERASURES = {
    "topic": ("Zelda", ["Zelda", "Kirkenes"], {SECRET, "Leeds"}),
    "conversation": ("s1", [SECRET, "Leeds"], {"Zelda", "Kirkenes"}),
    "user": ("", [SECRET, "Leeds", "Zelda", "Kirkenes"], set()),
}


@pytest.mark.parametrize("what", sorted(ERASURES))
async def test_forgetting_a_topic_a_conversation_or_a_user_leaves_no_trace_after_a_restart(
    what: str,
    setup: tuple[Settings, list[Path], RedisServer | None],
    llm: FakeChatModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from services.knowledge.erasing import forget_about, forget_conversation, forget_user

    settings, folders, server = setup
    asked, gone, kept = ERASURES[what]
    script(llm)
    rt = build_runtime(settings, llm=llm)
    try:
        await tell_and_use(rt)
        await tell_a_second_conversation(rt, llm)
        await rt.orchestrator.handle_impulse("Where does Zelda live?", USER, "s2")
        assert values(rt) == {SECRET, "Leeds", "Zelda", "Kirkenes"}
        await queue_distillations(rt, "s1")
        await queue_distillations(rt, "s2")
        assert [w for w in gone if not jobs_holding(rt, [w])] == [], "jobs that would test nothing"
        context = rt.orchestrator.context
        caplog.clear()
        caplog.set_level(logging.INFO)
        if what == "topic":
            result = forget_about(rt.memory, asked, USER, context, rt.jobs)
        elif what == "conversation":
            result = forget_conversation(rt.memory, asked, USER, context, rt.jobs)
        else:
            result = forget_user(rt.memory, USER, context, rt.jobs)
        assert result.erased > 0
        assert "keeps old files" not in result.summary  # every engine rewrote its files
        logged = " ".join(r.getMessage() for r in caplog.records).lower()
        assert [w for w in gone if w.lower() in logged] == []  # the service log says what, not which
        assert values(rt) == kept
        texts = user_texts(rt).lower()
        assert [w for w in gone if w.lower() in texts] == []
        for session in ("s1", "s2"):
            held = rt.orchestrator.context.exchanges(USER, session)
            assert not [w for w in gone for e in held if w in e.question + e.answer]
        assert jobs_holding(rt, gone) == []
    finally:
        rt.close()

    rt = build_runtime(settings, llm=llm)  # the restart: nothing comes back, the rest stays
    try:
        assert values(rt) == kept
        assert [w for w in gone if w.lower() in user_texts(rt).lower()] == []
    finally:
        rt.close()
    on_disk = [(w, f) for w in gone for folder in folders for f in files_holding(folder, w)]
    assert on_disk == [], held_by_server(server, gone)


async def test_a_falkordb_server_that_keeps_its_query_log_is_named_and_its_log_erased(
    tmp_path: Path, llm: FakeChatModel, caplog: pytest.LogCaptureFixture
) -> None:
    """A FalkorDB server started without ``CMD_INFO no`` logs every query with its parameters
    (the users' words) about a second after it ran, and ``GRAPH.CONFIG SET`` at run time does
    not stop it: thea names it in the log, and what is erased right after it was written (the
    log not yet written) leaves no word in the server's files."""
    server = RedisServer("falkordb", tmp_path / "falkordb", falkordb=True, query_log=True).start()
    try:
        env = thea_environment(
            server.url, f"{server.url}/0", tmp_path / "data", {USER: "tok-mira-0123456789abcdef"}
        )
        caplog.set_level(logging.WARNING)
        rt = build_runtime(environment_settings(env), llm=llm)
        try:
            assert "CMD_INFO no" in caplog.text  # said when the graph is opened
            told = UserImpulse(content=TOLD, user_id=USER, session_id="s1")
            rt.memory.record([told])
            assert erase(rt.memory, [told], USER).ids == [told.id]
            assert rt.memory.compact()["graph"]
        finally:
            rt.close()
        time.sleep(QUERY_LOG_FLUSH_S)  # what the server logs a while after the last query
        assert files_holding(tmp_path / "falkordb", SECRET) == [], held_by_server(server, [SECRET])
    finally:
        server.stop()
