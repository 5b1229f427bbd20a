"""Which words of a question code keeps as naming an earlier moment, what the question asks of
then, and how the moment is said back (services/cycle/asked_at.py)."""

from __future__ import annotations

import pytest

from services.cycle.asked_at import may_name_a_moment, moment_said, moment_words, rest_of


@pytest.mark.parametrize(
    ("question", "copied", "rest", "said_back"),
    [
        (
            "Which city was I living in when I asked you for a dessert recipe?",
            "when I asked you for a dessert recipe",
            "Which city was I living in?",
            "When you asked me for a dessert recipe",
        ),
        (
            "At the time I first asked you for menu ideas, what was my occupation?",
            "At the time I first asked you for menu ideas,",
            "what was my occupation?",
            "At the time you first asked me for menu ideas",
        ),
        (
            "back when we were still renting, who was our landlord?",
            "back when we were still renting",
            "who was our landlord?",
            "Back when you were still renting",
        ),
    ],
)
def test_the_words_naming_a_moment_are_kept_and_the_rest_is_what_is_asked_of_then(
    question: str, copied: str, rest: str, said_back: str
) -> None:
    at = moment_words(copied, question)
    assert at is not None
    assert may_name_a_moment(question)
    assert rest_of(question, at) == rest
    assert moment_said(at, 1_796_501_062_108).startswith(f"{said_back} (Saturday 5 December 2026")


@pytest.mark.parametrize(
    ("question", "copied"),
    [
        ("Where did I live last year?", "last year"),  # a date, not a moment of the user's
        ("what time is my flight on friday", "friday"),
        ("When did I start at the bakery?", "when I started at the bakery"),  # not its words
        (
            "Where do I live these days, when all is said and done?",
            "when all is said and done",
        ),  # no one asking
        ("when I asked you for a recipe", "when I asked you for a recipe"),  # nothing left to ask
    ],
)
def test_words_that_are_not_the_questions_own_moment_are_not_kept(question: str, copied: str) -> None:
    assert moment_words(copied, question) is None


def test_a_question_without_a_word_for_a_moment_is_not_read_for_one() -> None:
    assert not may_name_a_moment("Where do I live now?")
    assert not may_name_a_moment("what was my dog called before Rex?")
