"""One question and its answer, as the conversation cache holds them and distillation reads them."""

from __future__ import annotations

from dataclasses import dataclass

from services.common.tokens import estimate_tokens


@dataclass
class Exchange:
    """One question/answer pair and the graph ids it came from."""

    question: str
    answer: str
    impulse_id: str
    response_id: str
    at: int = 0
    #: an exchange never shown to the model as history, kept for distillation: one the model did
    #: not answer (a statement's acknowledgement, a fixed "I don't know": it copies templates) or
    #: an answer about the user's own life (a wrong one must not come back as evidence)
    templated: bool = False

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.question) + estimate_tokens(self.answer)
