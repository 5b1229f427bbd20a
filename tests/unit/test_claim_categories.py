"""Which claims are constraints (given to every request for help): health and diet by a word of
their label, never a label that only holds such letters (first contact, set 17: "death" held
"eat", and a hamster's death was shown to a question about food as the user's constraint)."""

from __future__ import annotations

import pytest

from services.knowledge.claims.categories import CONSTRAINT, GENERAL, category_of


@pytest.mark.parametrize(
    "label",
    ["diet", "dietary needs", "food allergy", "allergies", "health", "medication", "eating habits",
     "lactose intolerance", "medical_condition", "condition",
     # first contact, set 22: "diagnosis: high blood pressure", "symptoms" of a salt limit
     "diagnosis", "symptoms"],
)  # fmt: skip
def test_health_and_diet_labels_are_constraints(label: str) -> None:
    assert category_of(label) == CONSTRAINT


@pytest.mark.parametrize("label", ["death", "theatre", "weather", "seat", "repeat", "breakfast spot", "heat"])
def test_a_label_only_holding_such_letters_is_not(label: str) -> None:
    assert category_of(label) == GENERAL
