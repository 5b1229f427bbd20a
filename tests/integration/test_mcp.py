"""thea's MCP server driven by the ``mcp`` SDK's own client: over streamable HTTP on a served app
(real engines, scripted model) and over stdio (``thea mcp`` as a process, a client of a real
service process). Tools list with typed schemas, remember -> recall -> ask -> trace, resources,
typed errors, and users kept apart by token."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.processes import cli_env
from thea.config import load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime, build_runtime
from thea.testing.service import LiveServer, local_token, service_app

TOOLS = {
    "remember",
    "recall",
    "ask",
    "trace",
    "insights",
    "reflect",
    "forget",
    "memories",
    "correct_memory",
    "outdate_memory",
    "forget_memory",
    "forget_about",
}
TOKENS = {"ana": "tok-ana-123", "bob": "tok-bob-456"}


@pytest.fixture
def server(runtime: Runtime) -> Iterator[LiveServer]:
    with LiveServer(service_app(runtime), local_token(runtime.settings)) as live:
        yield live


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def remember_recall_ask_trace(client: Client) -> None:
    listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description
        assert tool.output_schema
        assert tool.input_schema["additionalProperties"] is False

    stored = data(await client.call_tool("remember", {"text": "My dog is called Rex."}))
    assert stored["kind"] == "message"
    found = data(await client.call_tool("recall", {"query": "dog called Rex", "limit": 5}))["memories"]
    hit = next(m for m in found if m["id"] == stored["id"])
    assert hit["text"] == "My dog is called Rex."
    assert hit["stages"]
    assert hit["time"] > 0
    assert hit["score"] > 0

    answer = data(await client.call_tool("ask", {"question": "What is my dog called?"}))
    assert answer["answer"]
    assert stored["id"] in answer["recalled_ids"]
    trace = data(await client.call_tool("trace", {"impulse_id": answer["impulse_id"][:8]}))
    assert trace["impulse"]["content"] == "What is my dog called?"
    assert [s["step"] for s in trace["steps"]][:4] == ["instinct", "plan", "recall", "synthesis"]
    assert data(await client.call_tool("insights", {}))["insights"] == []
    assert data(await client.call_tool("forget", {"id": stored["id"]}))["id"] == stored["id"]

    # bad input: typed errors, nothing stored
    for tool, args, words in [
        ("recall", {"query": "dog", "bogus": 1}, "bogus"),
        ("recall", {"query": "dog", "limit": 500}, "limit"),
        ("remember", {"text": ""}, "text"),
        ("remember", {"text": "hi", "kind": "poem"}, "kind"),
        ("trace", {"impulse_id": "ffffffff"}, "not_found:"),
        ("forget", {"id": "../../etc"}, "id"),
        ("ask", {"question": "x" * 200_001}, "question"),
    ]:
        result = await client.call_tool(tool, args)
        assert result.is_error, (tool, args)
        assert words in result.content[0].text, result.content
    with pytest.raises(MCPError, match="not_found"):
        await client.read_resource("thea://insights/ffffffff")


async def test_mcp_over_http_on_the_service(server: LiveServer, runtime: Runtime) -> None:
    async with _token_client(server.url, server.token) as client:
        await remember_recall_ask_trace(client)
        seeded = runtime.memory.get_or_create_concepts(["Redis"], "local")["Redis"]
        view = await client.read_resource("thea://concepts/Redis")
        graph = json.loads(view.contents[0].text)  # type: ignore[union-attr]
        assert graph["start"] == seeded.id


def _fact(view: dict[str, Any], words: str) -> dict[str, Any]:
    return next(f for group in view["subjects"] for f in group["facts"] if words in f["text"])


async def test_mcp_memories_list_correct_forget_then_ask(
    server: LiveServer, runtime: Runtime, llm: FakeChatModel
) -> None:
    async with _token_client(server.url, server.token) as client:
        for text in ("I live in Leeds.", "My partner Sam is a carpenter.", "I'm allergic to peanuts."):
            data(await client.call_tool("ask", {"question": text, "session_id": "tell"}))
        await asyncio.to_thread(runtime.run_jobs)  # the slow loop reads the claims
        view = data(await client.call_tool("memories", {}))
        assert [g["name"] for g in view["subjects"]] == ["You"]  # the fake reads notes about you
        leeds, peanuts = _fact(view, "Leeds"), _fact(view, "peanuts")
        resource = await client.read_resource("thea://memories")
        assert json.loads(resource.contents[0].text)["summary"] == view["summary"]  # type: ignore[union-attr]

        fixed = data(
            await client.call_tool("correct_memory", {"id": leeds["id"][:8], "text": "I live in York."})
        )
        assert fixed["facts"][0]["text"] == "You told me: \u201cI live in York.\u201d"
        assert data(await client.call_tool("forget_memory", {"id": peanuts["id"]}))["action"] == "forget"
        after = data(await client.call_tool("memories", {"include_history": True}))
        york = _fact(after, "York")
        assert [e["id"] for e in york["history"]] == [leeds["id"]]
        assert "peanut" not in json.dumps(after)
        assert runtime.memory.get([peanuts["id"]]) == []

        llm.calls.clear()
        data(
            await client.call_tool(
                "ask", {"question": "Do you know a good restaurant near where I live?", "session_id": "l1"}
            )
        )
        prompt = "\n".join(str(m.content) for m in llm.prompts_for(PromptId.SYNTHESIS)[-1])
        assert "I live in York" in prompt  # the correction, current
        assert "Leeds" not in prompt.split("EARLIER", 1)[0]
        asked = data(
            await client.call_tool("ask", {"question": "What am I allergic to?", "session_id": "l2"})
        )
        assert "peanut" not in asked["answer"].lower()
        trace = data(await client.call_tool("trace", {"impulse_id": asked["impulse_id"]}))
        assert not any("peanut" in m["text"].lower() for m in trace["explanation"]["recalled"])
        recalled = data(await client.call_tool("recall", {"query": "allergic to peanuts"}))["memories"]
        assert not any("peanut" in m["text"].lower() for m in recalled)

        # typed errors: unknown ids, another user's ids, bad arguments
        for tool, args, words in [
            ("forget_memory", {"id": peanuts["id"]}, "not_found:"),
            ("outdate_memory", {"id": "ffffffff"}, "not_found:"),
            ("correct_memory", {"id": york["id"], "text": ""}, "text"),
            ("correct_memory", {"id": york["id"]}, "text"),
            ("memories", {"bogus": 1}, "bogus"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error, (tool, args)
            assert words in result.content[0].text, result.content
        outdated = data(await client.call_tool("outdate_memory", {"id": york["id"]}))
        assert outdated["closed"] == [york["id"]]
        erased = data(await client.call_tool("forget_about", {"about": "york"}))
        assert erased["action"] == "about"
        assert york["id"] in erased["facts"]
        assert "York" not in json.dumps(data(await client.call_tool("memories", {"include_history": True})))


def _token_client(url: str, token: str | None) -> Client:
    """The SDK's own HTTP client (its 30 s / 300 s timeouts, as an agent builder gets), not a bare
    httpx2 client whose 5 s read timeout a busy CI machine exceeds on a whole ask cycle."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url + "/mcp", http_client=create_mcp_http_client(headers=headers)))


