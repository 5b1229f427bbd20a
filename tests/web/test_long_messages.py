"""Long messages through the API: ``remember`` (the route the MCP tool and the Python client
use) stores a long message as a document as a chat paste is, and the export gives a paste
back whole."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from services.common.limits import DOCUMENT_CHARS
from tests.service_support import chat, done_of
from thea.api import PREFIX
from thea.models import DialogueTurn
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
