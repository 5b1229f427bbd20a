"""The web API on a real embedded runtime with a scripted, streaming fake model."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from langchain_core.messages import BaseMessage
from pydantic import SecretStr

from tests.fakes import default_responder, plain_text, role_of
from tests.web.conftest import TOKEN
from tests.web.support import LOCAL_URL, SeededInsights, StreamingChatModel, local_client, seed_insights
from thea.runtime import Runtime
from thea.web.app import MAX_BODY_BYTES, SESSION_COOKIE, create_app

Event = tuple[str, Any]


@pytest.fixture(scope="module")
def app(runtime: Runtime) -> Any:
    return create_app(runtime)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with local_client(app) as c:
        yield c


def chat(client: TestClient, text: str, **kw: Any) -> list[Event]:
    """POST /api/chat and parse the SSE stream into (event, data) pairs, in order."""
    events: list[Event] = []
    with client.stream("POST", "/api/chat", json={"text": text}, **kw) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                assert event is not None
                events.append((event, json.loads(line[len("data: ") :])))
    return events


def answer_of(events: list[Event]) -> str:
    return "".join(data for kind, data in events if kind == "token")


def done_of(events: list[Event]) -> dict[str, Any]:
    (done,) = [data for kind, data in events if kind == "done"]
    return dict(done)


def my_user(client: TestClient) -> str:
    return str(client.get("/api/session").json()["user_id"])


@pytest.fixture
def seeded(runtime: Runtime, client: TestClient) -> SeededInsights:
    """Insights owned by this client's browser user."""
    return seed_insights(runtime.memory, user_id=my_user(client), concept="Redis")


def test_chat_streams_the_answer_in_several_chunks(client: TestClient) -> None:
    events = chat(client, "I work on Redis queues.")
    tokens = [data for kind, data in events if kind == "token"]
    assert len(tokens) >= 3, events
    assert answer_of(events) == "Here is my answer."
    assert events[-1][0] == "done"
    done = done_of(events)
    assert done["failed_steps"] == []
    assert done["impulse_id"]
    assert client.cookies.get(SESSION_COOKIE), "the browser got a session cookie"


def test_trace_lists_every_step_with_its_status(client: TestClient, llm: StreamingChatModel) -> None:
    done = done_of(chat(client, "What do I work on?"))
    trace = client.get(f"/api/trace/{done['impulse_id']}").json()
    assert trace["impulse"]["content"] == "What do I work on?"
    assert [(s["step"], s["status"]) for s in trace["steps"]] == [
        ("instinct", "SUCCESS"),
        ("plan", "SUCCESS"),
        ("recall", "SUCCESS"),
        ("synthesis", "SUCCESS"),
    ]
    assert all(s["duration_ms"] > 0 for s in trace["steps"])
    assert trace["complete"] is True
    outputs = [o["type"] for s in trace["steps"] for o in s["outputs"]]
    assert "FinalResponse" in outputs
    # people type short ids, and "last" is this browser's last answer
    assert client.get(f"/api/trace/{done['impulse_id'][:8]}").json()["impulse"]["id"] == done["impulse_id"]
    assert client.get("/api/trace/last").json()["impulse"]["id"] == done["impulse_id"]
    assert client.get("/api/trace/ffffffff-0000").status_code == 404

    llm.fail_roles = {"instinct"}
    failed = done_of(chat(client, "And now?"))
    assert failed["failed_steps"] == ["instinct"]
    trace = client.get(f"/api/trace/{failed['impulse_id']}").json()
    step = trace["steps"][0]
    assert (step["step"], step["status"]) == ("instinct", "FAILURE")
    assert "scripted failure" in step["error"]
    assert trace["failed_steps"] == ["instinct"]


def test_insights_list_filters_and_shows_lineage(client: TestClient, seeded: SeededInsights) -> None:
    active = client.get("/api/insights").json()["insights"]
    assert [i["id"] for i in active] == [seeded.merged.id, seeded.weak.id]  # strongest first
    top = active[0]
    assert top["content"] == seeded.merged.content
    assert top["strength"] == 2.5
    assert top["concepts"] == ["Redis"]

    archived = client.get("/api/insights", params={"state": "archived"}).json()["insights"]
    assert {i["id"] for i in archived} == {seeded.first.id, seeded.second.id}
    assert all(i["active"] is False for i in archived)
    strong = client.get("/api/insights", params={"state": "all", "min_strength": 1.2}).json()["insights"]
    assert {i["id"] for i in strong} == {seeded.merged.id, seeded.second.id}
    about = client.get("/api/insights", params={"concept": "gardening"}).json()["insights"]
    assert [i["id"] for i in about] == [seeded.weak.id]
    assert client.get("/api/insights", params={"state": "bogus"}).status_code == 422

    merged = client.get(f"/api/insights/{seeded.merged.id[:10]}").json()
    assert {m["id"] for m in merged["merged_from"]} == {seeded.first.id, seeded.second.id}
    assert all(m["active"] is False for m in merged["merged_from"])
    source = client.get(f"/api/insights/{seeded.first.id}").json()
    assert [m["id"] for m in source["merged_into"]] == [seeded.merged.id]
    assert [s["content"] for s in source["source_impulses"]] == ["I use Redis streams for my job queue."]


