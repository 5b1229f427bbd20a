"""Whom a claim is about, settled by the user's record (services/knowledge/claims/subjects.py):
a relation that only names the attribute takes the one the record gives the subject, and a
correction of someone else that the model put on the user goes to the subject the record holds
it of, over several wordings; what the record cannot place stays as read."""

from __future__ import annotations

import pytest

from services.knowledge.claims.subjects import settled_subjects
from services.knowledge.claims.verify import checked_claims
from services.prompts.extract_claims import ClaimKind, ClaimOut
from tests.claims_support import claim, said
from thea.models import Fact

CORRECTS = ClaimKind.CORRECTS


def settled(text: str, read: list[ClaimOut], record: list[Fact]) -> list[tuple[str, str, str, str]]:
    checked, _ = checked_claims(read, text)
    return [
        ("user" if c.about_user else c.claim.subject, c.claim.relation, c.claim.attribute, c.claim.value)
        for c in settled_subjects(checked, record)
    ]


def told(subject: str, relation: str, attribute: str, value: str, text: str) -> Fact:
    return claim(text, attribute, value, subject=subject, relation=relation)


@pytest.mark.parametrize(
    ("text", "read", "record", "expected"),
    [
        (  # set 6: the son's corrected age read as the user's
            "oh wait i told u yaw is 4 but nah hes 5 already",
            said("i told u yaw is 4 but nah hes 5 already", "age", "5", kind=CORRECTS),
            [told("yaw", "son", "age", "4", "our son yaw, hes 4")],
            ("yaw", "son", "age", "5"),
        ),
        (  # named by relation, not by name
            "Sorry, my daughter is allergic to kiwi, not mango.",
            said("my daughter is allergic to kiwi, not mango", "allergy", "kiwi", kind=CORRECTS),
            [told("Ada", "daughter", "allergy", "mango", "Ada, my daughter, is allergic to mango")],
            ("Ada", "daughter", "allergy", "kiwi"),
        ),
        (
            "Correction: Bruno is a boxer, not a beagle.",
            said("Bruno is a boxer, not a beagle", "breed", "boxer", kind=CORRECTS),
            [told("Bruno", "dog", "breed", "beagle", "our dog Bruno is a beagle")],
            ("Bruno", "dog", "breed", "boxer"),
        ),
    ],
)
def test_a_correction_of_someone_the_record_holds_it_of_is_theirs(
    text: str, read: ClaimOut, record: list[Fact], expected: tuple[str, str, str, str]
) -> None:
    assert settled(text, [read], record) == [expected]


def test_what_the_record_cannot_place_stays_as_read() -> None:
    record = [told("yaw", "son", "age", "4", "our son yaw, hes 4")]
    # the user's own age, in a message that names the son
    assert settled("I'm 34 and yaw is 4", [said("I'm 34", "age", "34")], record) == [
        ("user", "self", "age", "34")
    ]
    # the user holds the attribute too: whose it is stays the model's reading
    mine = [*record, told("user", "self", "age", "33", "I'm 33")]
    assert settled("yaw is 4 but I'm 34 now", [said("yaw is 4 but I'm 34 now", "age", "34")], mine) == [
        ("user", "self", "age", "34")
    ]
    # a home the son does not hold: the user's, though the quote names him
    assert settled(
        "we moved to Takoradi with yaw", [said("we moved to Takoradi with yaw", "home", "Takoradi")], record
    ) == [("user", "self", "home", "Takoradi")]


@pytest.mark.parametrize(
    ("text", "read", "record"),
    [
        (  # the relation given in this message
            "our son yaw, hes 4",
            [
                said("our son yaw", "name", "yaw", subject="yaw", relation="son"),
                said("hes 4", "age", "4", subject="yaw", relation="age"),
            ],
            [],
        ),
        (  # the relation the record gives
            "Yaw turned 5 in October",
            [said("Yaw turned 5", "age", "5", subject="Yaw", relation="age")],
            [told("Yaw", "son", "name", "Yaw", "our son Yaw")],
        ),
        (  # no relation said at all
            "Yaw is 5 now",
            [said("Yaw is 5", "age", "5", subject="Yaw", relation="")],
            [told("Yaw", "son", "name", "Yaw", "our son Yaw")],
        ),
    ],
)
def test_a_relation_that_only_names_the_attribute_is_the_one_the_subject_has(
    text: str, read: list[ClaimOut], record: list[Fact]
) -> None:
    relations = {(s.lower(), r) for s, r, _a, _v in settled(text, read, record)}
    assert relations == {("yaw", "son")}


