"""Whom a question names, read off the claims: by a name, or by a relation in its own form."""

from __future__ import annotations

import pytest

from services.cycle.fact_match import named_subjects, subject_names
from tests.claims_support import claim

RECORD = [
    claim(
        "the school ordered Cien años de soledad",
        "status",
        "ordered",
        subject="Cien años de soledad",
        relation="book",
    ),
    claim("our dog Tango is eleven", "age", "eleven", subject="Tango", relation="dog"),
    claim(
        "my daughter Carolina lives in Montevideo",
        "home",
        "Montevideo",
        subject="Carolina",
        relation="daughter",
    ),
    claim("our cat Duke sleeps all day", "habit", "sleeps all day", subject="Duke", relation="cat"),
    claim("my partner Ravi is a nurse", "job", "nurse", subject="Ravi", relation="partner"),
]
#: each subject's key, by the name the claims show
KEYS = {f.subject: f.subject_key for f in RECORD}


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Originally, what date had the cataract procedure been booked for?", set()),
        ("When did I book the flights?", {"Cien años de soledad"}),
        ("Which books are on the school's list?", {"Cien años de soledad"}),
        ("How old is my dog?", {"Tango"}),
        ("Are the dogs allowed on the sofa?", {"Tango"}),
        ("Where is my daughter's household relocating to?", {"Carolina"}),
        ("How are my daughters doing?", {"Carolina"}),
        ("Who is Tango's vet?", {"Tango"}),
        ("Which partners did the firm take on?", {"Ravi"}),
        ("When did we start partnering with them?", set()),
        ("What did the vet say about Duke?", {"Duke"}),
        ("Is the cat dueling with the dog?", {"Duke", "Tango"}),
        ("Was anything catered?", set()),
    ],
)
def test_a_question_names_a_subject_by_its_name_or_its_relation_not_by_a_verb_of_its_stem(
    question: str, named: set[str]
) -> None:
    """First contact set 17: "had the cataract procedure been booked for?" named the book list
    ("booked" has the stem of the relation "book"), and the right line was taken as about someone
    else. A relation is named by its own word (a plural too), a name by any of its words."""
    assert set(named_subjects(question, RECORD)) == {KEYS[name] for name in named}


def test_the_names_of_the_subjects_named_are_shown_as_the_claims_hold_them() -> None:
    assert subject_names("Is my dog still limping?", RECORD) == ["Tango"]
    assert subject_names("Was the appointment booked?", RECORD) == []