def test_graph_returns_the_neighbourhood_of_a_concept_and_of_an_impulse(
    client: TestClient, seeded: SeededInsights
) -> None:
    graph = client.get("/api/graph", params={"concept": "redis", "depth": 1}).json()
    by_id = {n["data"]["id"]: n["data"] for n in graph["nodes"]}
    assert graph["start"] == seeded.concept.id
    assert by_id[seeded.concept.id]["label"] == "Redis"
    assert by_id[seeded.concept.id]["start"] is True
    assert {seeded.first.id, seeded.second.id, seeded.merged.id} <= set(by_id)
    edges = {(e["data"]["source"], e["data"]["label"], e["data"]["target"]) for e in graph["edges"]}
    assert (seeded.merged.id, "INSIGHT_FROM_CONCEPT", seeded.concept.id) in edges
    assert all(e["data"]["source"] in by_id and e["data"]["target"] in by_id for e in graph["edges"])

    done = done_of(chat(client, "Tell me about Redis."))
    around = client.get("/api/graph", params={"node": done["impulse_id"][:8], "depth": 1}).json()
    labels = {n["data"]["label"] for n in around["nodes"]}
    assert {"task: instinct", "task: plan", "task: recall", "task: synthesis"} <= labels
    assert client.get("/api/graph", params={"concept": "no such thing"}).status_code == 404
    assert client.get("/api/graph").status_code == 404


