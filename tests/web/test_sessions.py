"""The web chat's history through the API (issue 23): a user's conversations, latest first, and one
conversation's messages with thea's answers; another user's and unknown sessions are empty."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.service_support import chat, done_of
from thea.api import PREFIX
from thea.api.models import ChatSessionList, ChatSessionView
from thea.errors import GraphUnavailable
from thea.runtime import Runtime
from thea.testing.service import service_app


def test_conversations_are_listed_latest_first_with_their_messages_and_answers(
    client: TestClient, runtime: Runtime
) -> None:
    first = done_of(chat(client, "My bike is a green Brompton.", session="web-hist-1"))
    second = done_of(chat(client, "Which bike do I ride?", session="web-hist-1"))
    chat(client, "!help", session="web-hist-1")  # commands are not messages
    done_of(chat(client, "Hello again.", session="web-hist-2"))

    listed = client.get(f"{PREFIX}/sessions")
    assert listed.status_code == 200, listed.text
    sessions = ChatSessionList.model_validate(listed.json()).sessions
    mine = [s for s in sessions if s.session_id.startswith("web-hist-")]
    assert [(s.session_id, s.title, s.messages) for s in mine] == [
        ("web-hist-2", "Hello again.", 1),
        ("web-hist-1", "My bike is a green Brompton.", 2),
    ]
    assert mine[1].started_at <= mine[1].last_at

    one = client.get(f"{PREFIX}/sessions/web-hist-1")
    assert one.status_code == 200, one.text
    view = ChatSessionView.model_validate(one.json())
    assert [(e.text, e.answer) for e in view.exchanges] == [
        ("My bike is a green Brompton.", first["answer"]),
        ("Which bike do I ride?", second["answer"]),
    ]
    assert [e.impulse_id for e in view.exchanges] == [first["impulse_id"], second["impulse_id"]]
    assert view.exchanges[1].response_id == second["response_id"]
    assert view.truncated is False
    latest = ChatSessionView.model_validate(client.get(f"{PREFIX}/sessions/web-hist-1?limit=1").json())
    assert [e.text for e in latest.exchanges] == ["Which bike do I ride?"]
    assert latest.truncated is True

    # another user's conversation is exactly as empty as one that does not exist (bob, named on
    # the unix socket, where X-Thea-User counts)
    bob = {"X-Thea-User": "bob"}
    with TestClient(service_app(runtime, transport="unix"), base_url="http://localhost") as unix:
        theirs = unix.get(f"{PREFIX}/sessions/web-hist-1", headers=bob)
        unknown = client.get(f"{PREFIX}/sessions/web-nobody")
        assert theirs.status_code == unknown.status_code == 200
        assert theirs.json()["exchanges"] == unknown.json()["exchanges"] == []
        assert not any(
            s["session_id"].startswith("web-hist-")
            for s in unix.get(f"{PREFIX}/sessions", headers=bob).json()["sessions"]
        )
    assert client.get(f"{PREFIX}/sessions/bad%20id").status_code == 422


def test_the_session_routes_are_documented(client: TestClient) -> None:
    paths = client.get(f"{PREFIX}/openapi.json").json()["paths"]
    for path in (f"{PREFIX}/sessions", f"{PREFIX}/sessions/{{session_id}}"):
        assert paths[path]["get"]["summary"]
        assert "200" in paths[path]["get"]["responses"]
    assert set(paths[f"{PREFIX}/sessions"]) == {"get"}
    one = paths[f"{PREFIX}/sessions/{{session_id}}"]
    assert set(one) == {"get", "delete"}  # delete: forget the conversation for good
    assert one["delete"]["summary"]
    assert "404" in one["delete"]["responses"]


def test_whoami_names_the_session_s_last_message_from_the_graph_and_answers_without_it(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    told = done_of(chat(client, "My kettle is blue.", session="web-who-1"))
    me = client.get(f"{PREFIX}/whoami", params={"session_id": "web-who-1"}).json()
    assert me["last_impulse_id"] == told["impulse_id"]

    def down(*args: object) -> None:
        raise GraphUnavailable("the graph server is restarting")

    monkeypatch.setattr(runtime.memory.traces, "session_exchanges", down)
    me = client.get(f"{PREFIX}/whoami", params={"session_id": "web-who-1"})
    assert me.status_code == 200  # who the caller is does not wait for the graph
    assert me.json()["last_impulse_id"] is None
