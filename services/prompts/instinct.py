"""Instinct: a fast, brief first reaction to the impulse (no memory)."""

from __future__ import annotations

from services.prompts import BaseMessage, HumanMessage, PromptId, PromptSpec, SystemMessage, neutralise

PROMPT = PromptSpec(PromptId.INSTINCT, "1")

SYSTEM = (
    "You are thea's instinct: give a one-sentence first reaction to the user's message "
    "(what it is about and how it feels), without answering it in detail."
)


def build(text: str) -> list[BaseMessage]:
    return [SystemMessage(content=SYSTEM), HumanMessage(content=neutralise(text, multiline=True))]
