"""`thea import` on real engines: history lands with its dates, bad files write nothing, re-import
is a no-op."""

from __future__ import annotations

import json
import random
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from services.knowledge.history_formats import ImportFormatError, parse_history_text
from services.knowledge.import_checkpoints import file_checkpoint
from services.knowledge.importer import import_file, import_history, turn_id
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery
from tests.processes import start_thea, thea, wait_for
from thea.errors import ImportInterrupted
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import DialogueTurn, Document, DocumentChunk
from thea.runtime import Runtime


def conversation(sample_id: str, *, bad: bool = False) -> dict[str, Any]:
    turns = [
        {"dia_id": "D1:1", "speaker": "Caroline", "text": "I went to the LGBTQ support group yesterday."},
        {"dia_id": "D1:2", "speaker": "Melanie", "text": "That sounds powerful. I painted a sunrise."},
    ]
    later = [{"dia_id": "D2:1", "speaker": "Melanie", "text": "We ran a charity race on Sunday."}]
    if bad:
        later.append({"dia_id": "D2:2", "speaker": "Caroline"})  # no text
    return {
        "sample_id": sample_id,
        "conversation": {
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns,
            "session_2_date_time": "1:14 pm on 25 May, 2023",
            "session_2": later,
        },
    }


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def counts(rt: Runtime) -> dict[str, Any]:
    stats = rt.memory.stats()
    return {
        "turns": stats["graph"].get("DialogueTurn", 0),
        "edges": stats["graph"].get("edges", 0),
        "vectors": stats["vectors"]["experience"],
        "events": stats["chronicle"]["events"],
    }


