"""An OpenAI-compatible endpoint is sent each structured call's JSON schema (``llm.json_schema``):
a small model behind llama.cpp's server, answering a one-word choice as the bare word, had its
reading of "We moved to York last month." sorted as a passing moment and never kept
(tests/slow/test_remote_model.py reads through the real server). Here a loopback endpoint that,
like that model, answers in the schema only when it is given one; it records every request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from services.common.llm_calls import ask_structured
from services.prompts import sort_claims as sorting
from thea.config import load_settings
from thea.errors import MalformedOutput
from thea.llm.factory import build_chat_model, build_claims_model
from thea.llm.guard import block_network_llms, unblock_network_llms


class _Endpoint(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        schema = (body.get("response_format") or {}).get("json_schema")
        said = json.dumps({"kind": "identity"}) if schema else "identity"
        reply = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": said}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    unblock_network_llms()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        block_network_llms()
        server.shutdown()
        server.server_close()


def _note() -> list[Any]:
    note = sorting.note_text("user", "self", True, "home", "York", "new")
    return sorting.build("We moved to York last month.", note)


@pytest.mark.parametrize("temperature", [0.0, 0.2])
async def test_structured_calls_send_their_schema_and_read_the_answer(
    endpoint: str, tmp_path: Path, temperature: float
) -> None:
    llm = {"provider": "openai", "base_url": endpoint, "model": "m", "temperature": temperature}
    settings = load_settings("embedded", data_dir=tmp_path / "data", llm=llm)
    reader = build_claims_model(settings) or build_chat_model(settings)  # the slow loop's reader
    out, _usage = await ask_structured(reader, sorting.SortOutput, _note(), sorting.PROMPT, timeout_s=30)
    assert out.kind is sorting.ClaimSort.IDENTITY  # the home is kept as who the user is
    assert len(_Endpoint.requests) == 1  # no corrective retry
    sent = _Endpoint.requests[0]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["schema"] == sorting.SortOutput.model_json_schema()


async def test_an_endpoint_that_rejects_schemas_can_be_sent_none(endpoint: str, tmp_path: Path) -> None:
    llm = {"provider": "openai", "base_url": endpoint, "model": "m", "temperature": 0.0, "json_schema": False}
    settings = load_settings("embedded", data_dir=tmp_path / "data", llm=llm)
    with pytest.raises(MalformedOutput):  # this endpoint's bare word is no JSON, asked twice
        await ask_structured(
            build_chat_model(settings), sorting.SortOutput, _note(), sorting.PROMPT, timeout_s=30
        )
    assert len(_Endpoint.requests) == 2
    assert all("response_format" not in r for r in _Endpoint.requests)
