"""Every query as the Neo4j adapter sends it passes Neo4j's own Cypher linter.

No Neo4j server can run here; Neo4j's language-support package (npm) is the next best
check of the Neo4j dialect. `.ci/run` installs it; without node or the package the test
is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.processes import ROOT
from thea.memory.graph.queries import QueryLibrary, vector_label
from thea.models import Collection, EdgeType, NodeType

LINT_DIR = Path(os.environ.get("THEA_CYPHER_LINT_DIR", Path.home() / ".cache" / "thea-cypher-lint"))
SCRIPT = ROOT / "tests" / "tools" / "lint_cypher.js"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (LINT_DIR / "node_modules" / "@neo4j-cypher").exists(),
    reason=f"node or @neo4j-cypher/language-support missing (npm install --prefix {LINT_DIR} ...)",
)


def lint(files: list[Path]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NODE_PATH": str(LINT_DIR / "node_modules")}
    return subprocess.run(["node", str(SCRIPT), *map(str, files)], capture_output=True, text=True, env=env)


def test_every_query_and_schema_statement_is_valid_neo4j_cypher(tmp_path: Path) -> None:
    library = QueryLibrary("neo4j")
    names = sorted({p.stem for p in (ROOT / "cypher").rglob("*.cypher") if p.parent.name != "falkordb"})
    names.remove("schema")
    names.remove("vector_schema")
    files = []
    for name in names:
        text = library.render(
            name, label=NodeType.TASK, rel=EdgeType.CAUSES, rels=[EdgeType.CAUSES], depth=2, dimension=384
        )
        files.append(tmp_path / f"{name}.cypher")
        files[-1].write_text(text)
    vector_schema = library.schema_statements("vector_schema", label=LABEL, dimension=384)
    schema = [*library.schema_statements(), *vector_schema]
    for i, statement in enumerate(schema):
        files.append(tmp_path / f"schema_{i}.cypher")
        files[-1].write_text(statement)
    done = lint(files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(files) > 30


LABEL = vector_label(Collection.EXPERIENCE)


def test_the_graph_vector_index_queries_are_neo4j_5_vector_index_cypher(tmp_path: Path) -> None:
    """vector.backend = "graph" on Neo4j: the index is created with Neo4j 5's indexConfig and
    searched with db.index.vector.queryNodes by its name, and every statement lints clean."""
    library = QueryLibrary("neo4j")
    schema = library.schema_statements("vector_schema", label=LABEL, dimension=384)
    assert (
        "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
        in schema[0]
    )
    search = library.render("vector_search", label=LABEL)
    assert f"db.index.vector.queryNodes('{LABEL}', $k, $vector)" in search
    names = sorted({p.stem for p in (ROOT / "cypher").rglob("vector_*.cypher")} - {"vector_schema"})
    files = []
    for i, text in enumerate([*schema, *(library.render(n, label=LABEL) for n in names)]):
        assert "__" not in text.replace(LABEL, "")  # every placeholder filled
        files.append(tmp_path / f"vector_{i}.cypher")
        files[-1].write_text(text)
    done = lint(files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_does_catch_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cypher"
    bad.write_text("MATCH (n:Memory) WITH n RETURN m")
    done = lint([bad])
    assert done.returncode == 1
    assert "not defined" in done.stdout
