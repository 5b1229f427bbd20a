"""``!good`` / ``!bad``: feedback on an answer re-weights the memories it recalled.

Feedback is a state of the answer (+1, -1), not a counter: saying ``!good`` twice
changes nothing the second time, and switching from good to bad moves weights back
and then down. Insights change strength, facts change confidence; recall weights
both, so the ranking of future answers changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from thea.errors import InputError, NotFoundError
from thea.memory.universal import UniversalMemory
from thea.models import Fact, FinalResponse, KnowledgeCrystal

STRENGTH_STEP = 0.5
CONFIDENCE_STEP = 0.1
MIN_STRENGTH = 0.1


@dataclass
class FeedbackOutcome:
    response_id: str
    feedback: int
    changed: list[str] = field(default_factory=list)
    unchanged: bool = False

    def summary(self) -> str:
        word = "good" if self.feedback > 0 else "bad"
        if self.unchanged:
            return f"already marked {word}"
        return f"marked {word}: re-weighted {len(self.changed)} recalled memories"


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
    rows: list[dict[str, Any]] = [{"id": response.id, "props": {"feedback": feedback}}]
    for node in memory.get(response.recalled_ids):
        if isinstance(node, KnowledgeCrystal):
            strength = max(MIN_STRENGTH, node.strength + STRENGTH_STEP * delta)
            rows.append({"id": node.id, "props": {"strength": round(strength, 3)}})
        elif isinstance(node, Fact):
            confidence = max(0.05, min(0.95, node.confidence + CONFIDENCE_STEP * delta))
            rows.append({"id": node.id, "props": {"confidence": round(confidence, 3)}})
        else:
            continue
        outcome.changed.append(node.id)
    memory.graph.run("patch_nodes", rows=rows)
    return outcome
