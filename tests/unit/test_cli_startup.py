"""Every ``thea`` command is a client: it starts fast because it imports no engine, model, web
framework or MCP SDK (those live in the service, or load when their own command runs)."""

from __future__ import annotations

import subprocess
import sys

#: what only the service, or one command, needs (the MCP SDK alone took 0.8 s of a 1.3 s start)
HEAVY = ("mcp", "fastapi", "uvicorn", "llama_cpp", "qdrant_client", "qdrant_edge", "neo4j", "falkordb", "rq")


def test_the_command_line_imports_nothing_heavy() -> None:
    probe = "import sys, thea.cli.main; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
