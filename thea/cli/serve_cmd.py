"""``thea serve``: open the web page (the service serves it on TCP)."""

from __future__ import annotations

import typer

from thea.cli.common import client, console, friendly_errors, get_settings
from thea.client.local import spawn_web_keeper
from thea.local_token import read_local_token
from thea.locations import ServicePaths


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="interface to listen on"),
    port: int = typer.Option(None, "--port", help="TCP port (default: service.port, 8765)"),
) -> None:
    """Serve the web chat (memory page, trace panel, insights, graph view) from the thea service.

    The page talks to the same service, and the same memory, as the terminal. TCP always
    needs a token: open the printed address, which carries this data directory's local
    token (the page keeps it in a cookie). Listening beyond localhost needs a configured
    token (THEA_WEB_TOKEN or THEA_SERVICE__TOKENS__<user>). Until `thea service stop`, the
    service comes back by itself with the web page when it goes away.
    """
    settings = get_settings(ctx)
    api = client(ctx)
    with friendly_errors():
        url = api.listen(host, port or settings.service.port)
        pid = api.health().pid
        if api.connection.local:
            spawn_web_keeper(settings)
    token = read_local_token(ServicePaths.of(settings.data_dir))
    page = f"{url}/?token={token}" if token else url
    console.print(
        f"thea web chat on {page}\n[dim](served by the thea service, pid {pid}, which comes back "
        "by itself if it goes away; `thea service stop` stops it)[/]",
        soft_wrap=True,  # the address stays one line a terminal can open
        highlight=False,
    )
