"""The ``thea`` command line: every command is a client of the thea service."""

from __future__ import annotations

import typer

from thea.cli import chat_cmd, doctor, export_cmd, import_cmd, jobs_cmd, mcp_cmd, serve_cmd, trace_cmd
from thea.cli.common import configure_logging
from thea.cli.insights_cmd import insights_app
from thea.cli.jobs_cmd import jobs_app
from thea.cli.memories_cmd import memories_app
from thea.cli.memory_cmd import memory_app
from thea.cli.service_cmd import service_app

app = typer.Typer(
    help="thea: a cognitive architecture with an inspectable long-term memory.",
    no_args_is_help=True,
)
app.add_typer(memory_app, name="memory")
app.add_typer(service_app, name="service")
app.command("chat")(chat_cmd.chat)
app.command("ask")(chat_cmd.ask)
app.command("trace")(trace_cmd.trace)
app.command("serve")(serve_cmd.serve)
app.command("export")(export_cmd.export)
app.command("import")(import_cmd.import_history_file)
app.add_typer(insights_app, name="insights")
app.add_typer(memories_app, name="memories")
app.add_typer(jobs_app, name="jobs")
app.command("worker")(jobs_cmd.worker)
app.command("reflect")(jobs_cmd.reflect)
app.command("doctor")(doctor.doctor)
app.command("mcp")(mcp_cmd.mcp)


@app.callback()
def main(
    ctx: typer.Context,
    profile: str = typer.Option(None, "--profile", "-p", help="embedded (default) or server"),
    log_level: str = typer.Option("WARNING", "--log-level", help="DEBUG, INFO, WARNING, ERROR"),
) -> None:
    """thea command line."""
    configure_logging(log_level)
    ctx.ensure_object(dict)["profile"] = profile


if __name__ == "__main__":
    app()
