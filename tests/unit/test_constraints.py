"""An answer that goes against a told health or diet constraint is found, one that minds it is not."""

from __future__ import annotations

import pytest

from services.cycle.constraints import caution, conflicts, told_not_held
from services.prompts.extract_claims import ClaimKind
from tests.claims_support import claim
from thea.models import UserImpulse


def history(*told: tuple[str, str, str]) -> list:  # type: ignore[type-arg]
    """Constraint claims: (what was said, attribute, value)."""
    return [claim(text, attribute, value) for text, attribute, value in told]


def test_what_a_constraint_rules_out_is_found_in_a_careless_answer() -> None:
    facts = history(
        ("I'm vegetarian.", "diet", "vegetarian"),
        ("My son is allergic to peanuts.", "allergy", "peanuts"),
        ("I have type 1 diabetes.", "health", "type 1 diabetes"),
    )
    found = conflicts("Grill some chicken, then add a satay sauce with honey.", facts)
    assert {c.words for c in found} == {("chicken",), ("satay",), ("honey",)}
    assert (
        caution(found[:1], "you're vegetarian.")
        == " (Careful: this mentions chicken, and you told me: you're vegetarian.)"
    )


def test_an_answer_that_minds_the_constraint_or_names_it_is_left_alone() -> None:
    facts = history(
        ("I'm coeliac.", "diet", "coeliac"), ("I'm lactose intolerant.", "diet", "lactose intolerant")
    )
    assert conflicts("Use gluten-free pasta and skip the cheese.", facts) == []
    assert conflicts("As a coeliac you should check the pasta label.", facts) == []
    assert conflicts("A bowl of rice with roasted vegetables.", facts) == []
    # a plant-based stand-in is no dairy, a real one beside it still is
    assert conflicts("Mix the granola with 1/4 cup almond milk and berries.", facts) == []
    assert conflicts("Top the oats with soy yoghurt.", facts) == []
    assert [c.words for c in conflicts("Add coconut cream, then grate some cheese.", facts)] == [("cheese",)]


def test_may_i_have_something_a_told_constraint_rules_out_gets_better_not_with_the_fact() -> None:
    from services.cycle.constraints import about_food, may_i_have

    told = history(("I'm lactose intolerant, so no milk for me.", "diet", "lactose intolerant"))
    advice = may_i_have("Can I have a latte?", told)
    assert advice is not None
    assert advice.text.startswith("Better not, going by what you told me: \u201cI'm lactose intolerant")
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

    told = history(("I have a mango allergy.", "allergy", "mango"))
    assert [c.words for c in conflicts("Top it with sliced mango and lime.", told)] == [("mango",)]
    advice = may_i_have("Can I have a mango smoothie?", told)
    assert advice is not None
    assert advice.text.startswith(
        "Better not, going by what you told me: \u201cI have a mango allergy.\u201d"
    )
    assert may_i_have("Can I have a banana smoothie?", told) is None


def test_what_a_request_minding_the_constraint_asked_for_is_not_flagged() -> None:
    # the terminal trial: "(Careful: this mentions flour, pancakes, ...)" for a gluten free pancake recipe
    facts = history(("I'm coeliac.", "diet", "coeliac"))
    answer = "Here is a simple recipe. Mix 1 cup all-purpose flour. Fry until the pancakes are golden."
    minded = conflicts(answer, facts, "Can you give me an easy gluten free pancake recipe?")
    assert [c.words for c in minded] == [("flour",)]
    plain = conflicts(answer, facts, "Can you give me an easy pancake recipe?")
    assert [c.words for c in plain] == [("flour", "pancakes")]  # not asked minding it: still flagged


def test_a_food_that_is_itself_what_is_ruled_out_is_not_explained_by_itself() -> None:
    from services.cycle.constraints import may_i_have

    advice = may_i_have("Can I have a pork pie?", history(("I'm halal.", "diet", "halal")))
    assert advice is not None
    assert (
        advice.text == "Better not, going by what you told me: \u201cI'm halal.\u201d"
    )  # not "Pork usually means pork"


def test_advice_to_go_easy_on_something_rules_it_out_and_what_it_usually_is() -> None:
    from services.cycle.constraints import may_i_have

    # blind set 21: "Can I drink beer?" was answered "Yes, you can drink beer."
    told = [
        f
        for f in history(("got gout so the doc says go easy on red meat and beer", "health", "gout"))
        if f.category == "constraint"
    ]
    for question in ("Can I drink beer?", "can i have a steak tonight", "Can I have lamb chops?"):
        advice = may_i_have(question, told)
        assert advice is not None, question
        assert advice.text.startswith("Better not, going by what you told me: "), advice.text
        assert "go easy on red meat and beer" in advice.text
    assert may_i_have("Can I have a salad?", told) is None
    cut = [
        f
        for f in history(("My GP told me to cut down on caffeine.", "diet", "caffeine"))
        if f.category == "constraint"
    ]
    assert may_i_have("Can I have a latte?", cut) is not None
    assert may_i_have("Can I have a smoothie?", cut) is None
    # an answer that says to go easy on it minds it
    assert conflicts("Go easy on the beer and have a shandy.", told) == []


