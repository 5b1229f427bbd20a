"""An answer that goes against a told health or diet constraint is found, one that minds it is not."""

from __future__ import annotations

from services.cycle.constraints import caution, conflicts
from tests.unit.test_fact_reading import history


def test_what_a_constraint_rules_out_is_found_in_a_careless_answer() -> None:
    facts = history("I'm vegetarian.", "My son is allergic to peanuts.", "I have type 1 diabetes.")
    found = conflicts("Grill some chicken, then add a satay sauce with honey.", facts)
    assert {c.words for c in found} == {("chicken",), ("satay",), ("honey",)}
    assert (
        caution(found[:1], "you're vegetarian.")
        == " (Careful: this mentions chicken, and you told me: you're vegetarian.)"
    )


def test_an_answer_that_minds_the_constraint_or_names_it_is_left_alone() -> None:
    facts = history("I'm coeliac.", "I'm lactose intolerant.")
    assert conflicts("Use gluten-free pasta and skip the cheese.", facts) == []
    assert conflicts("As a coeliac you should check the pasta label.", facts) == []
    assert conflicts("A bowl of rice with roasted vegetables.", facts) == []
