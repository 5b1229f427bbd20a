"""How a claim reads: its subject key, its label, and the one line that stands for it.

A claim is shown from its fields, never as the user's clause turned round: "Your car: a used
2019 Toyota Corolla.", "Rui (your brother), home: Lyon.", "Your car: Civic (no longer).". The
user's own words travel beside it as its quote.
"""

from __future__ import annotations

import re

from services.knowledge.claims.verify import plain
from services.prompts.extract_claims import ClaimKind, ClaimOut
from thea.models import USER_SUBJECT, Fact

#: the attribute of what is kept as told, as one whole note
NOTE = "note"
#: a time as told with the date it means written after it (services/common/dates.resolve_relative)
_RESOLVED = re.compile(r"^[^()]+\(([^()]*\d{4}[^()]*)\)$")
#: determiners before someone named by relation ("my sister", "our neighbour", "the builder")
_DETERMINERS = frozenset({"my", "our", "the", "his", "her", "their", "a", "an"})


def subject_key(subject: str, about_user: bool) -> str:
    """The key claims about one subject share: ``"user"``, or the subject's plain name without a
    determiner ("my sister" is "sister": later "my sister Ana", relation sister, is found by it)."""
    if about_user:
        return USER_SUBJECT
    words = plain(subject).split()
    while len(words) > 1 and words[0] in _DETERMINERS:
        words = words[1:]
    return " ".join(words) or USER_SUBJECT


def subject_label(fact: Fact) -> str:
    """Who a claim is about, as the user is told: "Your", "Rui (your brother)", "Pixel"."""
    if fact.subject_key == USER_SUBJECT:
        return "Your"
    name = fact.subject or fact.subject_key or ""
    relation = (fact.relation or "").strip()
    if relation and relation not in {"self", "user"} and plain(relation) not in plain(name):
        return f"{name} (your {relation})"
    return name


def ended(fact: Fact) -> bool:
    return fact.change == ClaimKind.ENDS.value


def names_subject(fact: Fact) -> bool:
    """The claim gives someone's name ("my husband Dev": Dev's name is Dev)."""
    return fact.subject_key != USER_SUBJECT and (
        plain(fact.attribute or "") == "name" or plain(fact.value or "") == plain(fact.subject or "")
    )


def when_shown(when: str) -> str:
    """A claim's time as its line shows it: the date a relative time was worked out to ("next
    month (December 2026)" -> "December 2026"), else the time as told."""
    found = _RESOLVED.match(when.strip())
    return found.group(1) if found else when.strip()


def claim_line(fact: Fact) -> str:
    """The claim in one line: "Your car: Toyota Corolla.", "Your husband: Dev.", "Rui (your
    brother), home: Lyon."."""
    value = (fact.value or "").strip()
    if fact.attribute == NOTE:  # kept as told (a told fact nothing was read from)
        return f"You told me: \u201c{value.rstrip('.')}.\u201d"
    when = f" ({when_shown(fact.when)})" if fact.when and plain(fact.when) not in plain(value) else ""
    end = " (no longer)" if ended(fact) else ""
    if names_subject(fact):
        what = (fact.relation or "").strip() or fact.attribute
        return f"Your {what}: {value}{when}{end}."
    label = subject_label(fact)
    joiner = " " if label == "Your" else ", "
    return f"{label}{joiner}{fact.attribute}: {value}{when}{end}."


def told_claim(fact: Fact, quote: str, value: str, kind: ClaimKind) -> ClaimOut:
    """A claim of the stored claim's subject and label as the reader writes one, with ``quote``,
    ``value`` and ``kind`` (a message is asked for its label: value_check.py)."""
    about_user = fact.subject_key == USER_SUBJECT
    return ClaimOut(
        quote=quote,
        subject="user" if about_user else (fact.subject or fact.subject_key or ""),
        relation="self" if about_user else (fact.relation or ""),
        attribute=fact.attribute or "",
        value=value,
        when="",
        kind=kind,
    )
