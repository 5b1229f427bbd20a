"""``!good`` / ``!bad``: feedback on an answer acts on what the answer rests on, and says exactly what.

Feedback is a state of the answer (+1, -1), not a counter: saying ``!good`` twice
changes nothing the second time, and switching from good to bad moves weights back
and then down. Each recalled memory of the answer is handled in its own way:

* **insights**: strength ±0.5 (recall weights strength);
* **facts**: confidence ±0.1 (recall weights confidence);
* **impulses, turns, earlier answers and document chunks** (records of what was said or
  pasted): their ``rating`` ±1, bounded to ±3 (``MAX_RATING``); recall multiplies their score
  by ``1 + 0.2 * rating`` (services/recall/fusion.py: 0.4 to 1.6), so a memory behind bad
  answers sinks below its equals and one behind good answers rises; the text is never changed;
* the **unverified insight crystallized from this exchange** (its evidence did not support
  it) is promoted by ``!good``: it becomes active and recallable, marked ``promoted``. ``!bad``
  leaves it unverified.

The summary names every change ("insight 1a2b3c4d strength 1 -> 1.5", "turn 5e6f7a8b rating
0 -> -1"); a recalled memory that no longer exists (forgotten since) is counted as gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from thea.errors import InputError, NotFoundError
from thea.memory.operations import NodePatch
from thea.memory.operations.knowledge import PropertyValue
from thea.memory.ports import FeedbackTarget
from thea.models import (
    MAX_RATING,
    Collection,
    DialogueTurn,
    DocumentChunk,
    Fact,
    FinalResponse,
    KnowledgeCrystal,
    Node,
    UserImpulse,
    stable_id,
)

STRENGTH_STEP = 0.5
CONFIDENCE_STEP = 0.1
MIN_STRENGTH = 0.1
RATING_STEP = 1.0
#: how the report names each kind of record
RECORD_NAMES = {
    UserImpulse: "impulse",
    DialogueTurn: "turn",
    FinalResponse: "answer",
    DocumentChunk: "document chunk",
}


@dataclass
class FeedbackOutcome:
    response_id: str
    feedback: int
    changed: list[str] = field(default_factory=list)
    unchanged: bool = False
    #: one line per change, in order
    changes: list[str] = field(default_factory=list)
    #: recalled memories that no longer exist (forgotten since the answer)
    gone: int = 0
    promoted: list[str] = field(default_factory=list)

    def summary(self) -> str:
        word = "good" if self.feedback > 0 else "bad"
        if self.unchanged:
            return f"already marked {word}"
        parts = list(self.changes)
        if self.gone:
            parts.append(f"{self.gone} recalled memor{'y' if self.gone == 1 else 'ies'} no longer stored")
        if not parts:
            return f"marked {word}: the answer recalled no memories; nothing else changed"
        return f"marked {word}: " + "; ".join(parts)


def _crystal_of(memory: FeedbackTarget, response: FinalResponse) -> KnowledgeCrystal | None:
    """The insight crystallized from the exchange this answer belongs to, if any."""
    impulse_id = response.correlation_id
    if not impulse_id:
        return None
    found = memory.get([stable_id("crystal", impulse_id)])
    return found[0] if found and isinstance(found[0], KnowledgeCrystal) else None


def _reweigh(node: Node, delta: int) -> tuple[dict[str, PropertyValue], str] | None:
    """The new weight of one recalled memory, and the line saying so (None: nothing to move)."""
    short = node.id[:8]
    if isinstance(node, KnowledgeCrystal):
        strength = round(max(MIN_STRENGTH, node.strength + STRENGTH_STEP * delta), 3)
        return {"strength": strength}, f"insight {short} strength {node.strength:g} -> {strength:g}"
    if isinstance(node, Fact):
        confidence = round(max(0.05, min(0.95, node.confidence + CONFIDENCE_STEP * delta)), 3)
        return {"confidence": confidence}, f"fact {short} confidence {node.confidence:g} -> {confidence:g}"
    if not isinstance(node, (UserImpulse, DialogueTurn, FinalResponse, DocumentChunk)):
        return None
    name = RECORD_NAMES[type(node)]
    rating = max(-MAX_RATING, min(MAX_RATING, node.rating + RATING_STEP * delta))
    if rating == node.rating:
        return None  # already at its bound
    return {"rating": rating}, f"{name} {short} rating {node.rating:g} -> {rating:g}"


def apply_feedback(memory: FeedbackTarget, response_id: str, feedback: int) -> FeedbackOutcome:
    if feedback not in (1, -1):
        raise InputError("feedback is +1 (good) or -1 (bad)")
    found = memory.get([response_id])
    if not found or not isinstance(found[0], FinalResponse):
        raise NotFoundError(f"no answer with id {response_id}")
    response = found[0]
    delta = feedback - response.feedback
    outcome = FeedbackOutcome(response_id, feedback, unchanged=delta == 0)
    if delta == 0:
        return outcome
    rows = [NodePatch(response.id, {"feedback": feedback})]
    recalled = memory.get(response.recalled_ids)
    outcome.gone = len(set(response.recalled_ids)) - len(recalled)
    for node in recalled:
        change = _reweigh(node, delta)
        if change is None:
            continue
        props, line = change
        rows.append(NodePatch(node.id, props))
        outcome.changes.append(line)
        outcome.changed.append(node.id)
    crystal = _crystal_of(memory, response)
    promote = feedback > 0 and crystal is not None and crystal.verification == "unverified"
    if promote and crystal is not None:
        rows.append(NodePatch(crystal.id, {"active": True, "verification": "promoted"}))
        outcome.changes.append(f"insight {crystal.id[:8]} promoted from unverified (you confirmed it)")
        outcome.changed.append(crystal.id)
        outcome.promoted.append(crystal.id)
    memory.knowledge.patch_nodes(rows)
    if outcome.promoted:
        memory.set_vector_active(Collection.INSIGHTS, outcome.promoted, True)
    return outcome
