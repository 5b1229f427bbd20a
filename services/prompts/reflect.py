"""Reflect: generalise a group of related insights into one stronger insight."""

from __future__ import annotations

from collections.abc import Sequence

from services.prompts import (
    REFERENCE_RULE,
    BaseMessage,
    HumanMessage,
    PromptId,
    PromptSpec,
    ReferenceItem,
    SystemMessage,
    neutralise,
    reference_block,
)

PROMPT = PromptSpec(PromptId.REFLECT, "3")

SYSTEM = (
    "You merge related insights from an assistant's memory into one general insight. Write one or "
    "two sentences that keep every name, number and preference the insights agree on and drop "
    "repetition. Answer with the merged insight only.\n" + REFERENCE_RULE
)


def build(insights: Sequence[tuple[str, str]], concepts: Sequence[str]) -> list[BaseMessage]:
    """``insights``: (id, text) pairs, strongest first."""
    block = reference_block([ReferenceItem(source_id=i, kind="insight", text=t) for i, t in insights])
    about = f"They are about: {neutralise(', '.join(concepts))}.\n" if concepts else ""
    return [SystemMessage(content=SYSTEM), HumanMessage(content=f"{block}\n{about}Merge these insights.")]
