"""A message that tells something, read again with what the model says it asks (first contact,
set 14): a request inside news is answered, a sentence taken for a question that asks nothing is
reacted to. Over several ways people put it; the model's reading is given, code places it."""

from __future__ import annotations

import pytest

from services.common.statements import without_acknowledgement
from services.common.understanding import Act, understand
from services.cycle.asked import reread
from services.cycle.voice import VoiceStream
from services.prompts.asked_beside_news import Asked, AskedBesideNews
from tests.claims_support import REQUESTS_IN_NEWS
from thea.models import MessageKind


@pytest.mark.parametrize(("message", "asked"), REQUESTS_IN_NEWS)
def test_a_request_inside_news_is_read_as_one_and_the_news_stays_told(message: str, asked: str) -> None:
    read = reread(understand(message), AskedBesideNews(asked=asked, asks=Asked.HELP))
    assert read.kind is MessageKind.MIX
    assert read.asks_for_help
    assert not read.asks_memory
    assert [p.text for p in read.parts if p.act is Act.REQUEST] == [asked]
    assert read.statements  # what it tells is still acknowledged and read


@pytest.mark.parametrize(
    "message",
    [
        "finally bought my own scooter, paid 560k. e go help me get to work every day",
        "got the keys to the flat. the bus helps me get to the office on time",
        "Mum moved to Galway. I wonder if she likes the rain",
    ],
)
def test_news_the_model_reads_as_asking_nothing_is_reacted_to(message: str) -> None:
    read = reread(understand(message), AskedBesideNews(asked="", asks=Asked.NOTHING))
    assert read.kind is MessageKind.STATEMENT
    assert not read.asks_memory
    assert not read.asks_for_help


def test_a_question_with_its_mark_stays_a_question_whatever_the_model_says() -> None:
    message = "We moved to Hove last week. where did I say the dentist was?"
    read = reread(understand(message), AskedBesideNews(asked="", asks=Asked.NOTHING))
    assert read.asks_memory


def test_words_the_message_does_not_hold_change_nothing() -> None:
    message = "Started at the bakery on Monday, early shifts from now on"
    before = understand(message)
    after = reread(before, AskedBesideNews(asked="what bread should I bake", asks=Asked.HELP))
    assert after == before


def test_a_question_of_the_users_life_inside_news_is_a_question() -> None:
    # (without its question mark, a sentence read as news stays news: see below)
    message = "started at the garage on monday. wat time did i say the dentist was?"
    read = reread(
        understand(message), AskedBesideNews(asked="wat time did i say the dentist was?", asks=Asked.MY_LIFE)
    )
    assert read.asks_memory
    assert not read.asks_for_help
    assert read.statements


@pytest.mark.parametrize(
    "answer",
    [
        "Got it, I'll remember that. Got it, I'll remember that. Try a Fluke 323.",
        "Hello! Got it, I'll remember that. Try a Fluke 323.",
        "Got it, I'll remember that.Try a Fluke 323.",
    ],
)
def test_the_acknowledgement_said_again_by_the_model_is_never_shown(answer: str) -> None:
    """First contact, set 14: "Got it, I'll remember that. Got it, I'll remember that. Got it,
    I'll remember that. The perfume ..." (thea's template, copied from the conversation)."""
    assert without_acknowledgement(answer) == "Try a Fluke 323."
    stream = VoiceStream([answer])
    shown = "".join(stream.feed(word + " ") for word in answer.split()) + stream.finish()
    assert "remember" not in shown
    assert "Fluke 323" in shown


@pytest.mark.parametrize(
    ("message", "copied"),
    [
        (
            "Sad day. We had to let the cat go on Tuesday. Kidney failure, the vet said",
            "Kidney failure, the vet said",
        ),
        ("my grandad passed last night. he was 91", "he was 91"),
        ("Lost my job today. The whole team was let go", "The whole team was let go"),
    ],
)
def test_news_the_model_misreads_as_a_question_without_a_question_mark_stays_news(
    message: str, copied: str
) -> None:
    """First contact, set 15: "Kidney failure, the vet said he was suffering" was read as asking
    about the user's life, and the message about a pet's death got an answer, not a reaction."""
    before = understand(message)
    after = reread(before, AskedBesideNews(asked=copied, asks=Asked.MY_LIFE))
    assert not {Act.QUESTION, Act.REQUEST} & after.acts


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        # first contact, set 22: answered "I don't know." as if help had been asked
        (
            "Kerem sat us down at dinner on Sunday to announce that he no longer wishes to become an "
            "architect; he has decided to apply for computer engineering, and he has asked me never to "
            "mention drawing boards again.",
            "he has asked me never to mention drawing boards again",
        ),
        ("my sister rang, she wants me to find her a cheap flight to Malaga",
         "she wants me to find her a cheap flight"),
        ("Dad's retiring in May and he asked me to plan the party", "he asked me to plan the party"),
    ],
)  # fmt: skip
def test_what_someone_else_asked_the_user_is_news_not_a_request(message: str, asked: str) -> None:
    read = reread(understand(message), AskedBesideNews(asked=asked, asks=Asked.HELP))
    assert read.kind is MessageKind.STATEMENT
    assert not read.asks_for_help
