"""A model answer that goes against what the user told of their health or diet gets a note.

The small default model, given "You're coeliac." in its prompt, still suggests spaghetti for
dinner. A recipe that ignores an allergy is exactly what makes a user stop trusting what the
assistant remembers, so the answer is checked, without the model, against the user's current
constraint facts: each kind of constraint names what it rules out, and an answer naming one of
those gets a note saying which told fact it goes against (it is not rewritten: the user sees
both, and the note can be wrong in the safe direction).

The lists are general food knowledge (what gluten, dairy, meat, shellfish... are found in), not
any one user's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from thea.models import Fact

#: (what in a told fact names the constraint, what an answer must not suggest)
_RULES: tuple[tuple[str, str], ...] = (
    (
        r"coeliac|celiac|gluten",
        "wheat flour bread breadcrumbs pasta spaghetti noodles couscous barley rye semolina pizza "
        "croutons bulgur seitan beer cake biscuits crackers pastry tortillas sandwich sandwiches toast bagel "
        "bagels wrap wraps burger pancakes muffin muffins pie dumplings lasagna lasagne ramen udon",
    ),
    (r"peanut", "peanut peanuts satay"),
    (
        r"\bnut allerg|allergic to nuts|tree nut",
        "almond almonds walnut walnuts cashew cashews hazelnut hazelnuts pecan pecans pistachio pistachios",
    ),
    (r"lactose|dairy", "milk cheese butter cream yogurt yoghurt parmesan mozzarella feta ice-cream"),
    (
        r"vegetarian|don't eat meat|do not eat meat",
        "meat chicken beef pork lamb bacon ham sausage sausages turkey duck fish tuna salmon cod prawns "
        "shrimp anchovies gelatin",
    ),
    (
        r"\bvegan\b",
        "meat chicken beef pork lamb bacon ham fish tuna salmon egg eggs honey milk cheese butter cream "
        "yogurt yoghurt",
    ),
    (r"shellfish", "shrimp prawn prawns crab lobster mussels oysters clams scallops"),
    (r"allergic to fish|fish allergy", "fish tuna salmon cod anchovies sardines"),
    (r"diabet|low[- ]sugar|no sugar", "sugar honey syrup candy sweets"),
    (r"blood pressure|salt|sodium", "salt soy"),
    (r"sober|don't drink|do not drink|alcohol", "wine beer vodka rum whisky whiskey gin cocktail alcohol"),
    (r"halal", "pork bacon ham wine beer"),
)
_COMPILED = tuple((re.compile(told, re.IGNORECASE), frozenset(words.split())) for told, words in _RULES)
_WORD = re.compile(r"[a-z][a-z'-]*")
#: an answer that already minds it ("gluten-free pasta", "without cheese", "no peanuts")
_MINDED = re.compile(
    r"\b(?:free|without|no|not|instead of|avoid|skip|substitute|swap|replace|allerg\w*|intoleran\w*)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Conflict:
    fact: Fact
    #: what the answer names that the fact rules out
    words: tuple[str, ...]


def conflicts(answer: str, constraints: Sequence[Fact]) -> list[Conflict]:
    """The user's constraint facts the answer goes against, with what it names of each. A word
    named in a sentence that already minds it ("gluten-free pasta") does not count."""
    sentences = re.split(r"(?<=[.!?\n])\s+", answer)
    careless = [s for s in sentences if not _MINDED.search(s)]
    out: list[Conflict] = []
    for fact in constraints:
        ruled_out: set[str] = set()
        for told, words in _COMPILED:
            if told.search(fact.content):
                # a sentence naming the constraint itself minds it ("as a coeliac, ...")
                named = {w for s in careless if not told.search(s) for w in _WORD.findall(s.lower())}
                ruled_out |= words & named
        if ruled_out:
            out.append(Conflict(fact=fact, words=tuple(sorted(ruled_out))))
    return out


def caution(found: Sequence[Conflict], told: str) -> str:
    """The note after the answer: what it names, and which told fact that goes against."""
    named = ", ".join(sorted({w for c in found for w in c.words})[:4])
    return f" (Careful: this mentions {named}, and you told me: {told})"
