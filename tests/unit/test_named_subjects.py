"""Whom a question names, read off the claims: by a name, or by a relation in its own form."""

from __future__ import annotations

import pytest

from services.cycle.fact_match import named_subjects, subject_names
from thea.models import Fact


def _of(name: str, relation: str) -> Fact:
    return Fact(
        id=f"f-{name}",
        content=name,
        quote=name,
        subject_key=name.casefold(),
        subject=name,
        relation=relation,
        attribute="title" if relation == "book" else "name",
        value=name,
        created_at=1,
    )


RECORD = [
    _of("Cien años de soledad", "book"),
    _of("Tango", "dog"),
    _of("Carolina", "daughter"),
    _of("Duke", "cat"),
    _of("Ravi", "partner"),
]


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Originally, what date had the cataract procedure been booked for?", set()),
        ("When did I book the flights?", {"cien años de soledad"}),
        ("Which books are on the school's list?", {"cien años de soledad"}),
        ("How old is my dog?", {"tango"}),
        ("Are the dogs allowed on the sofa?", {"tango"}),
        ("Where is my daughter's household relocating to?", {"carolina"}),
        ("How are my daughters doing?", {"carolina"}),
        ("Who is Tango's vet?", {"tango"}),
        ("Which partners did the firm take on?", {"ravi"}),
        ("When did we start partnering with them?", set()),
        ("What did the vet say about Duke?", {"duke"}),
        ("Is the cat dueling with the dog?", {"duke", "tango"}),
        ("Was anything catered?", set()),
    ],
)
def test_a_question_names_a_subject_by_its_name_or_its_relation_not_by_a_verb_of_its_stem(
    question: str, named: set[str]
) -> None:
    """First contact set 17: "had the cataract procedure been booked for?" named the book list
    ("booked" has the stem of the relation "book"), and the right line was taken as about someone
    else. A relation is named by its own word (a plural too), a name by any of its words."""
    assert set(named_subjects(question, RECORD)) == named


def test_the_names_of_the_subjects_named_are_shown_as_the_claims_hold_them() -> None:
    assert subject_names("Is my dog still limping?", RECORD) == ["Tango"]
    assert subject_names("Was the appointment booked?", RECORD) == []
