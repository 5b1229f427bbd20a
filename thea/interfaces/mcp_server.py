"""thea as an MCP server (the official ``mcp`` SDK): tools and resources over the service's API.

Every tool is a call of :class:`thea.AsyncClient`, so the service's rules hold unchanged
(users, limits, errors). ``clients`` gives the client for the request at hand: over stdio one
client of the local service (the local user, or ``THEA_URL``/``THEA_TOKEN``); mounted on the
service (streamable HTTP, ``/mcp``) a client that calls the service in-process with the MCP
request's own credentials, so a token's user is the tools' user.

Errors are typed: a :class:`~thea.errors.TheaError` becomes a tool error (``isError``) or a
resource error whose first word is its kind (``input:``, ``not_found:``, ``auth:``, ...).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Annotated, Any, Literal, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, Field

from thea.api import models as m
from thea.client import AsyncClient
from thea.client.errors import AccessDenied
from thea.config import Settings
from thea.errors import InputError, NotFoundError, TheaError
from thea.text import for_markdown

R = TypeVar("R")

#: the client for one MCP request (entered per call)
ClientFactory = Callable[[Context], AbstractAsyncContextManager[AsyncClient]]

INSTRUCTIONS = (
    "thea is a long-term memory with a cognitive cycle. Use `recall` to look things up in the "
    "user's memory, `remember` to store a message or a fact, `ask` to have thea answer from its "
    "memory (returns the impulse id), `trace` to see how an answer was reached, `insights` for "
    "what thea has learnt, `reflect` to merge insights, `forget` to archive a memory; `memories` for "
    "what thea knows about the user (facts by subject), `correct_memory`, `outdate_memory` and "
    "`forget_memory` to fix one fact."
)

#: what each tool and resource does (the descriptions MCP clients show their model)
TOOLS = {
    "remember": (
        "Store a message (verbatim, recallable at once) or a fact (its confidence checked against "
        "what thea knows) in the user's memory. No answer is composed."
    ),
    "recall": (
        "Search the user's memory (no model call): memories with id, type, text, score, the recall "
        "stages that found them and when they happened."
    ),
    "ask": (
        "Run one full cognitive cycle (instinct, plan, recall, synthesis): thea answers from its "
        "memory. Returns the answer and the impulse id for `trace`."
    ),
    "trace": (
        "One cycle's thought process: each step's Task and Report (status, duration, output), by "
        "impulse id or prefix, or 'last'."
    ),
    "insights": (
        "What thea has learnt (insights), strongest first, filtered by concept, state and strength;"
        " with `id`, that insight with its lineage."
    ),
    "reflect": (
        "Merge the user's insights about the same concepts (may take a while: waits up to `wait_s`,"
        " then reports the job as queued)."
    ),
    "forget": (
        "Archive a memory (insight, fact, message) by id or prefix; it stays in history but is no "
        "longer recalled."
    ),
    "memories": (
        "What thea knows about the user: the current facts of record grouped by subject (the user, "
        "then each person, pet, place or thing), each with its id, since when it holds, the message it "
        "came from and its earlier values; a short summary made from current facts on top."
    ),
    "correct_memory": (
        "Correct one fact (id or prefix from `memories`): what is true instead, as the user says it "
        "('I live in York.'). The correction replaces the fact; the old value stays in history."
    ),
    "outdate_memory": (
        "Mark one fact (id or prefix) outdated: it no longer holds and nothing replaces it (kept in history)."
    ),
    "forget_memory": (
        "Delete one fact (id or prefix) for good: gone from answers, recall, insights and the graph; "
        "the log keeps only that a deletion happened."
    ),
    "forget_about": (
        "Forget everything about a subject for good (a person, pet, place or thing, or any words): "
        "every fact naming it, and its words in messages, answers, traces, insights and files."
    ),
    "memories_resource": "What thea knows about the user (facts by subject, with a summary).",
    "insight_resource": ("One insight of the user with its lineage (merged from/into, sources)."),
    "concept_resource": ("A concept of the user's memory and its neighbourhood (nodes, edges)."),
}
JSON = "application/json"

Text = Annotated[str, Field(min_length=1, max_length=m.MAX_TEXT_CHARS)]
Id = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")]


class InsightsResult(BaseModel):
    """Insights, strongest first; with ``id``: that insight with its lineage in ``detail``."""

    insights: list[m.InsightSummary] = Field(default_factory=list)
    detail: m.InsightDetailView | None = None


def _kind(exc: TheaError) -> str:
    if isinstance(exc, NotFoundError):
        return "not_found"
    if isinstance(exc, InputError):
        return "input"
    if isinstance(exc, AccessDenied):
        return "auth"
    return "failed"


def shown(value: R) -> R:
    """``value`` with every text in it made safe for a host that renders markdown
    (:func:`~thea.text.for_markdown`: no invisible characters or template tokens, no image, no
    script link, no raw HTML tag), in place; ids, numbers and dates are unchanged by it."""
    if isinstance(value, str):
        return cast(R, for_markdown(value))
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            current = getattr(value, name)
            cleaned = shown(current)
            if cleaned is not current and cleaned != current:
                object.__setattr__(value, name, cleaned)
        return value
    if isinstance(value, list):
        return cast(R, [shown(item) for item in value])
    if isinstance(value, dict):
        return cast(R, {key: shown(item) for key, item in value.items()})
    return value


class _Tools:
    """The tool bodies; each runs one call through the request's client."""

    def __init__(self, clients: ClientFactory) -> None:
        self.clients = clients

    async def call(self, ctx: Context, fn: Callable[[AsyncClient], Awaitable[R]]) -> R:
        try:
            async with self.clients(ctx) as client:
                return shown(await fn(client))
        except TheaError as exc:
            raise ToolError(f"{_kind(exc)}: {exc}") from None

    async def read(self, ctx: Context, fn: Callable[[AsyncClient], Awaitable[R]]) -> R:
        try:
            async with self.clients(ctx) as client:
                return shown(await fn(client))
        except NotFoundError as exc:
            raise ResourceNotFoundError(f"not_found: {exc}") from None
        except TheaError as exc:
            raise ResourceError(f"{_kind(exc)}: {exc}") from None


