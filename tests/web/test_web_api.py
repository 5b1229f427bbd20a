"""The service's v1 API on a real embedded runtime with a scripted, streaming fake model
(in-process: the app as the TCP listener serves it)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.service_support import answer_of, chat, done_of, parse_sse
from tests.web.conftest import TOKEN
from thea.api import PREFIX
from thea.llm.fake import StreamingFakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime
from thea.service.app import create_app, serve_app
from thea.service.middleware import MAX_BODY_BYTES
from thea.testing.seed import SeededInsights, seed_insights
from thea.testing.service import bearer, service_app, service_context

BOB_TOKEN = "bobs-own-token"


@pytest.fixture(scope="module")
def shared_app(runtime: Runtime) -> Any:
    """A shared service: every token is its own user."""
    tokens = {"ana": SecretStr(TOKEN), "bob": SecretStr(BOB_TOKEN)}
    settings = runtime.settings.model_copy(
        update={"service": runtime.settings.service.model_copy(update={"tokens": tokens})}
    )
    return service_app(runtime, settings)


def as_user(app: Any, token: str) -> TestClient:
    return TestClient(app, base_url="http://localhost", headers={"Authorization": f"Bearer {token}"})


@pytest.fixture
def seeded(runtime: Runtime) -> SeededInsights:
    """Insights owned by the local user (whom the page is on a local service)."""
    return seed_insights(runtime.memory, user_id=runtime.settings.user_id, concept="Redis")


def test_chat_streams_the_answer_in_several_chunks(client: TestClient, llm: StreamingFakeChatModel) -> None:
    llm.reply = "The team uses the billing queue and the email queue, both on Redis streams."
    events = chat(client, "Which Redis queues does the team use?")
    tokens = [data for kind, data in events if kind == "token"]
    assert len(tokens) >= 3, events  # streamed a few words behind the model, not all at the end
    assert answer_of(events) == llm.reply
    assert events[-1][0] == "done"
    done = done_of(events)
    assert done["failed_steps"] == []
    assert done["impulse_id"]
    assert done["session_id"] == "s1"


def test_ask_answers_as_json_or_as_a_stream(client: TestClient) -> None:
    plain = client.post(f"{PREFIX}/ask", json={"text": "What does the team work on?", "session_id": "s2"})
    assert plain.status_code == 200
    body = plain.json()
    assert body["answer"] == "Here is my answer."
    assert plain.headers["X-Thea-Impulse-Id"] == body["impulse_id"]
    assert [s["step"] for s in body["steps"]] == ["instinct", "plan", "recall", "synthesis"]
    assert body["usage"]["llm_calls"] == 1  # the answer alone: the first look and the plan need no call
    with client.stream("POST", f"{PREFIX}/ask", json={"text": "And again?", "stream": True}) as response:
        events = parse_sse(response.iter_lines())
    assert answer_of(events) == "Here is my answer."
    assert done_of(events)["answer"] == "Here is my answer."


def test_the_api_describes_itself(client: TestClient) -> None:
    schema = client.get(f"{PREFIX}/openapi.json").json()
    assert schema["info"]["title"] == "thea"
    for path in ("/ask", "/chat", "/traces/{impulse}", "/insights", "/reflect", "/status", "/memory/check"):
        assert f"{PREFIX}{path}" in schema["paths"], path
    health = client.get(f"{PREFIX}/health").json()
    assert health["api_version"] == "v1"
    assert health["auth"] is True  # TCP always needs a token, on loopback too


def test_trace_lists_every_step_with_its_status(client: TestClient, llm: StreamingFakeChatModel) -> None:
    done = done_of(chat(client, "What does the team work on?", session="trace"))
    trace = client.get(f"{PREFIX}/traces/{done['impulse_id']}").json()
    assert trace["impulse"]["content"] == "What does the team work on?"
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
    # people type short ids, and "last" is this session's last answer
    assert (
        client.get(f"{PREFIX}/traces/{done['impulse_id'][:8]}").json()["impulse"]["id"] == done["impulse_id"]
    )
    last = client.get(f"{PREFIX}/traces/last", params={"session_id": "trace"}).json()
    assert last["impulse"]["id"] == done["impulse_id"]
    assert client.get(f"{PREFIX}/traces/ffffffff-0000").status_code == 404

    llm.fail = {PromptId.SYNTHESIS}
    failed = done_of(chat(client, "And now?", session="trace"))
    assert failed["failed_steps"] == ["synthesis"]
    trace = client.get(f"{PREFIX}/traces/{failed['impulse_id']}").json()
    step = trace["steps"][3]
    assert (step["step"], step["status"]) == ("synthesis", "FAILURE")
    assert "scripted failure" in step["error"]
    assert trace["failed_steps"] == ["synthesis"]


def test_insights_list_filters_and_shows_lineage(client: TestClient, seeded: SeededInsights) -> None:
    def ids(**params: Any) -> list[str]:
        rows = client.get(f"{PREFIX}/insights", params=params).json()["insights"]
        return [i["id"] for i in rows]

    mine = {seeded.merged.id, seeded.weak.id, seeded.first.id, seeded.second.id}
    active = client.get(f"{PREFIX}/insights", params={"limit": 1000}).json()["insights"]
    top = next(i for i in active if i["id"] == seeded.merged.id)
    assert top["content"] == seeded.merged.content
    assert top["strength"] == 2.5
    assert top["concepts"] == ["Redis"]
    assert [i for i in ids(limit=1000) if i in mine] == [seeded.merged.id, seeded.weak.id]  # strongest first

    archived = [i for i in ids(state="archived", limit=1000) if i in mine]
    assert set(archived) == {seeded.first.id, seeded.second.id}
    strong = [i for i in ids(state="all", min_strength=1.2, limit=1000) if i in mine]
    assert set(strong) == {seeded.merged.id, seeded.second.id}
    assert seeded.weak.id in ids(concept="gardening")
    bad = client.get(f"{PREFIX}/insights", params={"state": "bogus"})
    assert bad.status_code == 422
    assert bad.json()["kind"] == "input"

    merged = client.get(f"{PREFIX}/insights/{seeded.merged.id[:10]}").json()
    assert {m["id"] for m in merged["merged_from"]} == {seeded.first.id, seeded.second.id}
    assert all(m["active"] is False for m in merged["merged_from"])
    source = client.get(f"{PREFIX}/insights/{seeded.first.id}").json()
    assert [m["id"] for m in source["merged_into"]] == [seeded.merged.id]
    assert [s["content"] for s in source["source_impulses"]] == ["I use Redis streams for my job queue."]


def test_graph_returns_the_neighbourhood_of_a_concept_and_of_an_impulse(
    client: TestClient, seeded: SeededInsights
) -> None:
    graph = client.get(f"{PREFIX}/graph", params={"concept": "redis", "depth": 1}).json()
    by_id = {n["data"]["id"]: n["data"] for n in graph["nodes"]}
    assert graph["start"] == seeded.concept.id
    assert by_id[seeded.concept.id]["label"] == "Redis"
    assert by_id[seeded.concept.id]["start"] is True
    assert {seeded.first.id, seeded.second.id, seeded.merged.id} <= set(by_id)
    edges = {(e["data"]["source"], e["data"]["label"], e["data"]["target"]) for e in graph["edges"]}
    assert (seeded.merged.id, "INSIGHT_FROM_CONCEPT", seeded.concept.id) in edges
    assert all(e["data"]["source"] in by_id and e["data"]["target"] in by_id for e in graph["edges"])

    done = done_of(chat(client, "Tell me about Redis."))
    around = client.get(f"{PREFIX}/graph", params={"node": done["impulse_id"][:8], "depth": 1}).json()
    labels = {n["data"]["label"] for n in around["nodes"]}
    assert {"task: instinct", "task: plan", "task: recall", "task: synthesis"} <= labels
    assert client.get(f"{PREFIX}/graph", params={"concept": "no such thing"}).status_code == 404
    # neither a node nor a concept: the user's own graph, around what they told last
    own = client.get(f"{PREFIX}/graph").json()
    assert own["start"]
    assert own["start"] in {n["data"]["id"] for n in own["nodes"]}


def test_oversized_bodies_are_refused(client: TestClient) -> None:
    big = json.dumps({"text": "x" * (MAX_BODY_BYTES + 10)})
    response = client.post(f"{PREFIX}/chat", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert len(response.content) < 300

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        yield b'{"text": "'
        for _ in range(60):
            yield b"y" * 10_000
        yield b'"}'

    response = client.post(f"{PREFIX}/chat", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    # a normal message right after is fine
    assert answer_of(chat(client, "still there?")) == "Here is my answer."


def test_a_shared_service_needs_a_token_and_each_token_is_a_user(shared_app: Any) -> None:
    with TestClient(shared_app, base_url="http://localhost") as anon:
        assert anon.get("/").status_code == 200  # the page loads, then asks for the token
        assert anon.get(f"{PREFIX}/health").status_code == 200  # health is public
        assert anon.get(f"{PREFIX}/insights").status_code == 401
        assert anon.post(f"{PREFIX}/chat", json={"text": "hi"}).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert anon.get(f"{PREFIX}/whoami", headers=wrong).status_code == 401
        assert anon.get(f"{PREFIX}/whoami", headers={"Authorization": TOKEN}).status_code == 401
        forged = {"Authorization": f"Bearer {TOKEN}", "X-Thea-User": "bob"}
        assert anon.get(f"{PREFIX}/whoami", headers=forged).status_code == 401
    with as_user(shared_app, TOKEN) as ana, as_user(shared_app, BOB_TOKEN) as bob:
        assert ana.get(f"{PREFIX}/health").json()["auth"] is True
        assert ana.get(f"{PREFIX}/whoami").json()["user_id"] == "ana"
        assert bob.get(f"{PREFIX}/whoami").json()["user_id"] == "bob"
        assert answer_of(chat(ana, "hello with a token")) == "Here is my answer."
        # maintenance is for the local user of the service, not for token users
        assert ana.get(f"{PREFIX}/memory/stats").status_code == 403
        assert ana.post(f"{PREFIX}/service/stop", json={}).status_code == 403


def test_two_token_users_do_not_see_each_other(shared_app: Any, llm: StreamingFakeChatModel) -> None:
    with as_user(shared_app, TOKEN) as ana, as_user(shared_app, BOB_TOKEN) as bob:
        ana_done = done_of(chat(ana, "My locker code is 4711 and I love Redis streams.", session="a"))
        ana_trace = ana.get(f"{PREFIX}/traces/{ana_done['impulse_id']}").json()

        # bob has no conversation yet: nothing of ana's to trace as his last one
        assert bob.get(f"{PREFIX}/traces/last").status_code == 404
        # her trace is not his to read, and reads exactly like an id that does not exist
        foreign = bob.get(f"{PREFIX}/traces/{ana_done['impulse_id']}")
        missing = bob.get(f"{PREFIX}/traces/{ana_done['impulse_id'][:-4]}ffff")
        assert foreign.status_code == missing.status_code == 404
        assert foreign.json()["error"].replace(ana_done["impulse_id"], "X") == missing.json()[
            "error"
        ].replace(ana_done["impulse_id"][:-4] + "ffff", "X")
        bob_done = done_of(chat(bob, "What is my locker code?", session="b"))
        bob_trace = bob.get(f"{PREFIX}/traces/{bob_done['impulse_id']}").json()
        assert ana_done["impulse_id"] not in bob_done["recalled_ids"]
        assert bob_trace["impulse"]["user_id"] == "bob" != ana_trace["impulse"]["user_id"]
        synthesis_prompt = plain_text(llm.prompts_for(PromptId.SYNTHESIS)[-1])
        assert "4711" not in synthesis_prompt, "bob's answer was built from ana's conversation"

        command = [data for kind, data in chat(bob, "!trace", session="b") if kind == "command"]
        assert command[0]["trace"]["impulse"]["id"] == bob_done["impulse_id"]
        events = chat(bob, f"!trace {ana_done['impulse_id'][:8]}", session="b")
        assert "4711" not in json.dumps(events)
        assert events[0][0] == "error"


async def test_chats_at_the_same_moment_each_get_their_own_answer(
    app: Any, llm: StreamingFakeChatModel, runtime: Runtime
) -> None:
    llm.answer(PromptId.SYNTHESIS, lambda call: f"answer to {call.messages[-1].content}")
    llm.token_delay_s = 0.01
    names = ["ana1", "bob2", "cid3", "dan4"]

    async def ask(name: str) -> str:
        transport = httpx.ASGITransport(app=app)
        local = bearer(runtime.settings)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost", headers=local) as c:
            response = await c.post(
                f"{PREFIX}/chat", json={"text": f"question from {name}", "session_id": name}
            )
        return answer_of(parse_sse(iter(response.text.splitlines())))

    try:
        answers = await asyncio.gather(*(ask(n) for n in names))
    finally:
        del llm.handlers[PromptId.SYNTHESIS]
    assert answers == [f"answer to question from {n}" for n in names]


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
    assert body["kind"] in ("input", "not_found", "auth"), body
    return str(body["error"])


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_a_bad_chat_body_gets_a_short_json_error_that_does_not_echo_it(client: TestClient, name: str) -> None:
    response = client.post(
        f"{PREFIX}/chat", content=BAD_BODIES[name], headers={"Content-Type": "application/json"}
    )
    message = assert_small_json_error(response)
    assert "aaaaaaaaaa" not in response.text
    assert "zebra" not in response.text
    if name == "a text one character over the limit":
        assert message == "invalid request: text is 200,001 characters long; the limit is 200,000"
    if name == "a lone surrogate as the text":
        assert "unpaired surrogate" in message
    # the service is fine afterwards
    assert answer_of(chat(client, "still there?")) == "Here is my answer."


def test_every_error_response_is_small_json(client: TestClient) -> None:
    cases = [
        client.get(f"{PREFIX}/no-such-endpoint"),
        client.put(f"{PREFIX}/chat"),
        client.get(f"{PREFIX}/insights", params={"limit": "many"}),
        client.get(f"{PREFIX}/insights", params={"state": "x" * 5000}),
        client.get(f"{PREFIX}/graph", params={"concept": "c" * 5000}),
        client.get(f"{PREFIX}/traces/" + "f" * 20_000),
        client.get(f"{PREFIX}/graph?concept=%ED%A0%80%00"),  # a surrogate's UTF-8 bytes and NUL
    ]
    for response in cases:
        message = assert_small_json_error(response, (400, 404, 405, 422))
        for echoed in ("x" * 300, "c" * 300, "f" * 300):
            assert echoed not in message


def test_only_loopback_host_names_are_answered_without_a_token(runtime: Runtime) -> None:
    app = service_app(runtime)
    with TestClient(app, base_url="http://evil.example:8000") as rebound:
        responses = [
            rebound.get("/"),
            rebound.get(f"{PREFIX}/health"),
            rebound.post(f"{PREFIX}/chat", json={"text": "hi"}),
        ]
        for response in responses:
            message = assert_small_json_error(response, (400,))
            assert "DNS rebinding" in message
            assert "THEA_WEB_ALLOWED_HOSTS" in message
            assert "evil" not in message
    for url in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000", "http://LOCALHOST."):
        with TestClient(app, base_url=url) as local:
            assert local.get(f"{PREFIX}/health").status_code == 200, url

    # the address a TCP listener listens on, and names the user lists, are answered too
    listed = runtime.settings.model_copy(update={"web_allowed_hosts": ["thea.lan"]})
    ctx = service_context(runtime, listed)
    lan_app = serve_app(create_app(ctx), ctx, "tcp", bind_host="192.168.1.5")
    expected = {"http://thea.lan": 200, "http://192.168.1.5:8000": 200, "http://evil.example": 400}
    for url, status in expected.items():
        with TestClient(lan_app, base_url=url) as c:
            assert c.get(f"{PREFIX}/health").status_code == status, url
    any_app = service_app(runtime, runtime.settings.model_copy(update={"web_allowed_hosts": ["*"]}))
    with TestClient(any_app, base_url="http://x.example") as c:
        assert c.get(f"{PREFIX}/health").status_code == 200
    # the unix socket has no Host to check: only this OS user can open it
    with TestClient(service_app(runtime, transport="unix"), base_url="http://evil.example") as c:
        assert c.get(f"{PREFIX}/health").status_code == 200


def test_with_a_token_any_host_name_is_answered_unless_a_list_is_set(runtime: Runtime) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    tokened = runtime.settings.model_copy(update={"web_token": SecretStr(TOKEN)})
    with TestClient(service_app(runtime, tokened), base_url="http://thea.example") as c:
        assert c.get(f"{PREFIX}/health", headers=auth).status_code == 200
    listed = tokened.model_copy(update={"web_allowed_hosts": ["thea.example"]})
    app = service_app(runtime, listed)
    with TestClient(app, base_url="http://thea.example") as c:
        assert c.get(f"{PREFIX}/health", headers=auth).status_code == 200
    with TestClient(app, base_url="http://other.example") as c:
        assert c.get(f"{PREFIX}/health", headers=auth).status_code == 400


def _same_404(client: TestClient, path: str, foreign: str, params: dict[str, str] | None = None) -> None:
    """``foreign`` (another user's id or concept) gets the very 404 of something that does not exist."""
    missing = "0" * len(foreign) if foreign[:1] != "0" else "1" * len(foreign)
    got = client.get(path.format(foreign), params={k: v.format(foreign) for k, v in (params or {}).items()})
    none = client.get(path.format(missing), params={k: v.format(missing) for k, v in (params or {}).items()})
    assert got.status_code == none.status_code == 404, (got.text, none.text)
    assert got.json()["error"].replace(foreign, "<x>") == none.json()["error"].replace(missing, "<x>")


def test_concepts_and_their_relations_belong_to_one_user(shared_app: Any, runtime: Runtime) -> None:
    with as_user(shared_app, TOKEN) as ana, as_user(shared_app, BOB_TOKEN) as bob:
        fact = next(d for kind, d in chat(ana, "!fact my salary::182000 dollars") if kind == "command")
        said = done_of(chat(ana, "My PIN is 4321 and my bank is Nordea."))
        insight = seed_insights(runtime.memory, user_id="ana", concept="Kafka").merged

        mine = ana.get(f"{PREFIX}/graph", params={"concept": "182000 dollars", "depth": 1}).json()
        labels = {n["data"]["id"]: n["data"]["label"] for n in mine["nodes"]}
        edges = {
            (labels.get(e["data"]["source"]), e["data"]["label"], labels.get(e["data"]["target"]))
            for e in mine["edges"]
        }
        assert ("my salary", "IS_A", "182000 dollars") in edges
        assert ana.get(f"{PREFIX}/graph", params={"concept": "PIN"}).status_code == 200

        # bob reaches none of it, and cannot tell it exists
        for name in ("182000 dollars", "my salary", "PIN", "Nordea", "Kafka"):
            _same_404(bob, f"{PREFIX}/graph", name, {"concept": "{}"})
        _same_404(bob, f"{PREFIX}/graph", fact["data"]["fact_id"], {"node": "{}"})
        _same_404(bob, f"{PREFIX}/graph", said["impulse_id"][:8], {"node": "{}"})
        _same_404(bob, f"{PREFIX}/traces/{{}}", said["impulse_id"])
        _same_404(bob, f"{PREFIX}/insights/{{}}", insight.id)
        assert bob.get(f"{PREFIX}/insights", params={"concept": "kafka"}).json()["insights"] == []

        # bob's own salary is his own concept, linked to his own fact only
        chat(bob, "!fact my salary::90000 dollars")
        his = bob.get(f"{PREFIX}/graph", params={"concept": "my salary", "depth": 3}).json()
        his_labels = {n["data"]["label"] for n in his["nodes"]}
        assert "90000 dollars" in his_labels
        assert not his_labels & {"182000 dollars", "my salary::182000 dollars"}
        assert {n["data"]["id"] for n in his["nodes"]}.isdisjoint(
            {fact["data"]["fact_id"], said["impulse_id"]}
        )
