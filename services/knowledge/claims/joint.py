"""A change told of "we" changes each claim the same words gave the user and someone else.

"My wife Marcia and I live in a terraced house in Handsworth" is read as two claims from one
quote: the user's home and Marcia's. "We finally got the keys to the bungalow in Sutton
Coldfield" was read as a change of the user's home alone, so Marcia's Handsworth stayed current
and "Where are Marcia and I living these days?" got "Handsworth" (first contact set 12, read
again). When a change that closes a claim of the user's is told in the first person plural
(closed class: "we", "us", "our") and the closed claim's quote gave the same attribute and value
to someone else, that claim is closed too, by the same change under its own subject. A change
told in the first person singular ("I've moved to York for work") changes the user's alone.
Decided by the claims' subjects and quotes and the pronoun's person, never by the words of the
change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.knowledge.claims.render import claim_line
from services.knowledge.claims.supersession import Closing, Supersession
from services.knowledge.claims.verify import plain
from thea.models import USER_SUBJECT, Fact
from thea.models.nodes import stable_id

#: the writer with others (closed class; "we've" is written "we ve" once plain)
FIRST_PERSON_PLURAL = frozenset({"we", "us", "our", "ours", "ourselves", "weve"})


def told_of_us(quote: str) -> bool:
    """The words speak of the writer with others."""
    return not FIRST_PERSON_PLURAL.isdisjoint(plain(quote).split())


def _same_words(one: Fact, other: Fact) -> bool:
    """The two claims were read from the same words, saying the same of their subjects."""
    return bool(one.quote) and all(
        plain(getattr(one, part) or "") == plain(getattr(other, part) or "")
        for part in ("quote", "attribute", "value")
    )


def joint_changes(plan: Supersession, current: Sequence[Fact], source_id: str) -> Supersession:
    """The plan with each change of the user's told of "we" also closing the claims the closed
    one's words gave someone else (each by a claim of the message under their subject)."""
    closed = {c.old.id for c in plan.closings}
    stored: list[Fact] = []
    closings: list[Closing] = []
    for closing in plan.closings:
        if closing.old.subject_key != USER_SUBJECT or not told_of_us(closing.by.quote or ""):
            continue
        for other in current:
            if other.id in closed or other.subject_key == USER_SUBJECT or not _same_words(other, closing.old):
                continue
            change = closing.by.model_copy(
                update={
                    "id": stable_id("claim", source_id, "with", other.id),
                    "subject_key": other.subject_key,
                    "subject": other.subject,
                    "relation": other.relation,
                }
            )
            change = change.model_copy(update={"content": claim_line(change)})
            stored.append(change)
            closings.append(Closing(old=other, by=change, reason=f"{closing.reason} (told of us)"))
            closed.add(other.id)
    if not closings:
        return plan
    return replace(plan, stored=[*plan.stored, *stored], closings=[*plan.closings, *closings])
