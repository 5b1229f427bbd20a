"""Telling versus asking: what the slow loop reads for claims and what it leaves."""

from __future__ import annotations

import pytest

from services.common.statements import is_statement, telling_sentences, tells_anything


@pytest.mark.parametrize(
    "text",
    [
        "My name is Priya Ramanathan.",
        "I work as a marine biologist in Monterey and I maintain the Tidewatch app.",
        "I was born in Chennai. My sister lives in Pune; we talk every Sunday.",
        "Tidewatch is the app I'm building with my team.",
        "Hi, I'm Priya.",
        # typed without a full stop and without a pronoun: a subject with its verb tells
        "Bad news, Mango ate a sock and needs an operation on Thursday",
        "Kofi works nights now",
        "Grandma Joan turns 90 on Sunday",
    ],
)
def test_statements_are_told_apart_from_questions(text: str) -> None:
    assert is_statement(text)
    assert telling_sentences(text)


@pytest.mark.parametrize(
    "text",
    [
        "What system do I maintain?",
        "Tell me about my job in two sentences.",
        "Can you summarise my week",
        "I want to know where my sister lives.",
        "Please list my projects.",
        "hello there",
        "Thank you so much!",
        "I live in Lyon. What is the weather like there?",
        "Redis Initech passport PIN",
        "hello with a token",
        "Queue is down but I still want an answer",
        "pasta carbonara recipe",
        "best pizza places london",
    ],
)
def test_questions_requests_and_greetings_are_not_statements(text: str) -> None:
    assert not is_statement(text)


def test_only_what_plainly_asks_or_greets_is_kept_from_the_slow_loop() -> None:
    for asking in ("What system do I maintain?", "Tell me about my job.", "Thanks!", "Can you help me"):
        assert not tells_anything(asking)
    for telling in ("Mon chat s'appelle Minou.", "Redis Initech passport PIN", "I live in Lyon. Why?"):
        assert tells_anything(telling)


def test_a_question_tells_nothing_but_a_mixed_message_tells_its_statement() -> None:
    assert telling_sentences("What system do I maintain?") == []
    assert telling_sentences("Thanks!") == []
    assert telling_sentences("I live in Lyon. What is the weather like there?") == ["I live in Lyon."]


def test_a_statement_is_restated_about_the_user_in_the_third_person() -> None:
    from services.common.restate import restate

    assert (
        restate("My name is Priya Ramanathan and I work on Tidewatch.")
        == "The user's name is Priya Ramanathan and the user works on Tidewatch."
    )
    assert restate("I am a marine biologist. I also teach in Lyon.") == (
        "The user is a marine biologist. The user also teaches in Lyon."
    )
    assert (
        restate("I have two cats and I study biology.")
        == "The user has two cats and the user studies biology."
    )
    assert restate("I sometimes walk to work. I usually fly home.") == (
        "The user sometimes walks to work. The user usually flies home."
    )
    # once "the user" is said, "my" is "their"; an irregular past tense stays past
    assert restate("I sold my car to my brother.") == "The user sold their car to their brother."
    assert restate("What is my name?") == ""


def test_labels_and_joining_words_are_not_restated() -> None:
    from services.common.restate import restate

    assert restate("Scratch that, our anniversary is actually March 15. And we move in April.") == (
        "The user's anniversary is actually March 15. The user moves in April."
    )


def test_a_title_does_not_end_a_sentence() -> None:
    assert telling_sentences("Our vet is Dr. Amara Osei. She is great.") == [
        "Our vet is Dr. Amara Osei.",
        "She is great.",
    ]
