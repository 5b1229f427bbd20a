"""``thea mcp``: thea's memory for desktop agents and IDEs, an MCP server over stdio."""

from __future__ import annotations

import anyio
import typer

from thea.cli.common import friendly_errors, get_settings
from thea.interfaces.mcp_server import serve_stdio


def mcp(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help="whose memory (default: the local user)"),
) -> None:
    """Serve thea's memory over MCP on stdin/stdout (tools: remember, recall, ask, trace,
    insights, reflect, forget). Point an MCP client's command at `thea mcp`; the service of the
    data directory is started on the first call when none runs (or set THEA_URL and THEA_TOKEN).
    Over HTTP the same tools are at /mcp on the service."""
    settings = get_settings(ctx)
    with friendly_errors():
        anyio.run(serve_stdio, settings, user)