def test_oversized_bodies_are_refused(client: TestClient) -> None:
    big = json.dumps({"text": "x" * (MAX_BODY_BYTES + 10)})
    response = client.post("/api/chat", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        yield b'{"text": "'
        for _ in range(40):
            yield b"y" * 10_000
        yield b'"}'

    response = client.post("/api/chat", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    # a normal message right after is fine
    assert answer_of(chat(client, "still there?")) == "Here is my answer."


def test_token_protects_the_api(runtime: Runtime) -> None:
    settings = runtime.settings.model_copy(update={"web_token": SecretStr(TOKEN)})
    app = create_app(dataclasses.replace(runtime, settings=settings))
    with local_client(app) as anon:
        assert anon.get("/").status_code == 200  # the page loads, then asks for the token
        assert anon.get("/api/insights").status_code == 401
        assert anon.post("/api/chat", json={"text": "hi"}).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert anon.get("/api/health", headers=wrong).status_code == 401
        assert anon.get("/api/health", headers={"Authorization": TOKEN}).status_code == 401
    with local_client(app, headers={"Authorization": f"Bearer {TOKEN}"}) as authed:
        assert authed.get("/api/health").json()["auth"] is True
        assert authed.get("/api/insights").status_code == 200
        assert answer_of(chat(authed, "hello with a token")) == "Here is my answer."


def test_two_browsers_are_two_users_who_do_not_see_each_other(
    app: Any, runtime: Runtime, llm: StreamingChatModel
) -> None:
    with local_client(app) as ana, local_client(app) as bob:
        ana_done = done_of(chat(ana, "My locker code is 4711 and I love Redis streams."))
        ana_trace = ana.get(f"/api/trace/{ana_done['impulse_id']}").json()
        assert ana.cookies.get(SESSION_COOKIE) != bob.get("/api/session").cookies.get(SESSION_COOKIE)

        # bob has no conversation yet: nothing of ana's to trace, and her trace is not his to read
        assert bob.get("/api/trace/last").status_code == 404
        assert bob.get(f"/api/trace/{ana_done['impulse_id']}").status_code == 404
        bob_done = done_of(chat(bob, "What is my locker code?"))
        bob_trace = bob.get(f"/api/trace/{bob_done['impulse_id']}").json()
        assert ana_done["impulse_id"] not in bob_done.get("recalled_ids", [])
        assert bob_trace["impulse"]["user_id"] != ana_trace["impulse"]["user_id"]
        assert bob_trace["impulse"]["session_id"] != ana_trace["impulse"]["session_id"]
        synthesis_prompt = plain_text(llm.prompts_for("synthesis")[-1])
        assert "4711" not in synthesis_prompt, "bob's answer was built from ana's conversation"

        command = [data for kind, data in chat(bob, "!trace") if kind == "command"]
        assert command[0]["trace"]["impulse"]["id"] == bob_done["impulse_id"]

        # a forged cookie value is replaced by a fresh session
        with local_client(app, cookies={SESSION_COOKIE: "../../etc"}) as forged:
            assert forged.get("/api/session").json()["user_id"] not in ("web-../../etc", "")


async def test_browsers_chatting_at_the_same_moment_each_get_their_own_answer(
    app: Any, llm: StreamingChatModel
) -> None:
    def echo(messages: list[BaseMessage]) -> str:
        if role_of(messages) == "synthesis":
            return f"answer to {messages[-1].content}"
        return default_responder(messages)

    llm.responder = echo
    llm.token_delay_s = 0.01
    names = ["ana1", "bob2", "cid3", "dan4"]

    async def ask(name: str) -> str:
        transport = httpx.ASGITransport(app=app)
        cookies = {SESSION_COOKIE: name}
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL_URL, cookies=cookies) as c:
            response = await c.post("/api/chat", json={"text": f"question from {name}"})
        events = [ln[len("data: ") :] for ln in response.text.splitlines() if ln.startswith("data: ")]
        return "".join(json.loads(e) for e in events if e.startswith('"'))

    try:
        answers = await asyncio.gather(*(ask(n) for n in names))
    finally:
        llm.responder = default_responder
    assert answers == [f"answer to question from {n}" for n in names]


def test_the_trace_command_does_not_open_another_browsers_conversation(app: Any) -> None:
    with local_client(app) as ana, local_client(app) as bob:
        secret = done_of(chat(ana, "My locker code is 4711."))
        events = chat(bob, f"!trace {secret['impulse_id'][:8]}")
        assert "4711" not in json.dumps(events)
        assert events[0][0] == "error"


LONG_TEXT = "a" * 200_001
BAD_BODIES = {
    "a lone surrogate as the text": b'{"text": "I like \\ud800 tea"}',
    "a lone surrogate in a list": b'{"text": ["\\udfff"]}',
    "a lone surrogate as the whole body": b'"\\ud800"',
    "a text one character over the limit": json.dumps({"text": LONG_TEXT}).encode(),
    "broken JSON": b'{"text": "zebra crossing',
    "a JSON array": b'["zebra"]',
    "null": b"null",
    "bytes that are not UTF-8": b'{"text": "\xff\xfe"}',
    "a wrong type with a surrogate key": b'{"text": 5, "\\ud800": "x"}',
}


def assert_small_json_error(response: httpx.Response, status: tuple[int, ...] = (400, 422)) -> str:
    assert response.status_code in status, (response.status_code, response.text[:200])
    assert response.headers["content-type"].startswith("application/json")
    assert len(response.content) < 1000, f"{len(response.content)} bytes"
    body = response.json()
    assert isinstance(body["error"], str), body
    assert body["error"], body
    return str(body["error"])


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_a_bad_chat_body_gets_a_short_json_error_that_does_not_echo_it(client: TestClient, name: str) -> None:
    response = client.post(
        "/api/chat", content=BAD_BODIES[name], headers={"Content-Type": "application/json"}
    )
    message = assert_small_json_error(response)
    assert "aaaaaaaaaa" not in response.text
    assert "zebra" not in response.text
    if name == "a text one character over the limit":
        assert message == "invalid request: text is 200,001 characters long; the limit is 200,000"
    if name == "a lone surrogate as the text":
        assert "unpaired surrogate" in message
    # the server is fine afterwards
    assert answer_of(chat(client, "still there?")) == "Here is my answer."


def test_every_error_response_is_small_json(client: TestClient) -> None:
    cases = [
        client.get("/api/no-such-endpoint"),
        client.put("/api/chat"),
        client.get("/api/insights", params={"limit": "many"}),
        client.get("/api/insights", params={"state": "x" * 5000}),
        client.get("/api/graph", params={"concept": "c" * 5000}),
        client.get("/api/trace/" + "f" * 20_000),
        client.get("/api/graph?concept=%ED%A0%80%00"),  # a surrogate's UTF-8 bytes and NUL
    ]
    for response in cases:
        message = assert_small_json_error(response, (400, 404, 405, 422))
        for echoed in ("x" * 300, "c" * 300, "f" * 300):
            assert echoed not in message


def test_only_loopback_host_names_are_answered_without_a_token(app: Any, runtime: Runtime) -> None:
    with TestClient(app, base_url="http://evil.example:8000") as rebound:
        responses = [
            rebound.get("/"),
            rebound.get("/api/health"),
            rebound.post("/api/chat", json={"text": "hi"}),
        ]
        for response in responses:
            message = assert_small_json_error(response, (400,))
            assert "DNS rebinding" in message
            assert "THEA_WEB_ALLOWED_HOSTS" in message
            assert "evil" not in message
    for url in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000", "http://LOCALHOST."):
        with TestClient(app, base_url=url) as local:
            assert local.get("/api/health").status_code == 200, url

    # the address `thea serve --host` listens on, and names the user lists, are answered too
    listed = runtime.settings.model_copy(update={"web_allowed_hosts": ["thea.lan"]})
    lan_app = create_app(dataclasses.replace(runtime, settings=listed), bind_host="192.168.1.5")
    expected = {"http://thea.lan": 200, "http://192.168.1.5:8000": 200, "http://evil.example": 400}
    for url, status in expected.items():
        with TestClient(lan_app, base_url=url) as c:
            assert c.get("/api/health").status_code == status, url
    anything = runtime.settings.model_copy(update={"web_allowed_hosts": ["*"]})
    any_app = create_app(dataclasses.replace(runtime, settings=anything))
    with TestClient(any_app, base_url="http://x.example") as c:
        assert c.get("/api/health").status_code == 200


def test_with_a_token_any_host_name_is_answered_unless_a_list_is_set(runtime: Runtime) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    tokened = runtime.settings.model_copy(update={"web_token": SecretStr(TOKEN)})
    token_app = create_app(dataclasses.replace(runtime, settings=tokened))
    with TestClient(token_app, base_url="http://thea.example") as c:
        assert c.get("/api/health", headers=auth).status_code == 200
    listed = tokened.model_copy(update={"web_allowed_hosts": ["thea.example"]})
    app = create_app(dataclasses.replace(runtime, settings=listed))
    with TestClient(app, base_url="http://thea.example") as c:
        assert c.get("/api/health", headers=auth).status_code == 200
    with TestClient(app, base_url="http://other.example") as c:
        assert c.get("/api/health", headers=auth).status_code == 400


def _same_404(client: TestClient, path: str, foreign: str, params: dict[str, str] | None = None) -> None:
    """``foreign`` (another user's id or concept) gets the very 404 of something that does not exist."""
    missing = "0" * len(foreign) if foreign[:1] != "0" else "1" * len(foreign)
    got = client.get(path.format(foreign), params={k: v.format(foreign) for k, v in (params or {}).items()})
    none = client.get(path.format(missing), params={k: v.format(missing) for k, v in (params or {}).items()})
    assert got.status_code == none.status_code == 404, (got.text, none.text)
    assert got.json()["detail"].replace(foreign, "<x>") == none.json()["detail"].replace(missing, "<x>")


def test_concepts_and_their_relations_belong_to_one_browser(app: Any, runtime: Runtime) -> None:
    with local_client(app) as ana, local_client(app) as bob:
        fact = next(d for kind, d in chat(ana, "!fact my salary::182000 dollars") if kind == "command")
        said = done_of(chat(ana, "My PIN is 4321 and my bank is Nordea."))
        insight = seed_insights(runtime.memory, user_id=my_user(ana), concept="Kafka").merged

        mine = ana.get("/api/graph", params={"concept": "182000 dollars", "depth": 1}).json()
        labels = {n["data"]["id"]: n["data"]["label"] for n in mine["nodes"]}
        edges = {
            (labels.get(e["data"]["source"]), e["data"]["label"], labels.get(e["data"]["target"]))
            for e in mine["edges"]
        }
        assert ("my salary", "IS_A", "182000 dollars") in edges
        assert ana.get("/api/graph", params={"concept": "PIN"}).status_code == 200

        # bob reaches none of it, and cannot tell it exists
        for name in ("182000 dollars", "my salary", "PIN", "Nordea", "Kafka"):
            _same_404(bob, "/api/graph", name, {"concept": "{}"})
        _same_404(bob, "/api/graph", fact["data"]["fact_id"], {"node": "{}"})
        _same_404(bob, "/api/graph", said["impulse_id"][:8], {"node": "{}"})
        _same_404(bob, "/api/trace/{}", said["impulse_id"])
        _same_404(bob, "/api/insights/{}", insight.id)
        assert bob.get("/api/insights", params={"concept": "kafka"}).json()["insights"] == []

        # bob's own salary is his own concept, linked to his own fact only
        chat(bob, "!fact my salary::90000 dollars")
        his = bob.get("/api/graph", params={"concept": "my salary", "depth": 3}).json()
        his_labels = {n["data"]["label"] for n in his["nodes"]}
        assert "90000 dollars" in his_labels
        assert not his_labels & {"182000 dollars", "my salary::182000 dollars"}
        assert {n["data"]["id"] for n in his["nodes"]}.isdisjoint(
            {fact["data"]["fact_id"], said["impulse_id"]}
        )
