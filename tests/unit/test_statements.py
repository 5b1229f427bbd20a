"""Telling versus asking, and the acknowledgement that restates only what was told."""

from __future__ import annotations

import pytest

from services.common.statements import acknowledge, is_statement, telling_sentences, tells_anything


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


@pytest.mark.parametrize(
    ("said", "restated"),
    [
        ("My name is Priya Ramanathan.", "your name is Priya Ramanathan."),
        ("I am tired.", "you are tired."),
        ("I was born in Chennai.", "you were born in Chennai."),
        (
            "You helped me with my garden and I told you about it.",
            "I helped you with your garden and you told me about it.",
        ),
        ("I think you are right.", "you think I am right."),
        (
            "Tidewatch is the app I'm building with my team.",
            "Tidewatch is the app you're building with your team.",
        ),
    ],
)
def test_the_acknowledgement_restates_the_words_with_persons_turned_round(said: str, restated: str) -> None:
    assert acknowledge(said) == f"Noted: {restated} I'll remember that."


def test_a_long_statement_is_restated_in_part_and_the_rest_counted() -> None:
    text = " ".join(f"My project number {i} runs on a server in room {i}." for i in range(40))
    answer = acknowledge(text)
    assert len(answer) < 400
    assert answer.startswith("Noted: your project number 0 runs")
    assert "more sentences)" in answer
    words = {w.strip(".,():").lower() for w in answer.split()}
    said = {w.strip(".,").lower() for w in text.split()} | {
        "noted:",
        "your",
        "i'll",
        "remember",
        "that",
        "and",
        "more",
        "sentences",
    }
    assert words <= said | {"noted", "sentences)", "(and"} | {str(n) for n in range(100)}


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
    assert acknowledge("Quick update: we move in April.") == "Noted: you move in April. I'll remember that."
    assert acknowledge("Sadly Rex died on Monday.") == "Noted: Rex died on Monday. I'll remember that."
    assert acknowledge("Quick update - we move in April.") == "Noted: you move in April. I'll remember that."
    assert acknowledge("Hey, I'm Maggie.") == "Noted: you're Maggie. I'll remember that."
    # only joining words go: "So far ..." and "Well-known ..." keep their first word
    assert acknowledge("So far so good, I passed.").startswith("Noted: so far so good")


def test_every_restated_sentence_starts_with_a_capital() -> None:
    said = acknowledge("I'm Maggie. I work as a pharmacist in Bristol.")
    assert said == "Noted: you're Maggie. You work as a pharmacist in Bristol. I'll remember that."


def test_a_title_does_not_end_a_sentence() -> None:
    assert telling_sentences("Our vet is Dr. Amara Osei. She is great.") == [
        "Our vet is Dr. Amara Osei.",
        "She is great.",
    ]


def test_the_acknowledgement_drops_opening_words_and_a_label_in_any_order() -> None:
    from services.common.statements import acknowledge

    said = acknowledge("ok so small update: Nadia and I moved to Perth!")
    assert said == "Noted: Nadia and you moved to Perth! I'll remember that."


def test_the_acknowledgement_drops_a_filler_at_the_end() -> None:
    from services.common.statements import acknowledge

    assert (
        acknowledge("I'm allergic to sesame, btw.") == "Noted: you're allergic to sesame. I'll remember that."
    )


@pytest.mark.parametrize(
    ("said", "restated"),
    [
        ("Started at Pawfect Grooming in Ipswich, sold the salon", "you started at Pawfect Grooming"),
        ("Got promoted!", "you got promoted!"),
    ],
)
def test_a_sentence_without_i_is_said_back_with_you(said: str, restated: str) -> None:
    """The terminal trial said back "Noted: Started at Pawfect Grooming ..." (no one started)."""
    assert acknowledge(said).startswith(f"Noted: {restated}")
