"""Bad input of round 3 (issue 22, item 8) through the service's API: every case is a 4xx with
a one-line message, never a 500 or 503; control characters are refused and bidi controls
removed on every route that stores text, and NUL is refused the same way everywhere."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from thea.api import PREFIX
from thea.runtime import Runtime

#: what a deeply nested document looks like: deeper than Python's JSON parser goes
DEEP_LIST = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 50_000 + "1" + "}" * 50_000


def one_line_error(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "kind", "detail"}
    assert "\n" not in body["error"]
    assert len(body["error"]) < 300
    return str(body["error"])


def nodes_with(runtime: Runtime, needle: str) -> list[dict[str, Any]]:
    found, after = [], ""
    while page := runtime.memory.admin.memory_page(after, 500):
        found += [p for p in page if needle in str(p.get("content", ""))]
        after = str(page[-1]["id"])
    return found


@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        (DEEP_LIST, "auto", "nested too deeply"),
        (DEEP_OBJECT, "auto", "nested too deeply"),
        ('{"speaker": "u", "text": "hi"}\n' + DEEP_LIST, "jsonl", "line 2: JSON nested too deeply"),
        (json.dumps({"speaker": "u", "text": "hi", "time": 1e20}), "auto", '"time" 1e+20 is not a date'),
        ('{"speaker": "u", "text": "hi", "time": Infinity}', "auto", '"time" inf is not a date'),
        ('{"speaker": "u", "text": "hi", "time": NaN}', "jsonl", '"time" nan is not a date'),
        ('{"speaker": "u", "text": "hi", "time": -1e300}', "auto", "is not a date"),
        ('{"speaker": "u", "text": "hi", "time": ' + "9" * 400 + "}", "auto", "is not a date"),
        ('{"speaker": "u", "text": "hi", "time": ' + "9" * 5000 + "}", "jsonl", "a number too long"),
        ('{"speaker": "u", "text": "hi", "time": "9999-12-31T23:59:59-14:00"}', "auto", "is not a date"),
    ],
    ids=[
        "deep-list",
        "deep-object",
        "deep-jsonl",
        "1e20",
        "Infinity",
        "NaN",
        "-1e300",
        "huge-int",
        "5000-digits",
        "past-9999",
    ],
)
def test_an_import_the_parser_cannot_take_is_a_400_naming_the_problem(
    client: TestClient, text: str, fmt: str, expected: str
) -> None:
    answer = client.post(f"{PREFIX}/import", json={"text": text, "format": fmt, "source": "chat.jsonl"})
    assert expected in one_line_error(answer, 400)


def test_a_deeply_nested_request_body_is_a_4xx(client: TestClient) -> None:
    for path in ("/remember", "/import", "/facts", "/ask"):
        answer = client.post(
            PREFIX + path, content=DEEP_LIST.encode(), headers={"Content-Type": "application/json"}
        )
        assert 400 <= answer.status_code < 500, (path, answer.status_code)


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "Infinity", "1e999"])
def test_a_min_strength_that_is_no_number_is_a_422_not_a_backend_error(
    client: TestClient, value: str
) -> None:
    message = one_line_error(client.get(f"{PREFIX}/insights", params={"min_strength": value}), 422)
    assert "min_strength" in message


CONTROLS = {"NUL": "\x00", "BEL": "\x07", "ESC": "\x1b[31m", "DEL": "\x7f", "C1": "\x9b"}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_control_characters_are_refused_on_every_route_that_stores_text(
    client: TestClient, runtime: Runtime, name: str
) -> None:
    marker = f"ctl{uuid.uuid4().hex[:8]}"
    text = f"My {marker} cat is {CONTROLS[name]} red."
    line = json.dumps({"speaker": "user", "text": text})
    calls = [
        ("/facts", {"text": text}),
        ("/remember", {"text": text}),
        ("/remember", {"text": text, "kind": "fact"}),
        ("/ask", {"text": text}),
        ("/import", {"text": line, "format": "jsonl"}),
    ]
    for path, body in calls:
        message = one_line_error(client.post(PREFIX + path, json=body), 400)
        assert "control character (U+" in message, (path, message)
    chat = client.post(f"{PREFIX}/chat", json={"text": f"!fact {text}"})
    assert "event: error" in chat.text
    assert "control character" in chat.text
    assert nodes_with(runtime, marker) == []  # nothing stored, not even as U+FFFD


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"


def test_bidi_controls_and_carriage_returns_are_removed_on_every_route_that_stores_text(
    client: TestClient, runtime: Runtime
) -> None:
    stored: dict[str, str] = {}
    for route in ("facts", "remember", "remember-fact", "ask", "import", "correct"):
        marker = f"bidi{uuid.uuid4().hex[:8]}"
        text = f"My {marker} file is \u202egnp.exe\u202c and\r\nthe {BIDI}end."
        if route == "facts":
            answer = client.post(f"{PREFIX}/facts", json={"text": text})
        elif route == "remember":
            answer = client.post(f"{PREFIX}/remember", json={"text": text})
        elif route == "remember-fact":
            answer = client.post(f"{PREFIX}/remember", json={"text": text, "kind": "fact"})
        elif route == "ask":
            answer = client.post(f"{PREFIX}/ask", json={"text": text})
        elif route == "import":
            line = json.dumps({"speaker": "user", "text": text})
            answer = client.post(f"{PREFIX}/import", json={"text": line, "format": "jsonl"})
        else:
            made = client.post(f"{PREFIX}/facts", json={"text": "I live in Leeds."}).json()["fact_id"]
            answer = client.patch(f"{PREFIX}/facts/{made}", json={"action": "correct", "text": text})
        assert answer.status_code == 200, (route, answer.text)
        found = nodes_with(runtime, marker)
        assert found, route
        for node in found:
            content = str(node["content"])
            assert not set(content) & set(BIDI + "\r"), (route, content)
            stored[route] = content
    assert any("gnp.exe and" in text for text in stored.values())  # the words are kept
