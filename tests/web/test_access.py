"""Other local users and web pages cannot reach memory over TCP (issue 22, item 4): a token is
always required, on loopback too; the page keeps the local token in an HttpOnly,
SameSite=Strict cookie; ``X-Thea-User`` counts only on the unix socket; changes come only from
the served site, as JSON. In-process: the app as the TCP listener serves it."""

from __future__ import annotations

import socket
from typing import Any

from fastapi.testclient import TestClient

from thea.api import PREFIX
from thea.config import Settings
from thea.runtime import Runtime
from thea.testing.service import LiveServer, bearer, local_token, service_app

#: the routes the round-3 attack changed things through
CHANGES = [f"{PREFIX}/service/stop", f"{PREFIX}/service/listen", f"{PREFIX}/memory/optimize"]


def test_no_token_no_memory_on_loopback_either(app: Any) -> None:
    with TestClient(app, base_url="http://127.0.0.1:8765") as nobody:  # another local user
        assert nobody.get("/").status_code == 200  # the page itself holds nothing
        assert nobody.get(f"{PREFIX}/health").status_code == 200
        assert nobody.post(f"{PREFIX}/recall", json={"query": "locker code"}).status_code == 401
        assert nobody.get(f"{PREFIX}/memories", headers={"X-Thea-User": "ana"}).status_code == 401
        assert nobody.get(f"{PREFIX}/openapi.json").status_code == 401
        for path in CHANGES:
            refused = nobody.post(path, json={})
            assert refused.status_code == 401, path
            assert refused.headers["connection"] == "close"
            assert refused.json()["error"] == "missing or wrong access token"


def test_the_local_token_is_the_local_user_and_names_no_other(app: Any, web_settings: Settings) -> None:
    with TestClient(app, base_url="http://127.0.0.1:8765", headers=bearer(web_settings)) as owner:
        assert owner.get(f"{PREFIX}/whoami").json()["user_id"] == web_settings.user_id
        assert owner.get(f"{PREFIX}/memory/stats").status_code == 200  # maintenance: the local user
        # on TCP the token is the user: naming another one is refused, not honoured
        named = owner.get(f"{PREFIX}/whoami", headers={"X-Thea-User": "bob"})
        assert named.status_code == 401
        assert "another user" in named.json()["error"]


def test_x_thea_user_is_honoured_on_the_unix_socket(runtime: Runtime) -> None:
    with TestClient(service_app(runtime, transport="unix"), base_url="http://localhost") as socket:
        assert socket.get(f"{PREFIX}/whoami", headers={"X-Thea-User": "bob"}).json()["user_id"] == "bob"
        assert socket.get(f"{PREFIX}/whoami").json()["user_id"] == runtime.settings.user_id


def test_the_page_keeps_its_token_in_a_strict_http_only_cookie(app: Any, web_settings: Settings) -> None:
    token = local_token(web_settings)
    with TestClient(app, base_url="http://127.0.0.1:8765") as browser:
        opened = browser.get(f"/?token={token}", follow_redirects=False)
        assert opened.status_code == 303
        assert opened.headers["location"] == "/"  # the token leaves the address bar
        cookie = opened.headers["set-cookie"]
        assert cookie.startswith(f"thea_token_8765={token};")
        for attribute in ("HttpOnly", "SameSite=strict", "Path=/"):
            assert attribute.lower() in cookie.lower(), cookie
        assert browser.get(f"{PREFIX}/whoami").json()["user_id"] == web_settings.user_id  # by cookie
    with TestClient(app, base_url="http://127.0.0.1:8765") as guesser:
        wrong = guesser.get("/?token=guessed", follow_redirects=False)
        assert wrong.status_code == 303
        assert "set-cookie" not in wrong.headers
        assert guesser.get(f"{PREFIX}/whoami").status_code == 401


def test_changes_come_only_from_the_served_site_and_only_as_json(app: Any, web_settings: Settings) -> None:
    with TestClient(app, base_url="http://127.0.0.1:8765") as browser:
        browser.get(f"/?token={local_token(web_settings)}")  # the page, holding its cookie
        foreign = [
            {"Origin": "http://evil.example"},
            {"Origin": "http://127.0.0.1:9999"},  # another port on the same host: same-site, not same-origin
            {"Origin": "null"},
            {"Sec-Fetch-Site": "cross-site"},
        ]
        for path in CHANGES:
            for headers in foreign:
                refused = browser.post(path, json={}, headers=headers)
                assert refused.status_code == 403, (path, headers)
                assert "cross-origin" in refused.json()["error"]
            bodiless = browser.post(path)  # what a form or a no-cors fetch can send
            assert bodiless.status_code == 415, path
            form = browser.post(
                path, content=b"a=1", headers={"Content-Type": "application/x-www-form-urlencoded"}
            )
            assert form.status_code == 415, path
        # the page itself: same origin, JSON
        same = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
        assert browser.post(f"{PREFIX}/memory/optimize", json={}, headers=same).status_code == 200


def _exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` and read what the server says until it closes (10 s at most)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        said = b""
        while chunk := sock.recv(65536):
            said += chunk
        return said


def _post_head(port: int, extra: str = "") -> bytes:
    return (
        f"POST {PREFIX}/remember HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}"
        "Content-Type: application/json\r\nContent-Length: 524288\r\n\r\n"
    ).encode()


def test_the_token_is_checked_before_the_body_is_read(runtime: Runtime) -> None:
    # before: the 512 KB body was read (and held) first; a client that never sent it was waited for
    with LiveServer(service_app(runtime)) as live:
        said = _exchange(live.port, _post_head(live.port))  # the headers only: no body follows
    assert said.startswith(b"HTTP/1.1 401"), said[:200]
    assert b"connection: close" in said.lower()


def test_a_stalled_body_is_cut_off_with_408(runtime: Runtime) -> None:
    service = runtime.settings.service.model_copy(update={"body_timeout_s": 0.5})
    settings = runtime.settings.model_copy(update={"service": service})
    with LiveServer(service_app(runtime, settings)) as live:
        auth = f"Authorization: Bearer {local_token(settings)}\r\n"
        said = _exchange(live.port, _post_head(live.port, auth) + b'{"text": "half a body')
    assert said.startswith(b"HTTP/1.1 408"), said[:200]
    assert b"connection: close" in said.lower()
