"""An insight's embellishment in a ", which ..." clause is a claim of its own, and fails alone."""

from __future__ import annotations

import pytest

from services.reflection.grounding import Sources, check_claims, claims_of


def test_an_added_which_clause_is_checked_on_its_own() -> None:
    said = Sources([("m1", "UserImpulse", "My husband Karim teaches history at a sixth-form college.")])
    embellished = "Karim teaches history at a sixth-form college, which is a prestigious institution."
    assert claims_of(embellished) == [
        "Karim teaches history at a sixth-form college",
        "which is a prestigious institution.",
    ]
    verdict = check_claims(embellished, said, None)
    assert not verdict.supported
    assert check_claims("Karim teaches history at a sixth-form college.", said, None).supported


@pytest.mark.parametrize(
    ("said", "swapped", "kept"),
    [
        (
            "the Glasgow conference is on the 21st of January, not the 14th",
            "The Glasgow conference is on the 14th of January, not the 21st of January.",
            "The Glasgow conference is on the 21st of January, not the 14th.",
        ),
        (
            "The bus leaves at 8:15 and comes back at 3:40.",
            "The bus leaves at 3:40 and comes back at 8:15.",
            "The bus leaves at 8:15 and comes back at 3:40.",
        ),
        (
            "We moved from flat 12 to flat 4 in May.",
            "The user moved from flat 4 to flat 12 in May.",
            "The user moved from flat 12 to flat 4 in May.",
        ),
    ],
)
def test_an_insight_that_swaps_the_users_numbers_is_not_supported(said: str, swapped: str, kept: str) -> None:
    """Seen live: the slow loop's model turned a correction round ("on the 21st, not the 14th" ->
    "on the 14th, not the 21st"), with every word of it in what was said."""
    sources = Sources([("m1", "UserImpulse", said)])
    verdict = check_claims(swapped, sources, None)
    assert not verdict.supported
    assert "order" in verdict.reason
    assert check_claims(kept, sources, None).supported


@pytest.mark.parametrize(
    ("said", "insight"),
    [
        (
            "so we moved the Lisbon trip, it's the 19th of April now",
            "The Lisbon trip was moved to April 19th, 2023.",
        ),
        (
            "got a new job! starting at Southmead hospital in May, still physio",
            "The user starts at Southmead in May 2024.",
        ),
        (
            "we have a ginger cat called Toffee",
            "The user has a ginger cat called Toffee, who is 3 years old.",
        ),
    ],
)
def test_an_insight_stating_a_number_the_user_never_said_is_unsupported(said: str, insight: str) -> None:
    """A crystal said "April 19th, 2023" of a trip told as "the 19th of April" (live trial); the
    year then came back in answers as if it were told."""
    verdict = check_claims(insight, Sources([("m1", "UserImpulse", said)]), None)
    assert not verdict.supported
    assert "never said" in verdict.reason
