"""The offline models' ways of declining are recognised (services/cycle/refusal.py): a refusal is
never shown."""

from __future__ import annotations

import pytest

from services.cycle.refusal import is_refusal


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, but I can't assist with that request.",
        "I'm sorry, but I don't have enough information to answer your question.",
        "Sorry, I do not have sufficient context to help with that.",
        "I don\u2019t have enough details to say.",
        "As an AI, I have no feelings.",
    ],
)
def test_a_model_declining_is_a_refusal(answer: str) -> None:
    assert is_refusal(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry to hear that.",
        "Try a Fluke 323, it is cheap and does the job.",
        "If you don't have enough flour, use half oats.",
        "Congratulations on the new job!",
    ],
)
def test_an_answer_is_not_a_refusal(answer: str) -> None:
    assert not is_refusal(answer)
