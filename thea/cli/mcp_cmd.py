"""``thea mcp``: thea's memory for desktop agents and IDEs, an MCP server over stdio.

The MCP SDK is imported when the command runs, not with the command line: it takes longer to
import than everything else every ``thea`` command needs (0.8 s of 1.3 s measured)."""

from __future__ import annotations

import anyio
import typer

from thea.cli.common import friendly_errors, get_settings


def mcp(
    ctx: typer.Context,
    user: str = typer.Option(None, "--user", help="whose memory (default: the local user)"),
) -> None:
    """Serve thea's memory over MCP on stdin/stdout (tools: remember, recall, ask, trace,
    insights, reflect, forget). Point an MCP client's command at `thea mcp`; the service of the
    data directory is started on the first call when none runs (or set THEA_URL and THEA_TOKEN).
    Over HTTP the same tools are at /mcp on the service."""
    from thea.interfaces.mcp_server import serve_stdio

    settings = get_settings(ctx)
    with friendly_errors():
        anyio.run(serve_stdio, settings, user)
