"""What kind of claim it is, by its label: health and diet claims are constraints."""

from __future__ import annotations

#: label words of a constraint: every request for help is given these claims, and a new one
#: adds to the others unless the reader says it changes, ends or corrects one
CONSTRAINT_ATTRIBUTES = ("allerg", "diet", "intoleran", "health", "condition", "medic", "eat", "food")
CONSTRAINT = "constraint"
GENERAL = "general"


def category_of(attribute: str) -> str:
    """Health and diet claims are constraints: every request for help is given them."""
    lowered = attribute.lower()
    return CONSTRAINT if any(word in lowered for word in CONSTRAINT_ATTRIBUTES) else GENERAL


def is_constraint(category: str | None) -> bool:
    return category == CONSTRAINT
