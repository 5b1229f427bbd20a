"""Which claims hold at a moment: a change told ahead holds from the day it takes effect.

"We're moving to York in March" is read as a new home that starts in March (keeper.starts_on):
its ``valid_from`` is that day and the home it replaces is closed then (``valid_until`` ahead).
Until that day the older home is what is true and the move is a plan; after it, the move is what
is true and the older home is history. Nothing is rewritten when the day comes: the view of the
claims at a moment is worked out from their dates each time they are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from services.common.dates import day_start_ms, day_told, when_text
from thea.models import Fact
from thea.words import lower_words

#: kinds of claim that say something new (not a change of an older claim, nor a correction)
_NEW_KINDS = frozenset({None, "new", "adds"})


def day_ahead(when: str, value: str, said_at: int) -> int | None:
    """The start (epoch ms) of the later day a time as told names, said at ``said_at``; None when
    it names no day, a day not after the one it was said, or the day the value itself names (a
    date moved "to May 3", a wedding "on 23 January": the time is the value)."""
    told, held = lower_words(when), lower_words(value)
    if not told or " ".join(told) in " ".join(held):
        return None
    day = day_told(when, said_at)
    if day is None or day == day_told(value, said_at):
        return None
    start = day_start_ms(day)
    return start if start > said_at else None


def starts_at(fact: Fact) -> int | None:
    """When a claim told ahead starts (epoch ms), or None for one true when it was said: a change
    told ahead starts on its ``valid_from`` (keeper.starts_on, which also closes what it replaces
    then); something new told with a later day ("we're getting a puppy in January", "we're moving
    to Bath in March" with no home told before) starts on the day its time as told names, unless
    that time is its value (a wedding "on 23 January" is a fact now)."""
    if fact.valid_from is not None and fact.valid_from > fact.created_at:
        return fact.valid_from
    if fact.change not in _NEW_KINDS or not fact.when:
        return None
    return day_ahead(fact.when, fact.value or "", fact.created_at)


def planned_at(fact: Fact, at: int) -> bool:
    """The claim was told ahead and has not started at ``at`` (epoch ms)."""
    start = starts_at(fact)
    return start is not None and start > at


@dataclass
class ClaimsAt:
    """The claims as they stand at one moment."""

    #: what is true then (an older value closed only from a later day is still current) and
    #: what was true before, as stored
    known: list[Fact] = field(default_factory=list)
    #: changes told ahead, not yet in effect
    planned: list[Fact] = field(default_factory=list)


def claims_at(facts: Sequence[Fact], at: int) -> ClaimsAt:
    """The claims as they stand at ``at``: a claim closed by a change still ahead is current
    (its ``valid_until`` and ``superseded_by`` cleared in the copy), the change itself planned."""
    out = ClaimsAt()
    for fact in facts:
        if fact.valid_until is not None and fact.valid_until <= at:
            out.known.append(fact)  # closed by then: history, also when it was told with a later
            # day (a concert "on 19 December" moved to the 21st is no plan, it is the old day)
        elif planned_at(fact, at):
            out.planned.append(fact)
        elif fact.valid_until is not None and fact.valid_until > at:
            out.known.append(fact.model_copy(update={"valid_until": None, "superseded_by": None}))
        else:
            out.known.append(fact)
    return out


def planned_line(fact: Fact) -> str:
    """How a planned change is shown: "From Monday 1 March 2027 (planned): Your home: York."."""
    return f"From {when_text(starts_at(fact) or fact.created_at)} (planned): {fact.content}"
