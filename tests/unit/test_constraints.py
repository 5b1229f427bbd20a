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
    # a plant-based stand-in is no dairy, a real one beside it still is
    assert conflicts("Mix the granola with 1/4 cup almond milk and berries.", facts) == []
    assert conflicts("Top the oats with soy yoghurt.", facts) == []
    assert [c.words for c in conflicts("Add coconut cream, then grate some cheese.", facts)] == [("cheese",)]


def test_may_i_have_something_a_told_constraint_rules_out_gets_better_not_with_the_fact() -> None:
    from benchmarks.live_memory_facts import replay
    from services.cycle.constraints import about_food, may_i_have

    told = [f for f in replay(["I'm lactose intolerant, so no milk for me."]) if f.category == "constraint"]
    advice = may_i_have("Can I have a latte?", told)
    assert advice is not None
    assert advice.text.startswith("Better not, going by what you told me: you're lactose intolerant")
    assert "dairy" in advice.text
    assert advice.facts == tuple(told)
    # minded, unrelated, or not asking leave it to the model (which gets the constraint: about food)
    assert may_i_have("Can I have a latte with oat milk?", told) is None
    assert may_i_have("Can I have a cup of tea?", told) is None
    assert may_i_have("What's a latte?", told) is None
    assert about_food("Can I have a latte?")
    assert not about_food("When is my dentist appointment?")


def test_an_allergy_to_a_food_no_rule_knows_rules_out_that_food() -> None:
    from services.cycle.constraints import may_i_have

    told = [f for f in history("I have a mango allergy.") if f.category == "constraint"]
    assert [c.words for c in conflicts("Top it with sliced mango and lime.", told)] == [("mango",)]
    advice = may_i_have("Can I have a mango smoothie?", told)
    assert advice is not None
    assert advice.text.startswith("Better not, going by what you told me: you have a mango allergy.")
    assert may_i_have("Can I have a banana smoothie?", told) is None
