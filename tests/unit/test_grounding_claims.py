"""An insight's embellishment in a ", which ..." clause is a claim of its own, and fails alone."""

from __future__ import annotations

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
