"""``thea memory ...``: inspect the memory layers."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from thea.cli.common import console, friendly_errors, get_settings
from thea.memory.factory import open_memory

memory_app = typer.Typer(help="Inspect and maintain the memory layers.", no_args_is_help=True)


@memory_app.command("stats")
def stats(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Counts per layer and per type."""
    settings = get_settings(ctx)
    with friendly_errors():
        memory = open_memory(settings)
        try:
            data = memory.stats()
        finally:
            memory.close()
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    table = Table(title="thea memory")
    table.add_column("layer")
    table.add_column("kind")
    table.add_column("count", justify="right")
    for layer, counts in data.items():
        if not counts:
            table.add_row(layer, "(empty)", "0")
        for kind, count in sorted(counts.items()):
            table.add_row(layer, kind, str(count))
    console.print(table)