def test_a_bread_by_its_own_name_is_gluten() -> None:
    from services.cycle.constraints import may_i_have

    # blind set 24 through the product: a coeliac's "Can I eat sourdough?" got "Yes, you can eat sourdough."
    told = history(("I have coeliac disease", "health", "coeliac disease"))
    for question in ("Can I eat sourdough?", "Is sourdough safe for me?", "Can I have focaccia?"):
        advice = may_i_have(question, told)
        assert advice is not None, question
        assert "gluten" in advice.text


def test_being_careful_with_a_drink_is_minded() -> None:
    # blind set 32 through the product: "Can I drink cranberry juice?" -> "Yes, you can drink
    # cranberry juice." after "I take warfarin so I have to be careful with cranberry juice"
    from services.cycle.constraints import may_i_have

    facts = history(
        ("I take warfarin so I have to be careful with cranberry juice", "diet", "cranberry juice")
    )
    advice = may_i_have("Can I drink cranberry juice?", facts)
    assert advice is not None
    assert advice.text.startswith("Better not")
    assert may_i_have("Can I have orange juice?", [f for f in facts if f.category == "constraint"]) is None


def test_an_allergy_whose_value_ends_in_a_small_word_never_flags_that_word() -> None:
    """ "Sesame is my big allergy, seeds, oil, tahini, all of it." was read with the value "seeds,
    oil, tahini, all of it": every answer saying "it" was flagged as going against it."""
    for said, value in [
        ("Sesame is my big allergy, seeds, oil, tahini, all of it.", "seeds, oil, tahini, all of it"),
        ("Shellfish, I'm allergic to prawns and all of that.", "prawns and all of that"),
        ("My allergy is the one to them.", "the one to them"),
    ]:
        told = history((said, "allergy", value))
        assert conflicts("Mix it with lemon juice and serve it cold.", told) == []


def _said(text: str) -> UserImpulse:
    return UserImpulse(id="m1", content=text, user_id="u", created_at=1_700_000_000_000)


@pytest.mark.parametrize(
    ("message", "sentence"),
    [
        ("Hi! I'm coeliac, so no gluten for me. We live in Leeds.", "I'm coeliac, so no gluten for me."),
        ("we live in leeds and im lactose intolerant lol", "we live in leeds and im lactose intolerant lol"),
        ("Quick one: I have a severe peanut allergy.", "Quick one: I have a severe peanut allergy."),
    ],
)
def test_a_constraint_told_in_a_message_not_read_yet_stands_as_the_users_sentence(
    message: str, sentence: str
) -> None:
    (told,) = told_not_held([_said(message)], [])  # not read yet
    assert told.content == f"\u201c{sentence}\u201d"
    assert told.category == "constraint"
    assert conflicts("Try spaghetti, cheese on toast or satay.", [told])


@pytest.mark.parametrize(
    "answer",
    [
        "3. A light lunch box with fruits and vegetables, including nuts.",
        "Sprinkle some chopped nuts on top of the yoghurt.",
        "A handful of mixed nuts and a banana.",
        "A peanut butter sandwich with apple slices.",
    ],
)
def test_a_nut_allergy_not_read_yet_rules_out_nuts_by_that_name(answer: str) -> None:
    """Live: "... Sam is allergic to nuts" then, before the slow loop had read it, lunch box
    ideas "including nuts" were shown: the stand-in for the told sentence has no value to match,
    and the nut rule knew almonds and cashews but not nuts themselves."""
    (told,) = told_not_held([_said("my two kids are Sam (7) and Ada (5). Sam is allergic to nuts")], [])
    assert conflicts(answer, [told])
    assert conflicts("Nut-free flapjacks and a pear.", [told]) == []


@pytest.mark.parametrize(
    "message",
    [
        "Is gluten really that bad for you?",  # a question tells nothing
        (  # a pasted recipe is its writer's
            "Gluten-free brownies\nMakes 16 squares, ready in about forty minutes from start to finish.\n"
            "200 g dark chocolate, 150 g butter, 3 large eggs, 200 g caster sugar\n"
            "100 g ground almonds and a pinch of salt\n"
            "Melt, whisk, fold and bake 25 minutes at 180 C, no wheat flour or gluten in sight."
        ),
        "We live in Leeds and I love hiking.",  # nothing a rule knows
    ],
)
def test_what_tells_no_constraint_of_the_user_stands_for_none(message: str) -> None:
    assert told_not_held([_said(message)], []) == []


