"""The ``thea`` command line."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="thea: a cognitive architecture with an inspectable long-term memory.", no_args_is_help=True
)


@app.callback()
def main() -> None:
    """thea command line."""
