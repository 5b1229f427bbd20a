"""``!forget``: archive one of the user's memories (kept in history, no longer recalled)."""

from __future__ import annotations

from dataclasses import dataclass

from services.common.ownership import own_node
from thea.memory.ports import Forgetting
from thea.models import Fact, KnowledgeCrystal, now_ms


@dataclass(frozen=True)
class ForgetOutcome:
    id: str
    kind: str

    def summary(self) -> str:
        return f"forgot {self.kind} {self.id[:8]}: archived, kept in history, no longer recalled"


def forget(memory: Forgetting, id_or_prefix: str, user_id: str) -> ForgetOutcome:
    node = own_node(memory, id_or_prefix, user_id)
    memory.set_active([node], False)
    if isinstance(node, Fact):
        memory.set_properties([node.id], {"valid_until": now_ms()})
    kind = "insight" if isinstance(node, KnowledgeCrystal) else node.type.value
    return ForgetOutcome(id=node.id, kind=kind)