def strict_tool(fn: Callable[..., Any]) -> Tool:
    """A tool whose arguments are checked strictly: an unknown argument is an error (a caller's
    typo must not be dropped silently), announced in its schema too."""
    tool = Tool.from_function(fn, description=TOOLS[fn.__name__])
    tool.fn_metadata.arg_model.model_config["extra"] = "forbid"
    tool.fn_metadata.arg_model.model_rebuild(force=True)
    tool.parameters["additionalProperties"] = False
    return tool


def build_mcp_server(clients: ClientFactory, version: str = "") -> MCPServer:
    tools = _Tools(clients)
    server = MCPServer(
        name="thea",
        instructions=INSTRUCTIONS,
        version=version,
        log_level="WARNING",
        tools=[strict_tool(fn) for fn in (*_memory_tools(tools), *_fact_tools(tools))],
    )
    _add_resources(server, tools)
    return server


def _memory_tools(tools: _Tools) -> tuple[Callable[..., Any], ...]:
    """The tools over the whole memory: remember, recall, ask, trace, insights, reflect, forget."""

    async def remember(
        text: Annotated[Text, Field(description="what to remember, in the user's words")],
        ctx: Context,
        kind: Annotated[Literal["message", "fact"], Field(description="message or fact")] = "message",
    ) -> m.Remembered:
        return await tools.call(ctx, lambda c: c.remember(text, kind))

    async def recall(
        query: Annotated[str, Field(min_length=1, max_length=m.MAX_QUERY_CHARS, description="what to find")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=50, description="most memories to return")] = 8,
    ) -> m.RecallView:
        return m.RecallView(memories=await tools.call(ctx, lambda c: c.recall(query, limit)))

    async def ask(
        question: Annotated[Text, Field(description="the user's message")],
        ctx: Context,
        session_id: Annotated[Id | None, Field(description="conversation id; new when omitted")] = None,
    ) -> m.AskResult:
        return await tools.call(ctx, lambda c: c.ask(question, session_id))

    async def trace(
        ctx: Context,
        impulse_id: Annotated[
            str, Field(min_length=1, max_length=128, description="id, prefix or 'last'")
        ] = "last",
    ) -> m.TraceView:
        return await tools.call(ctx, lambda c: c.trace(impulse_id))

    async def insights(
        ctx: Context,
        id: Annotated[Id | None, Field(description="show this insight (id or prefix)")] = None,
        concept: Annotated[str | None, Field(max_length=200, description="only about this concept")] = None,
        state: Literal["active", "archived", "all"] = "active",
        min_strength: Annotated[float, Field(ge=0)] = 0.0,
        limit: Annotated[int, Field(ge=1, le=1000)] = 50,
    ) -> InsightsResult:
        if id is not None:
            return InsightsResult(detail=await tools.call(ctx, lambda c: c.insight(id)))
        found = await tools.call(ctx, lambda c: c.insights(state, concept, min_strength, limit))
        return InsightsResult(insights=found)

    async def reflect(
        ctx: Context, wait_s: Annotated[float, Field(ge=0, le=3600)] = 60.0
    ) -> m.ReflectionResult:
        return await tools.call(ctx, lambda c: c.reflect(wait_s))

    async def forget(
        id: Annotated[Id, Field(description="the memory's id or prefix")], ctx: Context
    ) -> m.ForgetResult:
        return await tools.call(ctx, lambda c: c.forget(id))

    return remember, recall, ask, trace, insights, reflect, forget


