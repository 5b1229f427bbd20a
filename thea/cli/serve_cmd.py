"""``thea serve``: open the web page (the service serves it on TCP)."""

from __future__ import annotations

import typer

from thea.cli.common import client, console, friendly_errors, get_settings


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="interface to listen on"),
    port: int = typer.Option(None, "--port", help="TCP port (default: service.port, 8765)"),
) -> None:
    """Serve the web chat (trace panel, insights, graph view) from the thea service.

    The page talks to the same service, and the same memory, as the terminal. Listening
    beyond localhost needs a token (THEA_WEB_TOKEN or THEA_SERVICE__TOKENS__<user>).
    """
    settings = get_settings(ctx)
    api = client(ctx)
    with friendly_errors():
        url = api.listen(host, port or settings.service.port)
        pid = api.health().pid
    console.print(
        f"thea web chat on {url}  [dim](served by the thea service, pid {pid}; "
        "`thea service stop` stops it)[/]"
    )
