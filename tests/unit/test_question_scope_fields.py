"""Who could answer a question, as the claims model's two fields say it, also when the kind of
thing is written in the wrong field (seen live: "is there anything i cant eat?" read as
{"about": "the user's own", "known": "you"}; taken as "anyone", the answering model refused)."""

from __future__ import annotations

import pytest

from services.prompts.question_scope import Answerer, Known, QuestionScope


@pytest.mark.parametrize(
    ("about", "known", "asks"),
    [
        ("the user's own", Known.YOU, Answerer.ONLY_THE_USER),
        ("The User\u2019s Own.", Known.GENERAL, Answerer.ONLY_THE_USER),
        (' "the user\'s own" ', Known.FAMOUS, Answerer.ONLY_THE_USER),
        ("Dev", Known.USERS_OWN, Answerer.ONLY_THE_USER),
        ("Mick Jagger", Known.FAMOUS, Answerer.ANYONE),
        ("you", Known.YOU, Answerer.ANYONE),
        ("the user's own cat", Known.GENERAL, Answerer.ANYONE),  # words, not the kind
    ],
)
def test_the_users_own_in_either_field_is_only_the_users_to_answer(
    about: str, known: Known, asks: Answerer
) -> None:
    assert QuestionScope(about=about, known=known).asks is asks


@pytest.mark.parametrize(
    ("question", "about", "known", "asks"),
    [
        # the 1.5B says the asker's "I" in the assistant's voice (probe, 2026-12-05)
        ("How old am I?", "you", Known.YOU, Answerer.ONLY_THE_USER),
        ("What medication am I on?", "you", Known.YOU, Answerer.ONLY_THE_USER),
        ("how much do i weigh now", "You", Known.GENERAL, Answerer.ONLY_THE_USER),
        ("How old am I?", "the user", Known.YOU, Answerer.ONLY_THE_USER),
        ("Do I have any allergies?", "my allergies", Known.GENERAL, Answerer.ONLY_THE_USER),
        ("Where did I grow up?", "I", Known.GENERAL, Answerer.ONLY_THE_USER),
        # a question put to the assistant is still the assistant's
        ("What do you like doing?", "you", Known.YOU, Answerer.ANYONE),
        ("what's your name", "your name", Known.YOU, Answerer.ANYONE),
        ("how r u today", "u", Known.YOU, Answerer.ANYONE),
        # a kind of thing is anyone's, whoever asks
        ("Is it bad if I drink coffee late at night?", "coffee", Known.GENERAL, Answerer.ANYONE),
        ("Why do I get hiccups?", "hiccups", Known.GENERAL, Answerer.ANYONE),
    ],
)
def test_whom_a_question_is_about_said_in_the_assistants_voice_is_the_one_asking(
    question: str, about: str, known: Known, asks: Answerer
) -> None:
    assert QuestionScope(about=about, known=known).answerer(question) is asks
