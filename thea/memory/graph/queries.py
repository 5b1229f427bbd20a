"""Load named Cypher statements from ``cypher/`` and fill enum-only placeholders."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

from thea.errors import UnknownLabelError
from thea.models import EdgeType, NodeType
from thea.resources import resource_dir

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_LABELS = {t.value for t in NodeType} | {"Memory", "ConceptAlias"}


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
    ) -> str:
        """Query text with placeholders filled from closed enums only."""
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
        return text

    def schema_statements(self) -> list[str]:
        text = self.text("schema")
        parts = re.split(r"^\s*;\s*$", text, flags=re.MULTILINE)
        return [p.strip() for p in parts if p.strip() and not p.strip().startswith("//")]