def test_a_relation_the_model_gives_stands() -> None:
    record = [told("Jess", "girlfriend", "name", "Jess", "my girlfriend Jess")]
    read = [said("my wife Jess", "name", "Jess", subject="Jess", relation="wife")]
    assert settled("my wife Jess", read, record) == [("Jess", "wife", "name", "Jess")]


@pytest.mark.parametrize(
    ("text", "read", "record", "expected"),
    [
        (  # live: the son's football read as a friend's
            "Femi's got football at 6",
            said("Femi's got football at 6", "activity", "football", subject="Femi", relation="friend"),
            told("Femi", "son", "age", "9", "a son, Femi, he's 9"),
            "son",
        ),
        (
            "Jess starts her new job on Monday",
            said("Jess starts her new job", "job", "new job", subject="Jess", relation="friend"),
            told("Jess", "girlfriend", "name", "Jess", "my girlfriend Jess"),
            "girlfriend",
        ),
        (
            "Biscuit chewed the sofa again",
            said("Biscuit chewed the sofa", "habit", "chewed the sofa", subject="Biscuit", relation="pet"),
            told("Biscuit", "dog", "name", "Biscuit", "a spaniel called Biscuit"),
            "dog",
        ),
        (  # the quote names the new relation: it stands
            "Sam and I got married, so my husband Sam now",
            said("my husband Sam", "name", "Sam", subject="Sam", relation="husband"),
            told("Sam", "boyfriend", "name", "Sam", "my boyfriend Sam"),
            "husband",
        ),
    ],
)
def test_a_relation_the_quote_does_not_name_is_the_one_the_record_gives(
    text: str, read: ClaimOut, record: Fact, expected: str
) -> None:
    assert [r for _s, r, _a, _v in settled(text, [read], [record])] == [expected]


@pytest.mark.parametrize(
    ("text", "read", "record", "expected"),
    [
        (  # first contact, set 22: the correction closed the user's own age
            "I am sorry, I got something wrong: my mother is not seventy-four but seventy-six.",
            said("my mother is not seventy-four but seventy-six", "mother age", "seventy-six", kind=CORRECTS),
            [told("Nermin", "mother", "home", "Bursa", "My mother, Nermin, lives in Bursa"),
             told("user", "self", "age", "forty-seven", "I am forty-seven")],
            ("Nermin", "mother", "age", "seventy-six"),
        ),
        (
            "my wife's job is at the bakery on Mill Lane now",
            said("my wife's job is at the bakery on Mill Lane now", "wife's job", "bakery on Mill Lane",
                 kind=ClaimKind.REPLACES),
            [told("Jess", "wife", "name", "Jess", "my wife Jess")],
            ("Jess", "wife", "job", "bakery on Mill Lane"),
        ),
        (
            "Tomás starts at Park Primary in September",
            said("Tomás starts at Park Primary in September", "son school", "Park Primary"),
            [told("Tomás", "son", "age", "4", "our son Tomás is 4")],
            ("Tomás", "son", "school", "Park Primary"),
        ),
    ],
)  # fmt: skip
def test_someone_elses_attribute_put_on_the_user_under_a_label_naming_their_relation_is_theirs(
    text: str, read: ClaimOut, record: list[Fact], expected: tuple[str, str, str, str]
) -> None:
    assert settled(text, [read], record) == [expected]
    # a label that only is the relation ("mother: Nermin") or a relation the record does not
    # give anyone stays the user's
    assert settled("my sister is Ana", [said("my sister is Ana", "sister", "Ana")], record) == [
        ("user", "self", "sister", "Ana")
    ]
    assert settled(
        "my boss's name is Priti", [said("my boss's name is Priti", "boss name", "Priti")], record
    ) == [("user", "self", "boss name", "Priti")]


def test_a_relative_the_message_also_names_by_relation_alone_is_the_one_the_record_names() -> None:
    """Read live (set 22): "mother, age: seventy-six" and "user, mother age: seventy-six" from one
    correction; the record's Nermin is the mother both mean."""
    text = "I am sorry, I got something wrong: my mother is not seventy-four but seventy-six."
    quote = "my mother is not seventy-four but seventy-six"
    record = [told("Nermin", "mother", "home", "Bursa", "My mother, Nermin, lives in Bursa")]
    alone = said(quote, "age", "seventy-six", subject="mother", relation="mother", kind=CORRECTS)
    mine = said(quote, "mother age", "seventy-six", kind=CORRECTS)
    assert settled(text, [alone, mine], record)[1] == ("Nermin", "mother", "age", "seventy-six")
