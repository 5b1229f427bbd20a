"""Plain notation for knowledge, parsed without the LLM.

* ``A -> B`` or ``A → B``: A causes B
* ``A::B``: A is a B
* ``a~b~c``: a, b and c are related (every pair)

Only short phrases count as concept names (one to five words), so ordinary prose
with an arrow in it does not flood the graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from thea.models import EdgeType

_NAME = r"[\w][\w .'/+#-]{0,60}?"
_ARROW = re.compile(rf"(?P<a>{_NAME})\s*(?:->|→)\s*(?P<b>{_NAME})(?=$|[,.;:!?\n)]|\s+(?:and|but)\b)")
_ISA = re.compile(rf"(?P<a>{_NAME})\s*::\s*(?P<b>{_NAME})(?=$|[,.;!?\n)])")
_TILDE = re.compile(r"(?P<chain>[\w][\w .'-]{0,40}(?:\s*~\s*[\w][\w .'-]{0,40})+)")
_MAX_WORDS = 5
_SENTENCE = re.compile(r"\n|(?<=[.!?;])\s+")


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: EdgeType
    object: str
    confidence: float = 0.9


def _clean(name: str) -> str | None:
    name = " ".join(name.strip(" .,'").split())
    words = name.split()
    if not words or len(words) > _MAX_WORDS:
        return None
    return name


def _tail(phrase: str) -> str:
    """The last few words before an operator: 'I think Redis -> speed' gives 'Redis'."""
    words = phrase.split()
    return " ".join(words[-2:]) if len(words) > 3 else phrase


def parse_notation(text: str) -> list[Triple]:
    out: list[Triple] = []
    seen: set[tuple[str, str, str]] = set()

    def add(a: str | None, rel: EdgeType, b: str | None) -> None:
        if a and b and a.lower() != b.lower():
            key = (a.lower(), rel.value, b.lower())
            if key not in seen:
                seen.add(key)
                out.append(Triple(a, rel, b))

    for line in _SENTENCE.split(text):
        for m in _ARROW.finditer(line):
            add(_clean(_tail(m["a"])), EdgeType.CAUSES, _clean(m["b"]))
        for m in _ISA.finditer(line):
            add(_clean(_tail(m["a"])), EdgeType.IS_A, _clean(m["b"]))
        for m in _TILDE.finditer(line):
            names = [_clean(p) for p in m["chain"].split("~")]
            for a, b in combinations([n for n in names if n], 2):
                add(a, EdgeType.RELATED_TO, b)
    return out
