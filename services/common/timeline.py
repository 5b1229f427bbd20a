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

from services.common.dates import when_text
from thea.models import Fact


def planned_at(fact: Fact, at: int) -> bool:
    """The claim is a change told ahead that has not taken effect at ``at`` (epoch ms)."""
    return fact.valid_from is not None and fact.valid_from > at and fact.valid_from > fact.created_at


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
        if planned_at(fact, at):
            out.planned.append(fact)
        elif fact.valid_until is not None and fact.valid_until > at:
            out.known.append(fact.model_copy(update={"valid_until": None, "superseded_by": None}))
        else:
            out.known.append(fact)
    return out


def planned_line(fact: Fact) -> str:
    """How a planned change is shown: "From Monday 1 March 2027 (planned): Your home: York."."""
    return f"From {when_text(fact.valid_from or fact.created_at)} (planned): {fact.content}"
