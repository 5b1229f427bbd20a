"""Every message is read for what it is: statement, question, request for help, small talk, a mix."""

from __future__ import annotations

import pytest

from services.common.understanding import Act, asks_conversation, asks_history, understand
from thea.models import MessageKind


@pytest.mark.parametrize(
    "text",
    [
        "Can you recommend a good podcast for my commute?",
        "I'm thinking about what to do with the car, any tips?",
        "Can you suggest a quick dinner idea for tonight?",
        "What's a good way to learn Rust quickly?",
        "How do I true a wheel without a truing stand?",
        "What should I cook for my parents on Sunday?",
        "Any ideas for a birthday present for my brother?",
        "Please write a short note to my landlord about the heating.",
        "Tell me a joke",
    ],
)
def test_requests_for_help_are_requests_not_questions_about_the_user(text: str) -> None:
    assert understand(text).kind is MessageKind.REQUEST


@pytest.mark.parametrize(
    "text",
    [
        "What is my name?",
        "When is my brother's birthday?",
        "Which city do I live in now?",
        "Who will look after the dog while we're away?",
        "Can you remind me when my dentist appointment is?",
        "Do you remember my cat's name?",
    ],
)
def test_questions_about_what_thea_knows_are_questions(text: str) -> None:
    assert understand(text).kind is MessageKind.QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "I live in Leeds.",
        "Big news: we're moving!",
        "Update: I sold the bike and got a scooter.",
        "My sister Mia is a chef, she works in Porto.",
    ],
)
def test_statements_are_statements(text: str) -> None:
    assert understand(text).kind is MessageKind.STATEMENT


def test_a_greeting_before_a_statement_is_still_a_statement_and_both_parts_are_kept() -> None:
    read = understand("Hi! My name is Ana Lind.")
    assert read.kind is MessageKind.STATEMENT
    assert [p.act for p in read.parts] == [Act.SMALL_TALK, Act.STATEMENT]
    assert read.statements == ["My name is Ana Lind."]


def test_a_greeting_before_a_comma_is_greeted_back_and_not_part_of_the_statement() -> None:
    read = understand("Hello, I'm Raj Mehta, I own a bicycle repair shop in Bristol.")
    assert read.kind is MessageKind.STATEMENT
    assert read.texts(Act.SMALL_TALK) == ["Hello!"]
    assert read.statements == ["I'm Raj Mehta, I own a bicycle repair shop in Bristol."]


@pytest.mark.parametrize(
    ("message", "told"),
    [
        ("hello dear, my name is Margaret", "My name is Margaret"),
        ("Heyyy, I'm Jess.", "I'm Jess."),
        ("hiii! I live in Hull.", "I live in Hull."),
    ],
)
def test_a_stretched_greeting_or_one_with_whom_it_greets_is_not_told(message: str, told: str) -> None:
    read = understand(message)
    assert read.statements == [told]
    assert len(read.texts(Act.SMALL_TALK)) == 1


def test_a_statement_with_a_request_is_a_mix_with_both_parts() -> None:
    read = understand("I'm allergic to peanuts. Any snack ideas?")
    assert read.kind is MessageKind.MIX
    assert read.statements == ["I'm allergic to peanuts."]
    assert read.asks_for_help


@pytest.mark.parametrize("text", ["Hi!", "Thanks, that was helpful!", "Thank you so much", "ok great"])
def test_small_talk(text: str) -> None:
    assert understand(text).kind is MessageKind.SMALL_TALK


def test_only_statements_tell_anything() -> None:
    assert MessageKind.STATEMENT.tells
    assert MessageKind.MIX.tells
    assert not any(k.tells for k in (MessageKind.QUESTION, MessageKind.REQUEST, MessageKind.SMALL_TALK))


def test_questions_about_earlier_values_and_about_the_conversation_are_recognised() -> None:
    assert asks_history("Where did I live before the move?")
    assert asks_history("What car did I have previously?")
    assert not asks_history("Where do I live now?")
    assert asks_conversation("What did I ask you about Lisbon?")
    assert not asks_conversation("When is the Lisbon trip?")


def test_a_statement_before_a_request_in_one_sentence_is_told() -> None:
    from services.common.understanding import Act, understand

    for message, told in [
        ("I'm Dana, I'm pescatarian - can you suggest a quick lunch?", "I'm Dana, I'm pescatarian."),
        ("My knee is bad, any tips for staying active?", "My knee is bad."),
    ]:
        parts = understand(message).parts
        assert [p.act for p in parts] == [Act.STATEMENT, Act.REQUEST]
        assert parts[0].text == told
        assert understand(message).told == [told]
    # what only says the request is thought over stays part of it
    assert understand("I'm wondering what to do with the garden, any tips?").kind.value == "request"


def test_a_bare_age_in_an_introduction_is_told_not_asked() -> None:
    # "34." was a fragment, so the introduction was answered as if it asked something
    from services.common.understanding import understand
    from thea.models import MessageKind

    assert (
        understand("Kim here. 34. Paramedic, living in Derby with my partner Alex").kind
        is MessageKind.STATEMENT
    )


@pytest.mark.parametrize(
    ("message", "told"),
    [
        # first contact, set 22: the request for help was read as news and got no help
        (
            "so we're doing a harambee for achieng's fees on 12 oct at st mary's hall, target ni 150k, "
            "can u suggest how i write the whatsapp poster msg so watu wakuje 🙏 then ill sort the chairs",
            "so we're doing a harambee for achieng's fees on 12 oct at st mary's hall, target ni 150k.",
        ),
        ("my mums 70th is on the 3rd, could ya think of a gift under 50 quid", "my mums 70th is on the 3rd."),
        ("im coeliac now - can u give me a pasta recipe", "im coeliac now."),
        ("Tomás starts school monday, would u help me pack his bag", "Tomás starts school monday."),
    ],
)
def test_a_request_typed_with_u_for_you_is_a_request_after_what_it_tells(message: str, told: str) -> None:
    """The words "u" and "ya" are "you" as people type it: what such a sentence asks is asked, and what it
    tells before is told."""
    parts = understand(message).parts
    assert [p.act for p in parts] == [Act.STATEMENT, Act.REQUEST]
    assert understand(message).told == [told]
    assert understand(message.replace(" u ", " you ").replace(" ya ", " you ")).told == [told]
    assert understand("can u recommend a good podcast for my commute?").kind is MessageKind.REQUEST


@pytest.mark.parametrize(
    "text",
    [
        "if i get the 6:12 from ashbury what time do i get into port ellis",
        "if i catch the 8:45 from quayside when am i in marsh end",
        "ok so when are we meant to be there",
        "sorry one more thing where do i hand in the form",
        "after the meeting how much do we owe them",
    ],
)
def test_a_question_after_another_clause_without_a_question_mark_asks(text: str) -> None:
    assert understand(text).kind is not MessageKind.STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "We moved to Leeds, which is why we are tired.",
        "That is what we are doing this weekend.",
        "I remember when we were married in Porto.",
        "the kids know what time it is",
        "this is how it is now",
        "I'm painting the hall but I'm not sure how to do it yet.",
    ],
)
def test_a_question_word_inside_a_statement_does_not_make_it_ask(text: str) -> None:
    assert understand(text).kind is MessageKind.STATEMENT