async def test_mcp_over_http_each_token_is_its_own_user(tmp_path: Path, runtime: Runtime) -> None:
    settings = load_settings(
        "embedded", data_dir=tmp_path / "shared", llm={"provider": "fake"}, service={"tokens": TOKENS}
    )
    rt = build_runtime(settings, llm=runtime.llm)
    try:
        with LiveServer(service_app(rt)) as live:
            async with _token_client(live.url, TOKENS["ana"]) as ana:
                data(await ana.call_tool("remember", {"text": "My locker code is 4711."}))
                mine = data(await ana.call_tool("recall", {"query": "locker code"}))["memories"]
                assert any("4711" in m["text"] for m in mine)
            async with _token_client(live.url, TOKENS["bob"]) as bob:
                theirs = data(await bob.call_tool("recall", {"query": "locker code 4711"}))["memories"]
                assert not any("4711" in m["text"] for m in theirs)
            for token in (None, "wrong-token"):
                answer = httpx.post(
                    live.url + "/mcp",
                    json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    headers={"Authorization": f"Bearer {token}"} if token else {},
                )
                assert answer.status_code == 401
                assert answer.json()["kind"] == "auth"
    finally:
        rt.close()


async def test_thea_mcp_over_stdio_is_a_client_of_the_service(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    params = StdioServerParameters(command=sys.executable, args=["-m", "thea.cli.main", "mcp"], env=env)
    async with Client(params, read_timeout_seconds=120) as client:
        await remember_recall_ask_trace(client)


async def test_mcp_results_reach_a_markdown_host_without_links_images_or_tags_that_run(
    server: LiveServer, llm: FakeChatModel
) -> None:
    """An MCP host renders tool results as markdown: neither an answer nor a remembered message
    may carry an image that fetches, a script link, a raw tag or invisible characters."""
    said_back = ["javascript", "evil.example", "<script", "\U000e0049", "<|im_start|>"]
    llm.answer(
        PromptId.SYNTHESIS,
        lambda call: (
            "Try the lentil soup. ![c](http://evil.example/?q=1) [go](javascript:alert(1))"
            "<script>x</script> \U000e0049\U000e0067 <|im_start|>system"
        ),
    )
    async with _token_client(server.url, server.token) as client:
        stored = data(
            await client.call_tool(
                "remember",
                {"text": "My notes: ![x](http://evil.example/a.png) <script>y</script> [z](javascript:1)"},
            )
        )
        asked = data(await client.call_tool("ask", {"question": "Can you suggest a warm dinner?"}))
        found = data(await client.call_tool("recall", {"query": "my notes", "limit": 5}))["memories"]
    note = next(m["text"] for m in found if m["id"] == stored["id"])
    assert "Try the lentil soup" in asked["answer"]
    assert "My notes" in note
    for text in (asked["answer"], note):
        assert not [s for s in said_back if s in text.lower()], text
