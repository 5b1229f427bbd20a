"""Synthesis: the final answer, grounded in recalled memories inside a reference block."""

from __future__ import annotations

from collections.abc import Sequence

from services.prompts import (
    QUOTED_REMINDER,
    QUOTED_RULE,
    BaseMessage,
    HumanMessage,
    PromptId,
    PromptSpec,
    ReferenceItem,
    SystemMessage,
    history_messages,
    neutralise,
    reference_block,
)

PROMPT = PromptSpec(PromptId.SYNTHESIS, "3")

SYSTEM = (
    "You are thea, a helpful assistant with a long-term memory. Answer the user's latest message "
    "concisely. Use the recalled memories when they are relevant (they describe the user and earlier "
    "conversations); if they do not contain the answer, say you do not know rather than inventing it. "
    "Each memory shows the date it happened. When asked when something happened, answer with a date "
    "(day, month and year), never with words such as 'yesterday' or 'last week'.\n" + QUOTED_RULE
)


def build(
    text: str,
    references: Sequence[ReferenceItem],
    history: Sequence[tuple[str, str]] = (),
    instinct: str | None = None,
) -> list[BaseMessage]:
    # The instinct is recorded in the trace but not fed to the answer: small models copy a
    # hasty first guess instead of reading the memories (measured with the offline 0.5B model).
    del instinct
    # Measured with the offline 0.5B model (tests/slow/test_injection.py): memories in the system
    # message, quoted sentence by sentence, with a reminder after them, steer it least; memories
    # in the user's turn steered it most.
    system = f"{SYSTEM}\n\n{reference_block(references, quoted=True)}\n\n{QUOTED_REMINDER}"
    return [
        SystemMessage(content=system),
        *history_messages(history),
        HumanMessage(content=neutralise(text, multiline=True)),
    ]