def _fact_tools(tools: _Tools) -> tuple[Callable[..., Any], ...]:
    """The tools over the facts of record: list, correct, outdate, forget one or all about a subject."""

    async def memories(
        ctx: Context,
        include_history: Annotated[bool, Field(description="each fact's earlier values")] = True,
    ) -> m.FactsOfRecordView:
        return await tools.call(ctx, lambda c: c.memories(include_history))

    async def correct_memory(
        id: Annotated[Id, Field(description="the fact's id or prefix")],
        text: Annotated[
            str,
            Field(min_length=1, max_length=m.MAX_FACT_TEXT_CHARS, description="what is true instead"),
        ],
        ctx: Context,
    ) -> m.FactEditResult:
        return await tools.call(ctx, lambda c: c.correct_memory(id, text))

    async def outdate_memory(
        id: Annotated[Id, Field(description="the fact's id or prefix")], ctx: Context
    ) -> m.FactEditResult:
        return await tools.call(ctx, lambda c: c.outdate_memory(id))

    async def forget_memory(
        id: Annotated[Id, Field(description="the fact's id or prefix")], ctx: Context
    ) -> m.FactEditResult:
        return await tools.call(ctx, lambda c: c.forget_memory(id))

    async def forget_about(
        about: Annotated[str, Field(min_length=1, max_length=200, description="a name or words")],
        ctx: Context,
    ) -> m.ErasureResult:
        return await tools.call(ctx, lambda c: c.forget_about(about))

    return memories, correct_memory, outdate_memory, forget_memory, forget_about


def _add_resources(server: MCPServer, tools: _Tools) -> None:
    """The resources: the facts of record, an insight, a concept's neighbourhood."""

    # a template (an optional query), not a static resource: only templates get the request's
    # context, which names the client (and so the user) to read with
    @server.resource("thea://memories{?history}", mime_type=JSON, description=TOOLS["memories_resource"])
    async def memories_resource(ctx: Context, history: str = "true") -> str:
        view = await tools.read(ctx, lambda c: c.memories(include_history=history != "false"))
        return str(view.model_dump_json())

    @server.resource("thea://insights/{insight_id}", mime_type=JSON, description=TOOLS["insight_resource"])
    async def insight_resource(insight_id: str, ctx: Context) -> str:
        detail = await tools.read(ctx, lambda c: c.insight(insight_id))
        return str(detail.model_dump_json())

    @server.resource("thea://concepts/{name}", mime_type=JSON, description=TOOLS["concept_resource"])
    async def concept_resource(name: str, ctx: Context) -> str:
        view = await tools.read(ctx, lambda c: c.graph(concept=name))
        return str(view.model_dump_json())


def shared_client(client: AsyncClient) -> ClientFactory:
    """Every request through one client (stdio: one local user)."""

    @asynccontextmanager
    async def factory(ctx: Context) -> AsyncIterator[AsyncClient]:
        yield client

    return factory


async def serve_stdio(settings: Settings | None = None, user: str | None = None, version: str = "") -> None:
    """``thea mcp``: an MCP server on stdin/stdout, a client of the data directory's service
    (started on the first call when none runs) or of ``THEA_URL``."""
    client = AsyncClient(settings=settings, user=user)
    try:
        await build_mcp_server(shared_client(client), version).run_stdio_async()
    finally:
        await client.aclose()
