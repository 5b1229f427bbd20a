"""Plain notation for knowledge, parsed without the LLM.

* ``A -> B`` or ``A → B``: A causes B
* ``A::B``: A is a B
* ``a~b~c``: a, b and c are related (every pair of the chain's first
  ``MAX_CHAIN_NAMES`` names)

Only short phrases count as concept names (one to five words, at most
``MAX_CONCEPT_CHARS`` characters), so ordinary prose with an arrow in it does not
flood the graph. One text asserts at most ``MAX_NOTATION_TRIPLES`` relations:
parsing stops there, and lines without an operator are skipped unread, so the
cost is linear in the text's length whatever its shape (services/common/limits.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

from services.common.limits import MAX_CHAIN_NAMES, MAX_CONCEPT_CHARS, MAX_NOTATION_TRIPLES
from thea.models import EdgeType, normalize_name

# Every repetition is bounded (names of at most 61 characters, at most 3 blanks around an
# operator): an unbounded ``\s*`` let a line of spaces make the regex backtrack quadratically.
_NAME = r"[\w][\w .'/+#-]{0,60}?"
_GAP = r"[ \t]{0,3}"
# Each pattern starts with a look for its operator within reach (a name, a gap, the operator),
# taken possessively: a text without one is passed over in a tight scan instead of trying a name
# of up to 61 characters from every letter (34 ms for 20,000 letters, now 8).
_ARROW = re.compile(
    rf"(?=[^>→]{{0,65}}+[>→])"
    rf"(?P<a>{_NAME}){_GAP}(?:->|→){_GAP}(?P<b>{_NAME})(?=$|[,.;:!?\n)]|[ \t]{{1,3}}(?:and|but)\b)"
)
_ISA = re.compile(rf"(?=[^:]{{0,64}}+:)(?P<a>{_NAME}){_GAP}::{_GAP}(?P<b>{_NAME})(?=$|[,.;!?\n)])")
_ARROW_OP, _ISA_OP, _TILDE_OP = re.compile("->|→"), re.compile("::"), re.compile("~")
_TILDE = re.compile(
    rf"(?=[^~]{{0,44}}+~)(?P<chain>[\w][\w .'-]{{0,40}}(?:{_GAP}~{_GAP}[\w][\w .'-]{{0,40}})+)"
)
_MAX_WORDS = 5
_SENTENCE = re.compile(r"\n|(?<=[.!?;])\s+")
_OPERATORS = ("->", "→", "::", "~")
#: A match holds its operator with at most this many characters before it (a name, a gap) and after it.
_REACH = 70


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: EdgeType
    object: str
    confidence: float = 0.9


def _clean(name: str) -> str | None:
    name = " ".join(name.strip(" .,'").split())
    words = name.split()
    if not words or len(words) > _MAX_WORDS or len(name) > MAX_CONCEPT_CHARS:
        return None
    return name


def _tail(phrase: str) -> str:
    """The last few words before an operator: 'I think Redis -> speed' gives 'Redis'."""
    words = phrase.split()
    return " ".join(words[-2:]) if len(words) > 3 else phrase


def _around(pattern: re.Pattern[str], operator: re.Pattern[str], line: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(line)``, scanning only the text within ``_REACH`` characters of an
    operator (every match holds one): prose far from any operator is never tried character by
    character. Operators closer than two reaches share one window, so no text is scanned twice
    and a ``~`` chain stays whole."""
    windows: list[list[int]] = []
    for op in operator.finditer(line):
        start, end = max(0, op.start() - _REACH), min(len(line), op.end() + _REACH)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = end
        else:
            windows.append([start, end])
    for start, end in windows:
        yield from pattern.finditer(line, start, end)


def _lines(text: str) -> Iterable[str]:
    """Lines (and sentences) that hold an operator; the others are never scanned by a regex."""
    for line in text.split("\n"):
        if any(op in line for op in _OPERATORS):
            yield from _SENTENCE.split(line)


def parse_notation(text: str, limit: int = MAX_NOTATION_TRIPLES) -> list[Triple]:
    """The relations a text asserts in plain notation, in order, at most ``limit``."""
    out: list[Triple] = []
    seen: set[tuple[str, str, str]] = set()
    if limit <= 0:
        return out
    for line in _lines(text):
        for a, rel, b in _asserted(line):
            if a and b and a.lower() != b.lower():
                key = (a.lower(), rel.value, b.lower())
                if key not in seen:
                    seen.add(key)
                    out.append(Triple(a, rel, b))
                    if len(out) >= limit:
                        return out
    return out


def _asserted(line: str) -> Iterator[tuple[str | None, EdgeType, str | None]]:
    """Every (subject, relation, object) a line's notation names, in order: arrows, then
    ``::``, then each pair of a ``~`` chain (ends not yet checked)."""
    for m in _around(_ARROW, _ARROW_OP, line):
        yield _clean(_tail(m["a"])), EdgeType.CAUSES, _clean(m["b"])
    for m in _around(_ISA, _ISA_OP, line):
        yield _clean(_tail(m["a"])), EdgeType.IS_A, _clean(m["b"])
    for m in _around(_TILDE, _TILDE_OP, line):
        for a, b in combinations(_chain_names(m["chain"]), 2):
            yield a, EdgeType.RELATED_TO, b


def _chain_names(chain: str) -> list[str]:
    """The distinct names of a ``a~b~c`` chain, at most ``MAX_CHAIN_NAMES``."""
    names: list[str] = []
    for part in chain.split("~", MAX_CHAIN_NAMES * 4):
        name = _clean(part)
        if name and name not in names:
            names.append(name)
        if len(names) == MAX_CHAIN_NAMES:
            break
    return names


def within_concepts(triples: Iterable[Triple], max_concepts: int) -> list[Triple]:
    """The triples whose two ends are among the first ``max_concepts`` distinct names
    (in order of appearance): caps the concepts a text can create."""
    kept: list[Triple] = []
    names: set[str] = set()
    for t in triples:
        ends = {normalize_name(t.subject), normalize_name(t.object)}
        if len(names | ends) <= max_concepts:
            names |= ends
            kept.append(t)
    return kept