def test_a_locomo_file_lands_with_its_dates_and_is_recalled(runtime: Runtime, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conv.json", [conversation("conv-26")])
    result = import_file(runtime.memory, path, "ana")
    assert (result.turns, result.already_present, result.undated) == (3, 0, 0)
    hits = RecallService(runtime.memory).recall_sync(
        RecallQuery(texts=["When did Melanie run a charity race?"], user_id="ana")
    )
    top = runtime.memory.get([hits.hits[0].id])[0]
    assert isinstance(top, DialogueTurn)
    assert top.content == "Melanie: We ran a charity race on Sunday."
    assert top.event_time == int(datetime(2023, 5, 25, 13, 14, tzinfo=UTC).timestamp() * 1000)
    assert top.session_id == "import:conv-26/2"
    assert hits.hits[0].event_time == top.event_time  # recall reports when it happened, not the import
    # another user sees none of it
    other = RecallService(runtime.memory).recall_sync(RecallQuery(texts=["charity race"], user_id="bob"))
    assert other.hits == []


#: a fact said once, deep inside a very long message
BURIED = "By the way, my sister Ingrid moved to Tromsø to study marine biology at the Arctic university."


def long_message(chars: int = 349_000, seed: int = 7) -> str:
    """An assistant-style reply of ``chars`` characters (paragraphs of generic prose), with
    :data:`BURIED` in its middle, as a BEAM chat has (its longest message is 349k characters)."""
    rng = random.Random(seed)
    words = [
        "the",
        "plan",
        "schedule",
        "budget",
        "step",
        "review",
        "option",
        "code",
        "test",
        "meeting",
        "draft",
        "notes",
        "list",
    ]
    paragraphs: list[str] = []
    size = 0
    while size < chars:
        sentences = [" ".join(rng.choice(words) for _ in range(rng.randint(6, 12))).capitalize() + "."]
        sentences += [" ".join(rng.choice(words) for _ in range(rng.randint(6, 12))) + "." for _ in range(4)]
        paragraphs.append(" ".join(sentences))
        size += len(paragraphs[-1]) + 2
        if len(paragraphs) == 600:
            paragraphs.append(BURIED)
    return "\n\n".join(paragraphs)[:chars]


def test_a_message_of_349k_characters_is_imported_as_a_document_and_recalled(
    runtime: Runtime, tmp_path: Path
) -> None:
    text = long_message()
    assert len(text) == 349_000
    assert 100_000 < text.index(BURIED) < 300_000
    data = conversation("conv-beam")
    data["conversation"]["session_2"].append({"dia_id": "D2:2", "speaker": "Assistant", "text": text})
    path = write_json(tmp_path / "long.json", [data])
    result = import_file(runtime.memory, path, "ana")  # over the turn limit: not refused
    assert (result.turns, result.documents) == (4, 1)
    (turn,) = runtime.memory.get([turn_id("ana", "conv-beam", "D2:2")])
    assert isinstance(turn, DialogueTurn)
    assert turn.document_id is not None
    assert turn.content.startswith("Assistant: [pasted document ")
    assert len(turn.content) < 1_000  # the turn keeps a summary, the chunks the text
    (document,) = runtime.memory.get([turn.document_id])
    assert isinstance(document, Document)
    assert (document.chars, document.source_id) == (349_000, turn.id)
    chunks = runtime.memory.document_chunks(turn.document_id, "ana")
    assert "".join(c.content for c in chunks) == text  # the whole message, verbatim

    hits = RecallService(runtime.memory).recall_sync(
        RecallQuery(texts=["Where did my sister Ingrid move to study?"], user_id="ana", limit=5)
    )
    found = runtime.memory.get([h.id for h in hits.hits])
    from_message = [n for n in found if isinstance(n, DocumentChunk) and n.document_id == document.id]
    assert from_message, [h.text[:60] for h in hits.hits]
    assert "Ingrid moved to Tromsø" in from_message[0].content
    # the short turns of the same file are recalled as before
    race = RecallService(runtime.memory).recall_sync(
        RecallQuery(texts=["When did Melanie run a charity race?"], user_id="ana")
    )
    assert race.hits[0].text == "Melanie: We ran a charity race on Sunday."
    # importing it again writes nothing twice
    before = counts(runtime)
    again = import_file(runtime.memory, path, "ana")
    assert (again.already_present, again.documents) == (4, 1)
    assert counts(runtime) == before
    assert len(runtime.memory.document_chunks(turn.document_id, "ana")) == len(chunks)


def test_importing_the_same_file_again_adds_nothing(runtime: Runtime, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conv.json", [conversation("conv-26")])
    import_file(runtime.memory, path, "ana")
    before = counts(runtime)
    again = import_file(runtime.memory, path, "ana")
    assert again.already_present == again.turns == 3
    assert counts(runtime) == before


def test_a_bad_turn_in_the_second_conversation_writes_nothing(runtime: Runtime, tmp_path: Path) -> None:
    path = write_json(tmp_path / "two.json", [conversation("conv-a"), conversation("conv-b", bad=True)])
    with pytest.raises(ImportFormatError, match=r"conv-b: session_2\[1\]"):
        import_file(runtime.memory, path, "ana")
    assert counts(runtime)["turns"] == 0


def test_thea_import_from_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bad = tmp_path / "bad.jsonl"
    good_line = json.dumps({"speaker": "Ana", "text": "I adopted a cat called Miso.", "time": "2023-07-15"})
    bad.write_text("\n".join([good_line, '{"speaker": "Ana"}', good_line]) + "\n", encoding="utf-8")
    done = thea(["import", str(bad), "--user", "ana"], data)
    assert done.returncode == 2
    expected = 'error: bad.jsonl line 2: needs "text" or "content" (a string)'
    assert done.stderr.strip().splitlines()[-1] == expected
    stats = json.loads(thea(["memory", "stats", "--json"], data).stdout)
    assert stats["graph"].get("DialogueTurn", 0) == 0  # the whole file is checked before a write
    missing = thea(["import", str(tmp_path / "nope.jsonl")], data)
    assert (missing.returncode, missing.stderr.strip()) == (
        2,
        f"error: {tmp_path / 'nope.jsonl'}: no such file",
    )

    good = tmp_path / "good.jsonl"
    good.write_text(good_line + "\n", encoding="utf-8")
    done = thea(["import", str(good), "--user", "ana", "--format", "jsonl"], data)
    assert done.returncode == 0, done.stderr
    assert "imported 1 turns" in done.stdout
    assert "1 new" in done.stdout
    assert "dated 2023-07-15 to 2023-07-15" in done.stdout
    again = thea(["import", str(good), "--user", "ana"], data)
    assert "0 new, 1 already there" in again.stdout
    stats = json.loads(thea(["memory", "stats", "--json"], data).stdout)
    assert stats["graph"]["DialogueTurn"] == 1

    # the service imports for the caller's user: another user's import is separate
    other = thea(["import", str(good), "--user", "bob"], data)
    assert "1 new" in other.stdout
    assert "'bob'" in other.stdout

    wrong = thea(["import", str(good), "--format", "csv"], data)
    assert wrong.returncode == 2
    assert "unknown --format 'csv'" in wrong.stderr


async def test_the_answer_prompt_dates_imported_memories_when_they_happened(
    runtime: Runtime, llm: FakeChatModel, tmp_path: Path
) -> None:
    path = write_json(tmp_path / "conv.json", [conversation("conv-26")])
    import_file(runtime.memory, path, "ana")
    await runtime.orchestrator.handle_impulse("When did Caroline go to the LGBTQ support group?", "ana", "s1")
    (prompt,) = llm.prompts_for(PromptId.SYNTHESIS)
    system = str(prompt[0].content)
    # the memory is quoted (spaces as ^: see services/prompts/quoting.py), its dates in words
    said = "Caroline: I went to the LGBTQ support group yesterday (7 May 2023).".replace(" ", "^")
    assert f"(DialogueTurn on Monday 8 May 2023) «{said}»" in system
    assert "answer with the date as the memory states it" in system


def messages_file(path: Path, count: int) -> Path:
    lines = [
        json.dumps({"speaker": "Ana" if i % 2 else "Ben", "text": f"Message {i}: we talked about trip {i}."})
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_import_stopped_between_batches_continues_where_it_stopped_without_duplicates(
    runtime: Runtime, tmp_path: Path
) -> None:
    path = messages_file(tmp_path / "history.jsonl", 50)
    text = path.read_text(encoding="utf-8")
    conversations = parse_history_text(text, path.name, "jsonl")
    checkpoint = file_checkpoint(runtime.settings.data_dir, "ana", text, "jsonl", path.name)
    seen: list[tuple[int, int]] = []

    def stop_after_two_batches() -> str | None:
        return "the service is stopping" if len(seen) >= 3 else None  # (0, 50) and two batches

    with pytest.raises(ImportInterrupted, match=r"import stopped at 32 of 50 turns") as stopped:
        import_history(
            runtime.memory,
            conversations,
            "ana",
            batch=16,
            progress=lambda done, total: seen.append((done, total)),
            should_stop=stop_after_two_batches,
            checkpoint=checkpoint,
        )
    assert (stopped.value.done, stopped.value.total) == (32, 50)
    assert seen == [(0, 50), (16, 50), (32, 50)]
    assert counts(runtime)["turns"] == counts(runtime)["vectors"] == counts(runtime)["events"] == 32
    assert checkpoint.done() == 32

    seen.clear()
    again = import_history(
        runtime.memory,
        conversations,
        "ana",
        batch=16,
        progress=lambda done, total: seen.append((done, total)),
        checkpoint=checkpoint,
    )
    assert seen[0] == (32, 50)  # it went on from the checkpoint, not from the start
    assert seen[-1] == (50, 50)
    assert (again.turns, again.already_present) == (50, 32)
    assert counts(runtime)["turns"] == counts(runtime)["vectors"] == counts(runtime)["events"] == 50
    assert checkpoint.done() == 0  # a finished import leaves no checkpoint


@pytest.mark.slow
def test_stopping_the_service_during_an_import_stops_it_at_a_batch_and_the_same_import_continues(
    tmp_path: Path,
) -> None:
    """`thea service stop` during a long import: the import ends at its next batch (no SIGKILL,
    "stopped" only once it has), and the same command again continues without duplicates."""
    data = tmp_path / "data"
    path = messages_file(tmp_path / "history.jsonl", 600)
    assert thea(["service", "start"], data).returncode == 0
    importing = start_thea(["import", str(path), "--user", "ana"], data)
    checkpoints = data / "imports"
    wait_for(lambda: any(checkpoints.glob("*.json")) or importing.poll() is not None, 120, "a first batch")
    assert importing.poll() is None, importing.communicate()
    started = time.monotonic()
    stop = thea(["service", "stop"], data)
    stop_s = time.monotonic() - started
    assert (stop.returncode, stop.stdout.strip()) == (0, "thea service stopped"), stop.stderr
    assert stop_s < 20, f"the stop took {stop_s:.1f} s"
    out, err = importing.communicate(timeout=60)
    assert importing.returncode == 1, (out, err)
    stopped = re.search(r"import stopped at ([\d,]+) of 600 turns \(the service is stopping\)", err)
    assert stopped, err
    done = int(stopped.group(1).replace(",", ""))
    assert 0 < done < 600
    assert "importing: 0 / 600 turns" in err  # progress, also when stderr is no terminal

    again = thea(["import", str(path), "--user", "ana"], data, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (
        f"imported 600 turns of 1 conversation(s) for user 'ana' ({600 - done} new, {done} already there)"
        in (again.stdout)
    )
    stats = json.loads(thea(["memory", "stats", "--json"], data).stdout)
    assert stats["graph"]["DialogueTurn"] == stats["vectors"]["experience"] == 600
    assert not any(checkpoints.glob("*.json"))
