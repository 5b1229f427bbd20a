"""What kind of claim it is, by its label: health and diet claims are constraints."""

from __future__ import annotations

from thea.words import lower_words

#: label words of a constraint: every request for help is given these claims, and a new one
#: adds to the others unless the reader says it changes, ends or corrects one
CONSTRAINT_ATTRIBUTES = (
    "allerg", "diet", "intoleran", "health", "condition", "medic", "eat", "food", "diagnos", "symptom",
)  # fmt: skip
CONSTRAINT = "constraint"
GENERAL = "general"


def category_of(attribute: str) -> str:
    """Health and diet claims are constraints: every request for help is given them. A word of
    the label begins with a constraint's (first contact, set 17: "death" held "eat", and a
    hamster's death was given to every request for help as a constraint)."""
    words = lower_words(attribute.replace("_", " "))
    return CONSTRAINT if any(w.startswith(CONSTRAINT_ATTRIBUTES) for w in words) else GENERAL


def is_constraint(category: str | None) -> bool:
    return category == CONSTRAINT
