"""Which questions get "I don't know" without a model call (services/cycle/not_told.py)."""

from __future__ import annotations

import pytest

from services.cycle.not_told import bears_on, is_personal_question, topic_words, unknown_to_me
from services.recall.types import RecallHit


def hit(text: str, kind: str = "UserImpulse") -> RecallHit:
    return RecallHit(id=text[:8], type=kind, text=text, score=1.0)


@pytest.mark.parametrize(
    "question",
    [
        "What is my sister's name?",
        "Which phone do I own?",
        "Where did I study?",
        "Tell me about my job in two sentences.",
        "Do I have any pets?",
        "Remind me where I parked.",
        # the speaker with others: "we", "our", "X and I" (pronouns, closed-class)
        "When are Bernie and I off to Lisbon now?",
        "Where were we living before the move?",
        "Which area is our new flat in?",
        "are we still going to bali?",
        # a question word with its "is" run on, typed in a hurry, no question mark
        "whats my moms name",
        "wheres my brother living now",
        "hows my knee op going",
    ],
)
def test_questions_about_the_user_are_personal(question: str) -> None:
    assert is_personal_question(question)


@pytest.mark.parametrize(
    "message",
    [
        "What is the capital of France?",
        "How do I reverse a list in Python?",
        "How do I fix my bike's chain?",
        "Should I buy a car?",
        "Should we paint the hall blue?",
        "How do we get to the station from here?",
        "Can you help me write a poem?",
        "My name is Ana.",
        "Which river is Riverbell next to?",
    ],
)
def test_general_questions_requests_and_statements_are_not(message: str) -> None:
    assert not is_personal_question(message)


def test_the_frame_of_a_question_is_not_its_topic() -> None:
    assert topic_words("What is my sister's name?") == ["sister"]
    assert topic_words("What is my name?") == ["name"]  # nothing else to go by
    assert topic_words("Which car do I drive?") == ["car", "drive"]


def test_a_personal_question_nothing_bears_on_is_not_known() -> None:
    hits = [hit("My name is Ana Lindqvist."), hit("I have a grey cat named Pepper.")]
    answer = unknown_to_me("What is my sister's name?", hits)
    assert answer is not None
    assert "don't know" in answer
    assert "“sister”" in answer
    assert unknown_to_me("Which phone do I own?", []) is not None


def test_a_shared_word_in_what_the_user_told_bears_on_it() -> None:
    hits = [hit("I have a grey cat named Pepper.")]
    assert unknown_to_me("What is my cat called?", hits) is None
    assert unknown_to_me("What is my name?", [hit("My name is Ana.")]) is None
    assert bears_on(["cats"], hits)  # stems: cats ~ cat


def test_the_users_own_questions_and_theas_answers_are_no_evidence() -> None:
    asked = hit("What is my sister's name?")
    guessed = hit("Your sister is called Mia.", "FinalResponse")
    assert unknown_to_me("What is my sister's name?", [asked, guessed]) is not None
    assert unknown_to_me("What is my sister's name?", [hit("My sister Mia lives in Oslo.", "Fact")]) is None


class WordEmbedder:
    """Words of one meaning group get the same vector, others orthogonal ones."""

    groups = [{"job", "work", "nurse"}, {"sister"}]

    def _vector(self, word: str) -> list[float]:
        known = [1.0 if word in g else 0.0 for g in self.groups]
        return [*known, 0.0 if any(known) else 1.0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def test_a_word_close_in_meaning_bears_on_it() -> None:
    hits = [hit("I work as a nurse at St Olav.")]
    assert unknown_to_me("What is my job?", hits) is not None  # no embedder: no shared word
    assert unknown_to_me("What is my job?", hits, WordEmbedder()) is None  # type: ignore[arg-type]
    assert unknown_to_me("What is my sister's name?", hits, WordEmbedder()) is not None  # type: ignore[arg-type]
