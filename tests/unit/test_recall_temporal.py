"""The temporal intent of recall: which questions ask when, which memories say when."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.recall.temporal import asks_when, date_terms, mentions_time


@pytest.mark.parametrize(
    "question",
    [
        "When did Caroline go to the LGBTQ support group?",
        "when is Melanie planning on going camping?",
        "How long ago was Caroline's 18th birthday?",
        "How long has Melanie been practicing art?",
        "What year did John start surfing?",
        "Since when do I own the cat?",
        "  When Jon has lost his job as a banker?",
    ],
)
def test_questions_about_time(question: str) -> None:
    assert asks_when(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Caroline paint?",
        "Where did Melanie go camping?",
        "Who did I meet when I was in Paris?",  # "when" inside a clause, not the question's aim
        "How many kids does Melanie have?",
        "What is my cat called?",
    ],
)
def test_questions_not_about_time(question: str) -> None:
    assert not asks_when(question)


@pytest.mark.parametrize(
    "text",
    [
        "I went to the support group yesterday.",
        "We ran a charity race last Saturday!",
        "I painted that lake sunrise in 2022.",
        "Two weeks ago I signed up for pottery.",
        "The conference is next month.",
        "We moved here on 8 May.",
        "I'll see you on Friday.",
        "Back in June we went camping.",
    ],
)
def test_memories_that_say_when(text: str) -> None:
    assert mentions_time(text)


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the park.",  # the verb, not the month
        "That was the last thing I expected.",
        "My cat Miso sleeps on the keyboard.",
        "I love painting sunrises.",
    ],
)
def test_memories_that_do_not(text: str) -> None:
    assert not mentions_time(text)


def test_date_terms_are_the_month_and_year_it_happened() -> None:
    june = int(datetime(2023, 6, 27, 13, 0, tzinfo=UTC).timestamp() * 1000)
    assert date_terms(june) == ["june", "2023"]
    assert date_terms(None) == []
