"""``!good`` / ``!bad``: feedback on an answer acts on what the answer rests on, and says exactly what.

Feedback is a state of the answer (+1, -1), not a counter: saying ``!good`` twice
changes nothing the second time, and switching from good to bad moves weights back
and then down. Each recalled memory of the answer is handled in its own way:

* **insights**: strength ±0.5 (recall weights strength);
* **facts**: confidence ±0.1 (recall weights confidence);
* **turns, impulses and other experience**: nothing: they are records of what was said and
  carry no weight to move; the report counts them as unchanged rather than pretending;
* the **unverified insight crystallized from this exchange** (its evidence did not support
  it) is promoted by ``!good``: it becomes active and recallable, marked ``promoted``. ``!bad``
  leaves it unverified.

The summary names every change ("insight 1a2b3c4d strength 1 -> 1.5").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from thea.errors import InputError, NotFoundError
from thea.memory.operations import NodePatch
from thea.memory.universal import UniversalMemory
from thea.models import Collection, Fact, FinalResponse, KnowledgeCrystal, stable_id

STRENGTH_STEP = 0.5
CONFIDENCE_STEP = 0.1
MIN_STRENGTH = 0.1


@dataclass
class FeedbackOutcome:
    response_id: str
    feedback: int
    changed: list[str] = field(default_factory=list)
    unchanged: bool = False
    #: one line per change, in order
    changes: list[str] = field(default_factory=list)
    #: recalled memories that carry no weight (turns, impulses, ...), by type
    untouched: dict[str, int] = field(default_factory=dict)
    promoted: list[str] = field(default_factory=list)

    def summary(self) -> str:
        word = "good" if self.feedback > 0 else "bad"
        if self.unchanged:
            return f"already marked {word}"
        parts = list(self.changes)
        if self.untouched:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.untouched.items()))
            parts.append(f"unchanged (records carry no weight): {kinds}")
        if not parts:
            return f"marked {word}: the answer recalled no memories; nothing else changed"
        return f"marked {word}: " + "; ".join(parts)


def _crystal_of(memory: UniversalMemory, response: FinalResponse) -> KnowledgeCrystal | None:
    """The insight crystallized from the exchange this answer belongs to, if any."""
    impulse_id = response.correlation_id
    if not impulse_id:
        return None
    found = memory.get([stable_id("crystal", impulse_id)])
    return found[0] if found and isinstance(found[0], KnowledgeCrystal) else None


def apply_feedback(memory: UniversalMemory, response_id: str, feedback: int) -> FeedbackOutcome:
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
    for node in memory.get(response.recalled_ids):
        if isinstance(node, KnowledgeCrystal):
            strength = round(max(MIN_STRENGTH, node.strength + STRENGTH_STEP * delta), 3)
            rows.append(NodePatch(node.id, {"strength": strength}))
            outcome.changes.append(f"insight {node.id[:8]} strength {node.strength:g} -> {strength:g}")
        elif isinstance(node, Fact):
            confidence = round(max(0.05, min(0.95, node.confidence + CONFIDENCE_STEP * delta)), 3)
            rows.append(NodePatch(node.id, {"confidence": confidence}))
            outcome.changes.append(f"fact {node.id[:8]} confidence {node.confidence:g} -> {confidence:g}")
        else:
            outcome.untouched[node.type.value] = outcome.untouched.get(node.type.value, 0) + 1
            continue
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
