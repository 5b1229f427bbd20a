"""Retries without duplicates (issue 22, item 3): a write sent again with the same
``Idempotency-Key`` gets the first result and is stored once, whether the first one had
finished, was still running, lost its connection mid-response, or its service died after
writing; ``thea.Client`` retries a broken connection with the same key and never raises
an httpx error."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import thea
from thea.api import IDEMPOTENCY_HEADER, PREFIX
from thea.client.errors import ConnectionLost, ServiceUnavailable
from thea.errors import TheaError
from thea.llm.fake import StreamingFakeChatModel
from thea.runtime import Runtime
from thea.testing.service import LiveServer, bearer, local_token, service_app
from workers.idempotency import IdempotencyStore
from workers.liveness import ProcessIdentity, current_node

USER = "local"


def stored(runtime: Runtime, text: str) -> list[dict[str, Any]]:
    """Every node whose text is ``text`` (all types; a claim by the words it quotes)."""
    found, after = [], ""
    while page := runtime.memory.admin.memory_page(after, 500):
        found += [p for p in page if p.get("content") == text or p.get("quote") == text.rstrip(".")]
        after = str(page[-1]["id"])
    return found


def key() -> dict[str, str]:
    return {IDEMPOTENCY_HEADER: uuid.uuid4().hex}


def test_a_write_sent_twice_with_one_key_is_stored_once_and_answered_the_same(
    client: TestClient, runtime: Runtime
) -> None:
    headers = key()
    text = f"Ana keeps the spare key under the blue pot {uuid.uuid4().hex[:6]}."
    first = client.post(f"{PREFIX}/remember", json={"text": text}, headers=headers)
    again = client.post(f"{PREFIX}/remember", json={"text": text}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert first.headers.get("Idempotent-Replayed") is None
    assert len(stored(runtime, text)) == 1

    # without a key every request is its own write, as before
    other = f"Bo waters the fern on Sundays {uuid.uuid4().hex[:6]}."
    for _ in range(2):
        assert client.post(f"{PREFIX}/remember", json={"text": other}).status_code == 200
    assert len(stored(runtime, other)) == 2


def test_every_kind_of_write_runs_once_per_key(client: TestClient, runtime: Runtime) -> None:
    text = f"My sister Lena lives in Porto {uuid.uuid4().hex[:6]}."
    calls = [
        ("/facts", {"text": text}),
        ("/ask", {"text": f"What is a fern {uuid.uuid4().hex[:6]}?"}),
        (
            "/import",
            {"text": '{"speaker": "user", "text": "I sold the red bike ' + uuid.uuid4().hex[:6] + '."}\n'},
        ),
    ]
    for path, body in calls:
        headers = key()
        first = client.post(PREFIX + path, json=body, headers=headers)
        again = client.post(PREFIX + path, json=body, headers=headers)
        assert first.status_code == 200, first.text
        assert again.json() == first.json(), path
        assert again.headers.get("Idempotent-Replayed") == "true"
    assert len([n for n in stored(runtime, text) if n["type"] == "Fact"]) == 1
    asked = [n for n in stored(runtime, calls[1][1]["text"]) if n["type"] == "UserImpulse"]
    assert len(asked) == 1


def test_one_key_for_a_different_request_is_refused(client: TestClient) -> None:
    headers = key()
    assert client.post(f"{PREFIX}/remember", json={"text": "first text"}, headers=headers).status_code == 200
    other = client.post(f"{PREFIX}/remember", json={"text": "another text"}, headers=headers)
    assert other.status_code == 422
    assert "already used for a different request" in other.json()["error"]
    bad = client.post(
        f"{PREFIX}/remember", json={"text": "x"}, headers={IDEMPOTENCY_HEADER: "no spaces allowed"}
    )
    assert bad.status_code == 400


def test_keys_are_per_user(runtime: Runtime) -> None:
    headers = key()
    text = f"A note {uuid.uuid4().hex[:6]}."
    # on the unix socket, where X-Thea-User names the user (on TCP the token does)
    with TestClient(service_app(runtime, transport="unix"), base_url="http://localhost") as unix:
        for user in ("ana", "bob"):
            answer = unix.post(
                f"{PREFIX}/remember", json={"text": text}, headers={**headers, "X-Thea-User": user}
            )
            assert answer.status_code == 200
            assert answer.headers.get("Idempotent-Replayed") is None
    assert sorted(n["user_id"] for n in stored(runtime, text)) == ["ana", "bob"]


def test_a_duplicate_sent_while_the_first_runs_waits_for_its_result(
    app: Any, runtime: Runtime, llm: StreamingFakeChatModel
) -> None:
    llm.token_delay_s = 0.05  # the first answer takes a while
    text = f"Tell me about ferns {uuid.uuid4().hex[:6]}"
    headers = {**key(), **bearer(runtime.settings)}
    with LiveServer(app) as live, ThreadPoolExecutor(2) as pool:

        def post() -> httpx.Response:
            return httpx.post(f"{live.url}{PREFIX}/ask", json={"text": text}, headers=headers, timeout=60)

        answers = list(pool.map(lambda _: post(), range(2)))
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    assert sorted(a.headers.get("Idempotent-Replayed", "") for a in answers) == ["", "true"]
    assert len([n for n in stored(runtime, text) if n["type"] == "UserImpulse"]) == 1


def _raw_post(port: int, path: str, body: bytes, headers: dict[str, str], read: int) -> bytes:
    """Send one HTTP request, read at most ``read`` bytes of the answer, drop the connection."""
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += [f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        got = sock.recv(read) if read else b""
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
    return got


def test_a_retry_after_the_connection_dropped_mid_response_gets_the_first_result(
    app: Any, runtime: Runtime, llm: StreamingFakeChatModel
) -> None:
    text = f"The boiler was serviced in May {uuid.uuid4().hex[:6]}."
    asked = f"Where do ferns grow {uuid.uuid4().hex[:6]}?"
    with LiveServer(app) as live:
        # a write: the connection drops after the first bytes of the answer
        headers = {**key(), **bearer(runtime.settings)}
        body = json.dumps({"text": text}).encode()
        assert _raw_post(live.port, f"{PREFIX}/remember", body, headers, read=12).startswith(b"HTTP/1.1 200")
        retry = httpx.post(f"{live.url}{PREFIX}/remember", json={"text": text}, headers=headers, timeout=30)
        assert retry.status_code == 200
        assert retry.headers.get("Idempotent-Replayed") == "true"
        assert retry.json()["id"] == stored(runtime, text)[0]["id"]
        # a streamed answer cut off mid-stream: the cycle is cancelled, the retry answers it
        llm.token_delay_s = 0.2
        headers = {**key(), **bearer(runtime.settings)}
        body = json.dumps({"text": asked, "stream": True}).encode()
        assert b"200" in _raw_post(live.port, f"{PREFIX}/ask", body, headers, read=200)
        llm.token_delay_s = 0.0
        retry = httpx.post(
            f"{live.url}{PREFIX}/ask", json={"text": asked, "stream": True}, headers=headers, timeout=60
        )
        assert retry.status_code == 200
        assert "event: done" in retry.text
    assert len(stored(runtime, text)) == 1
    impulses = [n for n in stored(runtime, asked) if n["type"] == "UserImpulse"]
    assert len(impulses) == 1  # the cut-off attempt and the retry are one impulse
    assert impulses[0]["id"] in retry.text


def test_a_write_whose_service_died_before_keeping_its_result_is_not_stored_twice(
    client: TestClient, runtime: Runtime
) -> None:
    """The service wrote, then was killed before it kept the response: the retry runs again
    (its lock's holder is gone) and writes the same node, not a second one."""
    headers = key()
    text = f"The spare tyre is in the garage {uuid.uuid4().hex[:6]}."
    first = client.post(f"{PREFIX}/remember", json={"text": text}, headers=headers)
    store = IdempotencyStore(runtime.jobs.connection)
    runtime.jobs.connection.delete(store._name("done", USER, headers[IDEMPOTENCY_HEADER]))
    dead = _dead_holder_lock(runtime, store, headers[IDEMPOTENCY_HEADER])
    again = client.post(f"{PREFIX}/remember", json={"text": text}, headers=headers)
    assert again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") is None
    assert again.json()["id"] == first.json()["id"]
    assert len(stored(runtime, text)) == 1
    assert runtime.jobs.connection.get(dead) is None  # taken over and released


def test_a_turn_whose_service_died_before_keeping_its_result_is_answered_once(
    client: TestClient, runtime: Runtime
) -> None:
    """The service ran the whole cycle, then was killed before it kept the response: the retry
    runs the cycle again on the same impulse and writes the same task, report and answer nodes,
    not a second set (the turn answered twice, its trace doubled)."""
    headers = key()
    asked = f"Where do ferns grow {uuid.uuid4().hex[:6]}?"
    first = client.post(f"{PREFIX}/ask", json={"text": asked}, headers=headers)
    assert first.status_code == 200, first.text
    impulse = first.json()["impulse_id"]
    written = sorted(n.id for n in runtime.memory.traces.cycle_nodes(impulse))
    store = IdempotencyStore(runtime.jobs.connection)
    runtime.jobs.connection.delete(store._name("done", USER, headers[IDEMPOTENCY_HEADER]))
    _dead_holder_lock(runtime, store, headers[IDEMPOTENCY_HEADER])
    again = client.post(f"{PREFIX}/ask", json={"text": asked}, headers=headers)
    assert again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") is None  # it ran again
    assert again.json()["impulse_id"] == impulse
    assert again.json()["response_id"] == first.json()["response_id"]
    assert sorted(n.id for n in runtime.memory.traces.cycle_nodes(impulse)) == written


def _dead_holder_lock(runtime: Runtime, store: IdempotencyStore, request_key: str) -> str:
    """Leave the key's lock held by a process that is gone (as a killed service leaves it)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    holder = ProcessIdentity(current_node(), child.pid, 1)
    name = store._name("running", USER, request_key)
    runtime.jobs.connection.set(name, f"{holder.token()}|dead", px=30_000)
    return name


# -- the client ------------------------------------------------------------------------


class DroppingProxy:
    """A TCP proxy in front of a live service that, for the first ``drops`` connections,
    passes the request on but gives the client only the first bytes of the answer, then
    resets the connection. Records each request's idempotency key."""

    def __init__(self, upstream_port: int, drops: int) -> None:
        self.upstream_port = upstream_port
        self.drops = drops
        self.keys: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn, socket.create_connection(("127.0.0.1", self.upstream_port)) as up:
            while request := self._request(conn):
                for line in request.split(b"\r\n"):
                    if line.lower().startswith(IDEMPOTENCY_HEADER.lower().encode()):
                        self.keys.append(line.split(b":", 1)[1].strip().decode())
                up.sendall(request)
                answer = self._response(up)
                if self.drops > 0:
                    self.drops -= 1
                    conn.sendall(answer[:20])
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    return
                conn.sendall(answer)

    @staticmethod
    def _request(conn: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return b""
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")), 0
        )
        while len(body) < length:
            body += conn.recv(65536)
        return head + b"\r\n\r\n" + body

    @staticmethod
    def _response(up: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            data += up.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")), 0
        )
        while len(body) < length:
            body += up.recv(65536)
        return head + b"\r\n\r\n" + body

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def live(app: Any) -> Iterator[LiveServer]:
    with LiveServer(app) as server:
        yield server


def test_the_client_retries_a_dropped_write_with_the_same_key_and_it_is_stored_once(
    live: LiveServer, runtime: Runtime
) -> None:
    proxy = DroppingProxy(live.port, drops=1)
    text = f"The wifi password is on the fridge {uuid.uuid4().hex[:6]}."
    try:
        with thea.Client(proxy.url, local_token(runtime.settings)) as api:
            done = api.remember(text)
    finally:
        proxy.close()
    assert len(proxy.keys) == 2
    assert proxy.keys[0] == proxy.keys[1]
    assert len(stored(runtime, text)) == 1
    assert done.id == stored(runtime, text)[0]["id"]


def test_a_connection_that_keeps_dropping_is_a_one_line_thea_error(live: LiveServer) -> None:
    proxy = DroppingProxy(live.port, drops=10)
    try:
        with thea.Client(proxy.url) as api, pytest.raises(TheaError) as raised:
            api.remember("never answered in full")
    finally:
        proxy.close()
    assert isinstance(raised.value, ConnectionLost)
    assert not isinstance(raised.value, httpx.HTTPError)
    message = str(raised.value)
    assert "\n" not in message
    assert "broke before its answer was complete" in message
    assert len(set(proxy.keys)) == 1
    assert len(proxy.keys) == 3


async def test_the_async_client_maps_a_dropped_connection_to_a_thea_error(live: LiveServer) -> None:
    proxy = DroppingProxy(live.port, drops=10)
    try:
        async with thea.AsyncClient(proxy.url) as api:
            with pytest.raises(ConnectionLost):
                await api.remember("never answered in full")
    finally:
        proxy.close()
    assert len(set(proxy.keys)) == 1
    assert len(proxy.keys) == 3


def test_a_refused_connection_is_a_thea_error_after_its_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with thea.Client(f"http://127.0.0.1:{port}") as api, pytest.raises(ServiceUnavailable) as raised:
        api.remember("nobody listens")
    assert "cannot reach" in str(raised.value)
    assert "\n" not in str(raised.value)