def test_a_constraint_the_reading_missed_stands_but_one_a_claim_holds_or_that_ended_does_not() -> None:
    message = _said("hey im jordan, 27. btw im lactose intolerant so no dairy pls")
    job = claim("hey im jordan, 27", "age", "27", quote="hey im jordan, 27", source_id="m1")
    (missed,) = told_not_held([message], [job])  # read, but nothing of the constraint kept
    assert "lactose intolerant" in missed.content
    held = claim(
        "btw im lactose intolerant so no dairy pls", "diet", "lactose intolerant", source_id="m1"
    ).model_copy(update={"category": "constraint"})
    assert told_not_held([message], [job, held]) == []
    ended = held.model_copy(update={"category": "general", "valid_until": 1_800_000_000_000})
    assert told_not_held([message], [job, ended]) == []


@pytest.mark.parametrize("told", ["I'm vegan", "I'm vegetarian", "we don't eat meat"])
@pytest.mark.parametrize("suggested", ["a grilled turkey sandwich", "duck with plums", "sausages and mash"])
def test_what_a_vegetarian_does_not_eat_a_vegan_does_not_either(told: str, suggested: str) -> None:
    diet = claim(told, "diet", told.split()[-1]).model_copy(update={"category": "constraint"})
    assert conflicts(f"Try {suggested}.", [diet])


def test_a_constraint_replaced_by_a_claim_naming_none_is_still_minded() -> None:
    """Seen on the request set: "trying to eat better this year", read as *diet: better*, replaced
    *diet: lactose intolerant*; a latte and butter were then suggested unchecked. A constraint the
    rules know is minded until a claim that speaks of a constraint replaces or ends it."""
    message = _said("dairy wrecks my stomach, turns out im lactose intolerant")
    better = claim("trying to eat better this year", "diet", "better", source_id="m2")
    lactose = claim(
        "turns out im lactose intolerant", "diet", "lactose intolerant", source_id="m1"
    ).model_copy(
        update={"category": "constraint", "valid_until": 1_800_000_000_000, "superseded_by": better.id}
    )
    (minded,) = told_not_held([message], [lactose, better])
    assert "lactose intolerant" in minded.content
    ended = claim("I can have dairy again, not lactose intolerant any more", "diet", "lactose intolerant")
    gone = lactose.model_copy(update={"superseded_by": ended.id})
    assert told_not_held([message], [gone, ended]) == []


@pytest.mark.parametrize(
    ("told", "value", "suggested", "ruled_out"),
    [
        (
            "I haven't eaten meat or fish since I was fifteen.",
            "no meat or fish",
            "Grill chicken or salmon.",
            {"chicken", "salmon"},
        ),
        ("dont do dairy, never have", "no dairy", "Top it with butter and cream.", {"butter", "cream"}),
        ("I never touch alcohol", "no alcohol", "Bring a bottle of wine.", {"wine"}),
        ("nothing with pork for me", "no pork", "Pulled pork buns.", {"pork"}),
    ],
)
def test_a_diet_told_in_the_negative_rules_out_what_it_names(
    told: str, value: str, suggested: str, ruled_out: set[str]
) -> None:
    """A constraint no food rule names ("diet: no meat or fish") rules out what it says no to, and
    what that usually is (meat: chicken; dairy: butter)."""
    found = conflicts(suggested, [claim(told, "diet", value)])
    assert {w for c in found for w in c.words} == ruled_out
    assert conflicts("A lentil and spinach curry with rice.", [claim(told, "diet", value)]) == []


@pytest.mark.parametrize(
    ("told", "value", "suggested", "ruled_out"),
    [
        ("Gave up meat back in 2019", "meat", "A roast chicken dinner.", ("chicken",)),
        (
            "Gave up meat back in 2019, never looked back",
            "no meat",
            "A roast chicken dinner.",
            ("chicken",),
        ),
        ("I stopped eating pork years ago", "pork", "Pork chops with apple.", ("pork",)),
        ("I'm not vegetarian any more", "vegetarian", "A roast chicken dinner.", ()),
        ("no longer vegan, I eat everything now", "vegan", "Scrambled eggs with cheese.", ()),
        ("haven't touched alcohol in three years", "alcohol", "Prosecco with it.", ("prosecco",)),
        ("we dont really do dairy in this house", "dairy", "Mac and cheese.", ("cheese",)),
        ("cut out gluten last spring", "gluten", "Toast with jam.", ("toast",)),
        ("I can have dairy again, not lactose intolerant any more", "lactose intolerant", "A latte.", ()),
        ("back on the gluten, turns out I'm fine", "gluten-free", "Toast with jam.", ()),
        ("I drink again now, not sober any more", "sober", "A glass of prosecco with it.", ()),
    ],
)
def test_a_food_the_user_gave_up_is_ruled_out_and_a_diet_that_ended_rules_out_nothing(
    told: str, value: str, suggested: str, ruled_out: tuple[str, ...]
) -> None:
    ended = claim(told, "diet", value, kind=ClaimKind.ENDS)
    assert tuple(w for c in conflicts(suggested, [ended]) for w in c.words) == ruled_out
