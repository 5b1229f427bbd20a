"""Which older facts a new fact supersedes (pure rules, no model, no store).

* **Same subject, same attribute, another value** supersedes when the attribute has one value
  at a time (where one lives, one's name, job, car, commute, age, a birthday, a deadline, an
  appointment, the rent) or when the new statement says it changed ("now", "no longer", "not
  Berlin anymore", "got a new job", an "Update:" label).
* **An end** ("I sold the Golf", "I quit the Clifton Wanderers", "my Surly got stolen") closes
  every current fact that names what ended.
* **A move** of a date ("the deadline moved to March 17", "the ride was pushed back to July 5")
  closes the current facts about the same thing that carried a date: the same subject and
  attribute, or a dated fact naming every word of what moved.

A fact never supersedes one told in the same message, and a value is no change when one
contains the other ("Berlin" / "Berlin, in Kreuzberg").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.knowledge.record.extraction import Change, ExtractedFact
from services.recall.lexical import stem
from thea.models import Fact

#: attributes (stems) that hold one value at a time
SINGLE_VALUED = frozenset(
    {
        stem(w)
        for w in (
            "name", "live", "job", "drive", "commute", "age", "birthday", "deadline", "appointment",
            "rent", "salary", "address", "phone", "email", "surname", "nationality", "hometown",
            "partner", "husband", "wife", "boss", "manager", "team", "school", "employer", "title",
        )
    }
)  # fmt: skip
#: attributes that describe what someone is or does for a living: one replaces another on a change
_ROLE = frozenset({"be-a", "job"})
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@dataclass(frozen=True)
class Replacement:
    old_id: str
    #: why, for the trace and the fact's history
    reason: str


def _same_attribute(new: ExtractedFact, old: Fact) -> bool:
    if new.attribute == old.attribute:
        return True
    return new.attribute in _ROLE and old.attribute in _ROLE


def _differs(new_value: str, old_value: str) -> bool:
    a, b = " ".join(new_value.lower().split()), " ".join(old_value.lower().split())
    return bool(a) and a not in b and b not in a


def _names_all(about: Sequence[str], old: Fact) -> bool:
    said = words(old.content) | words(old.subject or "")
    return bool(about) and all(w in said for w in about)


def replaced_by(new: ExtractedFact, old: Fact) -> str | None:
    """Why ``new`` supersedes ``old`` (a current fact of the same user), or None."""
    if new.change is Change.END:
        if _names_all(new.about, old):
            return f"ended: {new.text}"
        return None
    same = old.subject_key == new.subject_key and _same_attribute(new, old)
    if new.change is Change.MOVE:
        head = new.about[-1:] if new.about else ()
        about_it = _names_all(head, old) and (_names_all(new.about, old) or same)
        if (same or about_it) and (old.value is None or _differs(new.value, old.value or "")):
            return f"moved: {new.text}"
        return None
    if not same:
        return None
    if new.old_value and new.old_value.lower() in old.content.lower():
        return f"changed: {new.text}"
    single = new.attribute in SINGLE_VALUED
    if (single or new.change is Change.CHANGE) and _differs(new.value, old.value or ""):
        return f"changed: {new.text}"
    return None


def supersessions(new: ExtractedFact, current: Sequence[Fact]) -> list[Replacement]:
    """Every current fact ``new`` replaces, with the reason."""
    out: list[Replacement] = []
    for old in current:
        reason = replaced_by(new, old)
        if reason is not None:
            out.append(Replacement(old.id, reason))
    return out
