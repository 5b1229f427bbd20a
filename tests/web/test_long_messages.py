"""Long messages through the API: ``remember`` (the route the MCP tool and the Python client
use) stores a long message as a document as a chat paste is, and the export gives a paste
back whole."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.common.limits import DOCUMENT_CHARS
from services.knowledge.importer import turn_id
from tests.service_support import chat, done_of
from thea.api import PREFIX
from thea.models import DialogueTurn, Document, DocumentChunk
from thea.runtime import Runtime

#: one line of a long pasted log: each names its own host, so a host's name picks its chunk
LINE = "{i:05d} host relay-{i} reported kernel panic while the backup window was open.\n"
#: nothing of the paste: its words are in none of the lines
UNRELATED = "What is my favourite colour?"


def long_log(lines: int = 400) -> str:
    text = "".join(LINE.format(i=i) for i in range(lines)).rstrip()
    assert len(text) > DOCUMENT_CHARS
    return text


def recall(client: TestClient, query: str) -> list[dict[str, Any]]:
    response = client.post(f"{PREFIX}/recall", json={"query": query, "limit": 10})
    assert response.status_code == 200, response.text
    return list(response.json()["memories"])


def test_a_long_remembered_message_is_stored_as_a_document(client: TestClient, runtime: Runtime) -> None:
    text = long_log()
    stored = client.post(f"{PREFIX}/remember", json={"text": text, "session_id": "notes"})
    assert stored.status_code == 200, stored.text
    body = stored.json()
    assert "as a document with" in body["summary"]
    assert len(body["summary"]) < 400  # says what was stored, no echo

    (turn,) = runtime.memory.get([body["id"]])
    assert isinstance(turn, DialogueTurn)
    assert turn.document_id is not None
    assert turn.content.startswith("[pasted document ")  # the turn keeps a summary
    chunks = runtime.memory.document_chunks(turn.document_id, runtime.settings.user_id)
    assert len(chunks) > 1
    assert "".join(c.content for c in chunks) == text  # verbatim, in its chunks

    # a question naming one host finds the chunk with that host, once for the whole document
    hits = recall(client, "Which problem did relay-377 report?")
    from_document = [h for h in hits if h["id"] in {c.id for c in chunks}]
    assert len(from_document) == 1
    assert from_document[0]["type"] == "DocumentChunk"
    assert "relay-377 " in from_document[0]["text"]
    # and a question about something else gets none of it
    assert not {h["id"] for h in recall(client, UNRELATED)} & ({c.id for c in chunks} | {turn.id})


def test_the_export_gives_a_pasted_message_whole(client: TestClient, runtime: Runtime) -> None:
    text = long_log(300)
    done = done_of(chat(client, text, session="paste"))
    (impulse,) = runtime.memory.get([done["impulse_id"]])
    assert impulse.content.startswith("[pasted document ")

    response = client.get(f"{PREFIX}/export")
    assert response.status_code == 200
    records = {r["impulse_id"]: r for r in map(json.loads, response.text.splitlines())}
    exported = records[done["impulse_id"]]
    assert exported["impulse"] == text
    assert exported["final_response"].startswith("Stored your ")


def test_an_import_with_a_message_over_the_turn_limit_stores_it_as_a_document(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = long_log(2_700)
    assert len(text) > runtime.settings.max_impulse_chars  # a chat message this long is refused
    lines = [
        {"speaker": "User", "text": "Please keep my server log.", "time": "2024-01-05T10:00:00Z"},
        {"speaker": "User", "text": text, "time": "2024-01-05T10:01:00Z"},
        {"speaker": "Assistant", "text": "Kept.", "time": "2024-01-05T10:02:00Z"},
    ]
    # the setting reaches the importer: a turn after a long one is searched without its tail
    monkeypatch.setattr(runtime.settings.tuning, "short_reply_context", True)
    body = {"text": "\n".join(json.dumps(x) for x in lines), "format": "jsonl", "source": "log.jsonl"}
    answer = client.post(f"{PREFIX}/import", json=body)
    assert answer.status_code == 200, answer.text
    assert (answer.json()["turns"], answer.json()["documents"]) == (3, 1)
    hits = recall(client, "Which problem did relay-2411 report?")
    chunk = next(h for h in hits if h["type"] == "DocumentChunk" and "relay-2411 " in h["text"])
    (node,) = runtime.memory.get([chunk["id"]])
    assert isinstance(node, DocumentChunk)
    (document,) = runtime.memory.get([node.document_id])
    assert isinstance(document, Document)
    assert document.chars == len(text)
    (kept,) = runtime.memory.get([turn_id(runtime.settings.user_id, "log", "line-3")])
    assert isinstance(kept, DialogueTurn)
    assert kept.context is None
