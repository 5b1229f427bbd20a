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
