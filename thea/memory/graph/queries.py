"""Load named Cypher statements from ``cypher/`` and fill enum-only placeholders."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

from thea.errors import UnknownLabelError
from thea.models import Collection, EdgeType, NodeType
from thea.resources import resource_dir

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def vector_label(collection: Collection) -> str:
    """The label of a collection's vector points when the graph store keeps the vectors
    (``vector.backend = "graph"``): ``VectorExperience``, ``VectorConcepts``, ``VectorInsights``.
    Never a ``Memory`` label, so the graph's own queries and scans do not see the points."""
    return f"Vector{collection.value.capitalize()}"


_LABELS = {t.value for t in NodeType} | {"Memory", "ConceptAlias"} | {vector_label(c) for c in Collection}


class QueryLibrary:
    """Cypher text by name for one backend dialect (``falkordb`` or ``neo4j``)."""

    def __init__(self, dialect: str, root: Path | None = None) -> None:
        self.dialect = dialect
        self.root = root or resource_dir("cypher")

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one library per store, lives as long
    def text(self, name: str) -> str:
        if not _NAME.match(name):
            raise UnknownLabelError(f"invalid query name {name!r}")
        for candidate in (
            self.root / self.dialect / f"{name}.cypher",
            self.root / "queries" / f"{name}.cypher",
        ):
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8")
        raise UnknownLabelError(f"no Cypher query named {name!r} for {self.dialect}")

    def render(
        self,
        name: str,
        *,
        label: NodeType | str | None = None,
        rel: EdgeType | None = None,
        rels: Sequence[EdgeType] | None = None,
        depth: int | None = None,
        dimension: int | None = None,
    ) -> str:
        """Query text with placeholders filled from closed enums and validated integers only."""
        text = self.text(name)
        if "__LABEL__" in text:
            value = label.value if isinstance(label, NodeType) else (label or "Memory")
            if value not in _LABELS:
                raise UnknownLabelError(f"unknown node label {value!r}")
            text = text.replace("__LABEL__", value)
        if "__REL__" in text:
            if not isinstance(rel, EdgeType):
                raise UnknownLabelError(f"unknown edge type {rel!r}")
            text = text.replace("__REL__", rel.value)
        if "__RELS__" in text:
            types = [EdgeType.parse(r.value if isinstance(r, EdgeType) else str(r)) for r in rels or ()]
            text = text.replace("__RELS__", (":" + "|".join(t.value for t in types)) if types else "")
        if "__DEPTH__" in text:
            if not isinstance(depth, int) or not 1 <= depth <= 5:
                raise ValueError("neighbourhood depth must be an integer from 1 to 5")
            text = text.replace("__DEPTH__", str(depth))
        if "__DIMENSION__" in text:
            if not isinstance(dimension, int) or isinstance(dimension, bool) or not 1 <= dimension <= 65_536:
                raise ValueError("a vector dimension must be an integer from 1 to 65536")
            text = text.replace("__DIMENSION__", str(dimension))
        return text

    def schema_statements(
        self, name: str = "schema", *, label: str | None = None, dimension: int | None = None
    ) -> list[str]:
        """The statements of a schema file (separated by lines holding only ``;``), rendered."""
        text = self.render(name, label=label, dimension=dimension)
        # blanks before the ";" only on its own line: a "\s*" there ran from every line start
        # over all the blank lines that follow (quadratic); the blank lines are stripped below
        parts = re.split(r"^[^\S\n]*;\s*$", text, flags=re.MULTILINE)
        statements = (
            "\n".join(ln for ln in p.splitlines() if not ln.lstrip().startswith("//")) for p in parts
        )
        return [s.strip() for s in statements if s.strip()]
