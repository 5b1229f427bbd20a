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

from services.common.pasted import is_pasted
from services.common.statements import lower_first, upper_first
from services.cycle.from_facts import told_sentence
from services.cycle.from_told import told_sentences
from services.knowledge.claims.categories import CONSTRAINT
from services.knowledge.claims.verify import plain
from services.prompts.extract_claims import ClaimKind
from thea.models import Fact, UserImpulse
from thea.words import STOPWORDS, lower_words

#: advice to have less of something ("the doc says go easy on red meat", "be careful with grapefruit")
GO_EASY_ON = (
    r"go\s+easy\s+on|cut\s+(?:down|back)\s+on|stay\s+off|lay\s+off|steer\s+clear\s+of"
    r"|(?:be|being)\s+careful\s+(?:with|about)"
)


def told_text(fact: Fact) -> str:
    """What a constraint claim says: its line and the user's own words."""
    return f"{fact.content} {fact.quote or ''}"


#: what neither a vegetarian nor a vegan eats (a vegan's list had lacked turkey: a "grilled turkey
#: sandwich" was offered to a vegan as the suggestion instead)
_MEAT_AND_FISH = (
    "meat chicken beef pork lamb bacon ham sausage sausages turkey duck fish tuna salmon cod prawns "
    "shrimp anchovies gelatin steak burger burgers"
)
#: (what in a told fact names the constraint, what an answer must not suggest)
_RULES: tuple[tuple[str, str, str], ...] = (
    (
        r"coeliac|celiac|gluten",
        "wheat flour bread breadcrumbs pasta spaghetti noodles couscous barley rye semolina pizza "
        "croutons bulgur seitan beer cake biscuits crackers pastry tortillas sandwich sandwiches toast bagel "
        "bagels wrap wraps burger pancakes muffin muffins pie dumplings lasagna lasagne ramen udon croissant "
        "croissants doughnut doughnuts brownie brownies cookie cookies waffle waffles scone scones baguette "
        "naan pitta pita pastries cakes pies crumpet crumpets sourdough focaccia ciabatta brioche panini "
        "pretzel pretzels rolls baguettes",
        "gluten",
    ),
    (r"peanut", "peanut peanuts satay", "peanuts"),
    (
        r"\bcarbs?\b|carbohydrate|low[- ]carb",
        "pasta spaghetti bread rice potatoes potato chips noodles pizza lasagne lasagna risotto couscous "
        "cake cakes sugar pancakes bagel bagels",
        "carbs",
    ),
    (
        r"\bnut allerg|allergic to nuts|tree nut",
        "almond almonds walnut walnuts cashew cashews hazelnut hazelnuts pecan pecans pistachio pistachios "
        "praline marzipan nutella nut nuts peanut peanuts",
        "nuts",
    ),
    (
        r"lactose|dairy",
        "milk cheese butter cream yogurt yoghurt parmesan mozzarella feta ice-cream latte lattes cappuccino "
        "cappuccinos milkshake milkshakes custard cheesecake",
        "dairy",
    ),
    (r"vegetarian|don't eat meat|do not eat meat", _MEAT_AND_FISH, "meat or fish"),
    (
        r"\bvegan\b",
        f"{_MEAT_AND_FISH} egg eggs honey milk cheese butter cream yogurt yoghurt latte lattes mayonnaise",
        "animal products",
    ),
    (
        r"shellfish",
        "shrimp prawn prawns crab lobster mussels oysters clams scallops paella seafood scampi bouillabaisse",
        "shellfish",
    ),
    (r"allergic to fish|fish allergy", "fish tuna salmon cod anchovies sardines sushi", "fish"),
    (
        r"diabet|low[- ]sugar|no sugar",
        "sugar honey syrup candy sweets cake cakes doughnut doughnuts soda cookie cookies biscuits brownie "
        "brownies chocolate fudge jam pudding ice-cream caramel",
        "sugar",
    ),
    (r"blood pressure|salt|sodium", "salt soy crisps", "salt"),
    (
        r"\bgout\b",
        "beer lager ale stout liver kidney kidneys sardines anchovies mussels scallops steak",
        "purines",
    ),
    (
        r"sober|don't drink|do not drink|alcohol",
        "wine beer vodka rum whisky whiskey gin cocktail cocktails alcohol prosecco champagne cider",
        "alcohol",
    ),
    (r"halal", "pork bacon ham wine beer", "pork or alcohol"),
)
_COMPILED = tuple(
    (re.compile(told, re.IGNORECASE), frozenset(words.split()), what) for told, words, what in _RULES
)
#: an answer that already minds it ("gluten-free pasta", "without cheese", "no peanuts")
_MINDED = re.compile(
    r"\b(?:free|without|no|not|instead of|avoid|skip|substitute|swap|replace|allerg\w*|intoleran\w*|oat"
    r"|go\s+easy\s+on|cut\s+(?:down|back)\s+on|limit"
    r"|plant-based)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Conflict:
    fact: Fact
    #: what the answer names that the fact rules out
    words: tuple[str, ...]
    #: per rule of the fact: what the rule rules out ("dairy") and the words named of it
    kinds: tuple[tuple[str, tuple[str, ...]], ...] = ()


#: "allergic to kiwi", "a sesame allergy", "intolerant to soy": a food named in the fact itself
_ALLERGEN = re.compile(
    r"\b(?:allergic|intolerant)\s+to\s+(?P<a>[a-z]+)|\b(?P<b>[a-z]+)\s+(?:allergy|intolerance)\b",
    re.IGNORECASE,
)


#: advice to cut something down: "the doc says go easy on red meat and beer", "cut back on sugar";
#: a claim's value that says "no" ("diet: no meat or fish", read from "I haven't eaten meat or fish")
_LIMITED = re.compile(
    rf"\b(?:{GO_EASY_ON}|avoid|no\s+more|no|never)\s+(?P<things>[a-z ,'-]+)",
    re.IGNORECASE,
)
#: a claim's value that names a way of eating or a condition, not a food: when it ends ("I'm not
#: vegetarian any more", "not lactose intolerant now") nothing is ruled out by it
_A_DIET = re.compile(
    r"vegetarian|vegan|pescatarian|coeliac|celiac|sober|teetotal|halal|kosher|diabet|keto|paleo"
    r"|intoleran|allerg|\w-free\b|\blow[- ]\w+",
    re.IGNORECASE,
)
#: what parts the things named in such advice ("red meat, beer and chips"): a match starts where a
#: run of blanks starts, not inside it (quadratic: 13 s for 20,000 spaces), blanks taken possessively
_THINGS_APART = re.compile(r"(?!(?<=\s)\s)\s*+(?:,|\band\b|\bor\b)\s*+")
#: a kind of food or drink named in such advice, and what it usually is
_KINDS = {
    "red meat": "steak beef lamb burger burgers mince pork sausages bacon",
    "meat": "steak beef lamb burger burgers mince pork sausages bacon chicken ham",
    "alcohol": "wine beer lager vodka rum whisky whiskey gin cocktail cocktails prosecco champagne cider",
    "booze": "wine beer lager vodka rum whisky whiskey gin cocktail cocktails prosecco champagne cider",
    "caffeine": "coffee espresso latte lattes cappuccino cola",
    "sugar": "sweets cake cakes chocolate biscuits fizzy soda",
    "fried food": "chips fries doughnuts fried",
    "fish": "fish tuna salmon cod haddock prawns shrimp anchovies sardines sushi",
}


#: words of a kind of food or drink that name none of it alone ("juice" of "cranberry juice")
_GENERIC = frozenset({"juice", "juices", "food", "foods", "drink", "drinks", "products", "stuff"})


def _limited(fact: Fact) -> list[tuple[re.Pattern[str], frozenset[str], str]]:
    """ "The doc says go easy on red meat and beer": rules for red meat (steak, lamb ...) and beer;
    likewise a claim whose value says "no" ("diet: no meat or fish")."""
    found = _LIMITED.search(told_text(fact))
    return _things_rules(found.group("things")) if found is not None else []


def _things_rules(things: str) -> list[tuple[re.Pattern[str], frozenset[str], str]]:
    """A rule for each thing named ("red meat, beer and chips"), with what it usually is."""
    out: list[tuple[re.Pattern[str], frozenset[str], str]] = []
    for thing in _THINGS_APART.split(things.lower()):
        thing = re.sub(r"^(?:the|too\s+much|so\s+much|any)\s+", "", thing.strip())
        if not thing or len(thing.split()) > 2 or thing in ("it", "that", "them", "things"):
            continue
        named = {thing, f"{thing}s", *_KINDS.get(thing, "").split()}
        if " " in thing and thing not in _KINDS:  # "cranberry juice": the word that tells it apart
            named |= {w for w in thing.split() if w not in _GENERIC}
        out.append((_LIMITED, frozenset(named), thing))  # a sentence that says to go easy minds it
    return out


def _known_rules(text: str) -> list[tuple[re.Pattern[str], frozenset[str], str]]:
    """The known rules whose constraint the text names ("coeliac" rules out bread)."""
    return [rule for rule in _COMPILED if rule[0].search(text)]


def _rules_of(fact: Fact) -> list[tuple[re.Pattern[str], frozenset[str], str]]:
    """The rules a constraint fact speaks of: the known ones ("coeliac" rules out bread) and what
    it says to go easy on, else the food it names itself ("allergic to kiwi" rules out kiwi). A
    claim that ended rules out what it names when that is a food ("diet: meat", ended: "gave up
    meat"), nothing when it is a diet ("diet: vegetarian", ended: "I'm not vegetarian any more")."""
    if fact.change == ClaimKind.ENDS.value:
        value = fact.value or ""
        if _A_DIET.search(value):
            return []
        if value and fact.category == CONSTRAINT and not _LIMITED.match(value):
            # a food given up ("diet: pork", ended: "I never eat pork"; "diet: alcohol", ended:
            # "haven't touched alcohol in three years"), with what the known rules say it is in
            return _known_rules(value) + _things_rules(value)
        return _limited(fact)
    known = _known_rules(told_text(fact)) + _limited(fact)
    if known:
        return known
    attribute = (fact.attribute or "").lower()
    if fact.quote is not None and ("allerg" in attribute or "intoleran" in attribute):
        food = " ".join(lower_words(fact.value or "")[-1:])  # a claim names the food as its value
    else:
        found = _ALLERGEN.search(fact.quote or fact.content)
        food = (found.group("a") or found.group("b") or "").lower() if found else ""
    if not food or food == "nuts" or food in STOPWORDS:  # "seeds, oil, tahini, all of it": not "it"
        return []
    name = re.escape(food)
    told = re.compile(rf"\b(?:allergic|intolerant)\s+to\s+{name}|\b{name}\s+(?:allergy|intolerance)", re.I)
    return [(told, frozenset({food, f"{food}s", f"{food}es"}), food)]


#: a plant-based stand-in named like what it stands in for: "almond milk" is no milk
_STAND_IN = re.compile(
    r"\b(?:almond|oat|soy|soya|coconut|rice|cashew|hemp|pea|vegan|dairy-free|lactose-free)\s+"
    r"(?:milk|yogh?urt|cream|butter|cheese|ice-cream)\b",
    re.IGNORECASE,
)


def _careless(answer: str) -> list[str]:
    """The answer's sentences that do not already mind a constraint ("gluten-free pasta"), without
    the stand-ins they name ("almond milk")."""
    said = re.split(r"(?<=[.!?\n])\s+", answer)
    return [_STAND_IN.sub(" ", s) for s in said if not _MINDED.search(s)]


def _named(careless: Sequence[str], told: re.Pattern[str], words: frozenset[str]) -> tuple[str, ...]:
    """What of ``words`` the careless sentences name; a sentence naming the constraint itself
    minds it ("as a coeliac, ...")."""
    named = {w for s in careless if not told.search(s) for w in lower_words(s)}
    return tuple(sorted(words & named))


def conflicts(answer: str, constraints: Sequence[Fact], request: str = "") -> list[Conflict]:
    """The user's constraint facts the answer goes against, with what it names of each. A word
    named in a sentence that already minds it ("gluten-free pasta") does not count, nor one the
    request asked for minding it ("a gluten free pancake recipe": its pancakes are)."""
    careless = _careless(answer)
    if _MINDED.search(request):
        asked = set(lower_words(request))
        careless = [
            " ".join(w for w in lower_words(s) if w not in asked and w.rstrip("s") not in asked)
            for s in careless
        ]
    out: list[Conflict] = []
    for fact in constraints:
        kinds: list[tuple[str, tuple[str, ...]]] = []
        for told, words, what in _rules_of(fact):
            named = _named(careless, told, words)
            if named:
                kinds.append((what, named))
        if kinds:
            ruled_out = {w for _what, named_words in kinds for w in named_words}
            out.append(Conflict(fact=fact, words=tuple(sorted(ruled_out)), kinds=tuple(kinds)))
    return out


def against_request(answer: str, request: str) -> tuple[str, tuple[str, ...]] | None:
    """What the answer names that the request itself rules out ("a quick vegetarian dinner"
    answered with grilled chicken): (what was asked for, the words), or None."""
    careless = _careless(answer)
    for told, words, _what in _COMPILED:
        asked = told.search(request)
        named = _named(careless, told, words) if asked is not None else ()
        if asked is not None and named:
            return asked.group(), named
    return None


def request_caution(asked: str, named: Sequence[str]) -> str:
    """The note after an answer that goes against what the request asked for."""
    return f" (Careful: this mentions {', '.join(list(named)[:4])}, and you asked for {asked.lower()}.)"


def caution(found: Sequence[Conflict], told: str) -> str:
    """The note after the answer: what it names, and which told fact that goes against."""
    named = ", ".join(sorted({w for c in found for w in c.words})[:4])
    return f" (Careful: this mentions {named}, and you told me: {told})"


#: "Can I have a latte?", "Should we order pizza tonight?", "Is cheesecake OK for me?"
_MAY_I = re.compile(
    r"^\s*(?:can|could|may|should|shall)\s+(?:i|we)\s+(?:still\s+)?(?:have|eat|drink|try|order|get|make|cook)\b"
    r"|\b(?:ok|okay|safe|fine|alright|allowed)\s+for\s+(?:me|us)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Advice:
    text: str
    facts: tuple[Fact, ...]


def may_i_have(question: str, constraints: Sequence[Fact]) -> Advice | None:
    """ "Can I have a latte?" asked by someone who told they are lactose intolerant: "Better
    not", with the told fact and why (what the thing usually has), no model call. None when the
    question asks no such thing, names nothing a constraint rules out or already minds it ("Can I
    have a latte with oat milk?" is left to the model, which gets the constraints)."""
    if not _MAY_I.search(question):
        return None
    found = conflicts(question, constraints)
    if not found:
        return None
    reasons: list[str] = []
    said = " ".join(told_text(c.fact).lower() for c in found[:2])  # what a told fact names needs no reason
    for conflict in found[:2]:
        for what, thing in conflict.kinds:
            # "no milk for you" needs no "milk means dairy", nor "pork" "pork or alcohol"
            if not any(w in said for w in [*thing, what]) and thing[0] not in what.split():
                reasons.append(f"{upper_first(thing[0])} usually means {what}.")
    facts = tuple(c.fact for c in found[:2])
    told = " ".join(_as_said(f) for f in facts)
    because = f" {' '.join(dict.fromkeys(reasons))}" if reasons else ""
    text = f"Better not, going by what you told me: {told}{because}"
    return Advice(text=text, facts=facts)


def _as_said(fact: Fact) -> str:
    """A constraint as the user said it (their quote), or as stored."""
    if fact.quote:
        return f"\u201c{fact.quote.rstrip('.')}.\u201d"
    return lower_first(told_sentence(fact))


_FOOD = re.compile(
    r"\b(?:eat|eating|ate|drink|drinking|food|foods|meal|meals|dinner|lunch|breakfast|brunch|snack|snacks"
    r"|recipe|recipes|cook|cooking|bake|baking|restaurant|restaurants|menu|diet|dessert|coffee|takeaway)\b",
    re.IGNORECASE,
)


def about_food(text: str) -> bool:
    """The message bears on what the user eats or drinks: every told constraint belongs in its
    prompt ("Can I have a latte?" for someone lactose intolerant)."""
    named = set(lower_words(text))
    return bool(_FOOD.search(text)) or any(named & words for _told, words, _what in _COMPILED)


def told_not_held(messages: Sequence[UserImpulse], stored: Sequence[Fact]) -> list[Fact]:
    """The constraints the user told in their own words that no claim holds, each as their own
    sentence (a stand-in fact, never stored): a message the slow loop has not read yet (a request
    a moment after "I'm coeliac" must mind it as one a day later does: seen live, spaghetti
    suggested before the claims were read), or one whose reading kept nothing of it (a small
    model's reading misses a clause of a long message). A sentence
    is one when it names a constraint these rules know (the general food knowledge the read claims
    are checked with); a sentence a current constraint claim was read from, or one whose claims
    have all been replaced or ended ("I'm not vegetarian any more" since), is left out."""
    read_from: dict[str, list[Fact]] = {}
    for fact in stored:
        if fact.source_message_id and fact.quote:
            read_from.setdefault(fact.source_message_id, []).append(fact)
    by_id = {f.id: f for f in stored}

    def gone(fact: Fact) -> bool:
        """Replaced or ended for good: not by a claim that names no constraint at all (seen on
        the request set: "trying to eat better this year" read as *diet: better* had replaced
        *diet: lactose intolerant*, and a latte was suggested)."""
        closer = by_id.get(fact.superseded_by or "")
        return fact.valid_until is not None and (
            closer is None or not _rules_of(fact) or bool(_rules_of(closer))
        )

    out: list[Fact] = []
    for message in messages:
        if is_pasted(message.content):  # a pasted recipe's "gluten" is its writer's
            continue
        for n, sentence in enumerate(told_sentences(message.content)):
            said = " ".join(sentence.split())
            claims = [f for f in read_from.get(message.id, []) if plain(f.quote or "") in plain(said)]
            if any(f.category == CONSTRAINT and f.valid_until is None for f in claims):
                continue  # a claim true now holds it
            if claims and all(gone(f) for f in claims):
                continue  # replaced or ended since
            probe = Fact(id="probe", content=said, quote=said, user_id=message.user_id)
            if said and _rules_of(probe):
                out.append(
                    Fact(
                        id=f"{message.id}-told-{n}",
                        content=f"\u201c{said}\u201d",
                        user_id=message.user_id,
                        category=CONSTRAINT,
                        source_message_id=message.id,
                        created_at=message.created_at,
                    )
                )
    return out
