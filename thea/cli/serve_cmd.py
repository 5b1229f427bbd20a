"""``thea serve``: the web chat."""

from __future__ import annotations

import typer

from thea.cli.common import console, friendly_errors, get_settings
from thea.runtime import build_runtime


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="interface to listen on"),
    port: int = typer.Option(8000, "--port"),
    worker: bool = typer.Option(
        True, "--worker/--no-worker", help="run the reflection worker in this process"
    ),
) -> None:
    """Serve the web chat (trace panel, insights, graph view)."""
    import uvicorn

    from thea.web.app import create_app

    settings = get_settings(ctx)
    if host not in ("127.0.0.1", "localhost", "::1") and settings.web_token is None:
        console.print(
            "[yellow]warning: no THEA_WEB_TOKEN set and listening beyond localhost: anyone can chat[/]"
        )
    with friendly_errors():
        runtime = build_runtime(settings)
    if worker:
        runtime.start_background_worker()
    app = create_app(runtime, own_runtime=True, bind_host=host)
    console.print(f"thea web chat on http://{host}:{port}")
    uvicorn.run(app, host=host, port=port, log_level="warning")
