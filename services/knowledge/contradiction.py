"""Does a later statement contradict an insight? Deterministic checks, no model.

Two kinds of contradiction are found:

* **an attribute with another value**: the same subject and attribute, a different value:
  "My name is Anna Kowalski." against "The user's name is Priya Ramanathan." (possessive
  forms: "my X is", "the user's X is", "Priya's X is"; the user's first person is read as
  "the user" through :func:`services.common.restate.restate_sentence`). A value that contains the
  other ("blue" / "blue and green") is no contradiction.
* **opposite polarity on the same topic**: :func:`heuristic_verdict`, which ``!fact`` uses
  without a model (one says "not"/"never", the other does not, and they are close in meaning).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.common.restate import restate_sentence
from services.common.statements import sentences
from thea.words import NEGATION

#: a replaced value named beside the new one ("we live in Munich, not Berlin anymore", "no longer
#: in Leeds", "instead of tea"): bounded, so it stays linear on any input
REPLACED_VALUE = re.compile(
    r"\bnot\s+[^,.;]{1,60}?\s+any\s?more\b|\bno\s+longer\b|\binstead\s+of\b|\brather\s+than\b"
    r"|,\s{0,3}not\s+[^,.;]{1,60}$",
    re.IGNORECASE,
)
_ATTRIBUTE = re.compile(
    r"\b(?P<owner>(?i:the user's|my)|[A-Z][\w-]*(?: [A-Z][\w-]*)?'s) "
    r"(?P<attr>[a-z][a-z-]*(?: [a-z][a-z-]*)?) "
    r"(?:is|was|are|were) (?:called |named )?(?P<value>[^.,;!?]+)",
)
_ARTICLES = frozenset({"a", "an", "the", "called", "named"})
#: the characters of a statement read for "not" (its first ones), its blanks collapsed:
#: REPLACED_VALUE backtracks over a run of blanks (0.5 s for 3,000 spaces, 23 s for 20,000) and
#: is quadratic in repeated "and not" (12 ms at this length); a claim or a sentence is far shorter
NEGATION_READ = 2_000


def _negated(text: str) -> bool:
    """The statement says "not": a replaced value named beside the new one ("we live in Munich,
    not Berlin anymore") does not make the statement itself negative."""
    said = " ".join(text[:NEGATION_READ].split())
    return bool(NEGATION.search(REPLACED_VALUE.sub("", said)))


def heuristic_verdict(claim: str, other: str, similarity: float) -> str:
    """Without a model: opposite polarity on a close topic contradicts, near-equal agrees."""
    if similarity >= 0.7 and _negated(claim) != _negated(other):
        return "contradicts"
    return "agrees" if similarity >= 0.85 else "unrelated"


@dataclass(frozen=True)
class AttributeValue:
    subject: str
    attribute: str
    value: str


def _clean_value(value: str) -> str:
    words = [w for w in value.lower().split() if w not in _ARTICLES]
    # "Priya Ramanathan and the user works ...": the value ends where a new clause starts
    for stop in ("and", "but", "who", "which", "because", "since", "so"):
        if stop in words:
            words = words[: words.index(stop)]
    return " ".join(words).strip()


def attribute_values(text: str) -> list[AttributeValue]:
    """(subject, attribute, value) of every possessive statement in a text, first person read
    as "the user"."""
    out: list[AttributeValue] = []
    for sentence in sentences(text):
        for m in _ATTRIBUTE.finditer(restate_sentence(sentence)):
            owner = m.group("owner").lower().removesuffix("'s")
            owner = "the user" if owner in ("the user", "my") else owner
            value = _clean_value(m.group("value"))
            if value:
                out.append(AttributeValue(owner, m.group("attr").lower(), value))
    return out


def conflicting_attribute(claim: str, evidence: str) -> tuple[AttributeValue, AttributeValue] | None:
    """The first attribute both texts give a value for, with values that differ (or None)."""
    later = attribute_values(evidence)
    for old in attribute_values(claim):
        for new in later:
            if (old.subject, old.attribute) != (new.subject, new.attribute):
                continue
            if old.value in new.value or new.value in old.value:
                continue
            return old, new
    return None
