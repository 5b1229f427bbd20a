"""Statements into atomic facts: subject, attribute, value, and what the statement changes.

Deterministic (no chat model), so a fact is there for the very next message and the same
wording always gives the same fact. Each telling sentence is read by its grammar
(services/knowledge/record/reading.py: clauses, subjects, verbs), and each clause becomes a fact
with

* a **subject**: the user, a named person, pet or thing, or someone known by their relation
  ("Erik's mother", "my sister");
* an **attribute**: what the clause says about it, as a key that different wordings share:
  the possessed noun ("my *name* is", "Pixel's *appointment*"), the object of "have"/"get"
  ("we have a *cat*"), the verb's stem ("I *live* in", "we *moved* to York" is where one lives)
  or a kind of "is" ("is a nurse", "is allergic to", "is 4 years old");
* a **value**: the rest ("in Munich", "a nurse at the Charité");
* its **slots** (services/knowledge/record/slots.py): the parts of a life it speaks of (home,
  job, pet, car, a dated plan...), what questions are matched on;
* a **change**: what it says about earlier facts: a plain statement, a *change* ("now", "no
  longer", "not Berlin anymore", "got a new job", "we swapped the Clio for a Tesla"), an *end*
  ("I sold the Golf", "I quit the Clifton Wanderers", "my Surly got stolen", "Biscuit died",
  "Margaret doesn't volunteer at Oxfam anymore") or a *move* of a date ("the deadline moved from
  March 3 to March 17", "my operation has been postponed to March 2").

The fact's text is the clause as the user said it, with the replaced value left out ("we live
in Munich, not Berlin anymore" is kept as "we live in Munich"), so a current fact never
mentions the value it replaced. :mod:`services.knowledge.record.rules` decides what each new
fact supersedes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from services.common.statements import (
    CASUAL_WORDS,
    GREETING,
    HERE,
    lower_first,
    sentences,
    split_opening,
    tells,
    upper_first,
)
from services.knowledge.record.reading import (
    BABY_NAMED,
    USER,
    Clause,
    Reader,
    baby_named,
    names_a_role,
    with_article,
)
from services.knowledge.record.slots import (
    PET_WORD,
    Slot,
    event_kinds,
    fact_slots,
    is_occupation,
    known_word,
    relation_word,
    word_stems,
)
from services.prompts.quoting import is_order
from services.recall.lexical import stem
from thea.words import STOPWORDS
from thea.words import words as read_words

__all__ = ["USER", "Category", "Change", "ExtractedFact", "extract_facts"]


class Change(StrEnum):
    """What a clause says about facts told before it."""

    #: it adds a fact
    NONE = "none"
    #: it replaces the value of the same subject and attribute ("now", "anymore", "a new job")
    CHANGE = "change"
    #: something stopped being true ("sold the Golf", "quit the team", "got stolen")
    END = "end"
    #: a date or plan moved ("moved to May 9", "pushed back to July 5")
    MOVE = "move"


class Category(StrEnum):
    """What kind of fact: requests for help always get the constraints."""

    GENERAL = "general"
    #: health and diet: allergies, intolerances, diets, conditions
    CONSTRAINT = "constraint"


@dataclass(frozen=True)
class ExtractedFact:
    #: "user" or the normalised name of another subject ("tomás", "pixel", "erik's mother")
    subject_key: str
    #: how the subject is shown ("you", "Tomás")
    subject: str
    #: the attribute key shared by different wordings (a stem: "liv", "appointment", "be-a")
    attribute: str
    value: str
    #: the clause as said (first person kept), without a replaced value
    text: str
    change: Change = Change.NONE
    #: the replaced value ("Berlin" of "not Berlin anymore", "March 3" of "from March 3 to ...")
    old_value: str = ""
    #: content words of what ended or moved ("golf"; "charity", "ride")
    about: tuple[str, ...] = ()
    #: the clause names a date
    dated: bool = False
    category: Category = Category.GENERAL
    #: the parts of a life it speaks of
    slots: frozenset[Slot] = frozenset()
    #: the clause's verb (lemma), "" when it has none
    verb: str = ""
    #: stems of what the sentence said before a clause that goes on about it with "we", "they" or
    #: "it" ("choir" of "I've joined a choir, we rehearse on Tuesdays"): found by them too
    context: tuple[str, ...] = ()
    #: what a move moved is "it": the event told last ("They've moved it to 19 June")
    refers_back: bool = False

    @property
    def is_current(self) -> bool:
        """An end ("I sold the Golf") is history from the moment it is said."""
        return self.change is not Change.END


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
#: a weekday ("Tuesday"), and one or every ("Tuesday", "Saturdays")
WEEKDAY_NAME = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
WEEKDAY = rf"{WEEKDAY_NAME}s?"
DATE = _DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b"
    rf"|\b{WEEKDAY}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b"
    r"|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b(?!\s+(?:floor|time|grade|year|place|century|birthday|anniversary))"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|o['\u2019]clock)\b|\b\d{1,2}:\d{2}\b|\b(?:noon|midday|midnight)\b"
    r"|\bat\s+\d{1,2}\b(?=\s*(?:instead|every|each|sharp|in\s+the\s+(?:morning|evening|afternoon)|[,.;!]|$))"
    r"|\b(?:next|last|this)\s+(?:week|month|year|weekend)\b|\bend\s+of\s+the\s+(?:week|month|year)\b"
    # "postponed to January", "pencilled in for June", "next March"
    rf"|\bin\s+{_MONTH}\b|\b(?:until|till|to|by|for|next|this)\s+{_MONTH}\b(?!\s+\d)",
    re.IGNORECASE,
)
_CHANGE_WORDS = re.compile(
    r"\b(?:now|anymore|any\s+more|no\s+longer|instead|new|newly|switched|changed|update[ds]?|these\s+days"
    r"|actually|scratch\s+that|correction|i\s+meant|change\s+of\s+plans?|not\s+\w+\s+(?:but|as\s+i\s+said)"
    r"|no\s+wait|wait\s+no|my\s+mistake|i\s+misread"
    r"|from\s+now\s+on|as\s+of|starting\s+(?:from|on|next|this)|from\s+next\s+(?:week|month|year))\b",
    re.IGNORECASE,
)
#: verbs whose past says something ended ("sold the Golf", "Biscuit died")
_END_VERBS = frozenset(
    {"sell", "quit", "leave", "lose", "stop", "cancel", "end", "resign", "steal", "die", "dump",
     "divorce", "close", "finish", "crash", "wreck", "total", "scrap", "pass", "split", "drop", "abandon"}
)  # fmt: skip
#: of those, the ones whose subject is what ended ("Rex died", "I retired")
_INTRANSITIVE_ENDS = frozenset({"die", "pass", "resign", "split", "crash", "retire"})
#: phrases that end their subject or object whatever the verb form
_END_PHRASES = re.compile(
    r"\b(?:passed\s+away|did(?:n't|\s+not)\s+(?:make\s+it|survive)|(?:was|got)\s+killed|broke\s+up(?:\s+with)?|gave\s+up|(?:pulled|backed|dropped)\s+out\s+of|withdrew\s+from"
    r"|moved\s+out(?!(?:\s+of\s+[\w' -]+?)?\s+(?:to|into)\b)|got\s+rid\s+of"
    r"|no\s+longer\s+(?:have|own)"
    r"|got\s+stolen|was\s+stolen|got\s+sold|was\s+sold|got\s+cancelled|was\s+cancelled|split\s+up"
    r"|(?:is|are|'s)\s+(?:off|cancelled)(?=\s*(?:[,.;!]|$))|(?:got|was|been)\s+called\s+off|rehomed|given\s+away"
    r"|put\s+(?:[\w'-]+\s+){1,3}?(?:to\s+sleep|down)|(?:was|got|been|be)\s+put\s+(?:to\s+sleep|down))\b",
    re.IGNORECASE,
)
#: "doesn't volunteer at Oxfam anymore", "no longer works there"
_NOT_ANYMORE = re.compile(r"\b(?:anymore|any\s+more|any\s+longer)\b", re.IGNORECASE)
#: verbs that move a date or plan
_MOVE_VERBS = frozenset(
    {
        "move",
        "push",
        "postpone",
        "reschedule",
        "delay",
        "shift",
        "change",
        "bump",
        "put",
        "bring",
        "defer",
        "extend",
        "rebook",
        "rebooke",  # spaCy's lemma of "rebooked"
        "rearrange",
    }
)
#: verbs of moving house ("we moved to York", "she's relocating to Porto")
_RELOCATE = frozenset({"move", "relocate", "emigrate"})
#: "(into) a flat in Acton": a home at a named place
_IN_PLACE = re.compile(r"\b(?:in|near)\s+[A-Z]")
#: a home named by its kind: "moved into sheltered housing", "moving into a care home"
#: homes one goes into for care: "sheltered housing", "a care home"
_CARE_KINDS = r"sheltered\s+housing|(?:care|nursing|retirement)\s+home|assisted\s+living"
_HOME_KIND = re.compile(
    r"^(?:an?\s+|the\s+|our\s+|my\s+|his\s+|her\s+|their\s+)?(?:new\s+|little\s+|small\s+|bigger\s+)?"
    rf"(?:{_CARE_KINDS}|halls|student\s+halls"
    r"|flat|house|bungalow|apartment|cottage)\b",
    re.IGNORECASE,
)
#: renting where one lives: "I rent a flat in Pontcanna", "we rent a house near the park"
_RENTS_A_HOME = re.compile(
    r"^(?:i|we)\s+(?:still\s+)?rent\s+(?:an?|the|our|my)\s+(?:\w+\s+)?(?:flat|house|room|studio|apartment|cottage|bungalow|place)\b",
    re.IGNORECASE,
)
#: a home one goes into for care: "gone into a care home", "went into sheltered housing"
_CARE_HOME = re.compile(rf"^(?:an?\s+|the\s+)?(?:{_CARE_KINDS})\b", re.IGNORECASE)
#: "we swapped the Clio for a Tesla": the object is replaced by what follows "for"
_SWAP = frozenset({"swap", "trade", "exchange", "switch", "replace", "change"})
#: verbs whose "from X to Y" says Y replaced X ("Amelie switched from medicine to biology")
_FROM_TO_VERBS = _SWAP | {"go", "upgrade", "downgrade", "transfer", "convert", "move", "shift", "swap"}
#: advice to have less of something: "go easy on red meat", "cut back on sugar" (a constraint here,
#: and what it names is ruled out in services/cycle/constraints.py)
GO_EASY_ON = (
    r"go\s+easy\s+on|cut\s+(?:down|back)\s+on|stay\s+off|lay\s+off|steer\s+clear\s+of"
    r"|(?:be|being)\s+careful\s+(?:with|about)"  # "(on warfarin,) I have to be careful with cranberry juice"
)
_CONSTRAINT = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|gluten|lactose|coeliac|celiac|diabet\w*"
    r"|kosher|halal|can't\s+eat|cannot\s+eat|don't\s+eat|do\s+not\s+eat|avoid\w*|pregnan\w*|asthma\w*"
    r"|epilep\w*|injur\w*|bad\s+(?:back|knee|hip)|blood\s+pressure|sober|don't\s+drink|do\s+not\s+drink"
    r"|salt|sodium|cholesterol|low[- ](?:salt|sugar|carb|fat|fodmap)\w*|ibs|gout"
    rf"|{GO_EASY_ON})\b",
    re.IGNORECASE,
)
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "his", "her", "their", "its"})
_PREPOSITIONS = frozenset(
    {"in", "at", "on", "for", "to", "from", "with", "by", "of", "as", "about", "into", "after", "near", "off"}
)
#: words that say when, not what ("sold the Panda last week")
_TIME_WORDS = frozenset(
    {"last", "next", "this", "yesterday", "today", "tonight", "tomorrow", "ago", "recently", "week", "month",
     "year", "weekend", "morning", "night", "evening", "spring", "summer", "autumn", "fall", "winter"}
)  # fmt: skip
#: value words that say when or how long rather than what ("now", "anymore", "for now")
_TRAILING = re.compile(
    r"(?:[\s,]+(?:now|anymore|any\s+more|for\s+now|these\s+days|at\s+the\s+moment|again|too|as\s+well|btw"
    r"|by\s+the\s+way|lol|haha))+\s*$",
    re.IGNORECASE,
)
#: a replaced value named beside the new one (", not Berlin anymore", "instead of X"); a clause's own
#: "not ... anymore" ("Dev's not teaching anymore") is an end, not a replaced value
REPLACED_VALUE = _REPLACED = re.compile(
    r",?\s*(?:(?:(?<=,)|(?<=,\s)|\band\s+)not\s+(?P<a>[^,.;]+?)\s+(?:anymore|any\s+more)|,\s*no\s+longer\s+(?:in\s+|at\s+)?(?P<b>[^,.;]+)"
    r"|instead\s+of\s+(?P<c>[^,.;]+)|rather\s+than\s+(?P<d>[^,.;]+)|,\s*not\s+(?P<e>[^,.;]+?)\s*$"
    r"|,\s*no\s+more\s+(?P<f>[^,.;]+)|^\s*not\s+(?P<g>[^,.;]+?)\s+(?:anymore|any\s+more)\s*,"
    r"|(?<=\d)\s+not\s+(?P<h>[£$€]?\d[\d,.]*\d|\d)\b)",  # "sam is 8 not 7", "£1,100 not £1,050"
    re.IGNORECASE,
)
#: a correction without a verb: "(Sorry, I meant) Rhodes, not Crete."
_BARE_CORRECTION = re.compile(
    r"^(?P<new>[^,.;]{1,60}),\s*not\s+(?P<old>[^,.;]{1,60}?)\s*[.!]?$", re.IGNORECASE
)
#: the new value of a move starts with a date ("moved to May 9", "pushed back to July 5")
_DATE_START = re.compile(
    rf"(?:the\s+)?(?:{_MONTH}\b|\d{{1,2}}(?:st|nd|rd|th)?\b|{WEEKDAY}\b"
    r"|next\b|tomorrow\b|\d{4}-)",
    re.IGNORECASE,
)
_FROM_TO = re.compile(r"\bfrom\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$", re.IGNORECASE)
_AGE = re.compile(
    r"^\d+\s+(?:years?|months?|weeks?)\s+old\b|^\d{1,3}(?:\s+(?:now|today|this\s+year|next\s+\w+))?$",
    re.IGNORECASE,
)
#: "I'm Lena, a second-year chemistry student ...": a name, then who the user is
_NAME_THEN = re.compile(r"^(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2}),\s+(?P<rest>(?:an?|the)\s+.+)$")
#: "Sam, software tester": a name, then a role said without its article
_NAME_THEN_BARE = re.compile(r"^(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2}),\s+(?P<rest>[a-z][\w' -]+)$")
#: a role at a named place: "head of humanities at Clifton College", "lead engineer at Paylark"
_ROLE_AT_PLACE = re.compile(
    r"^(?:an?\s+|the\s+)?(?!(?:in|at|on|to|for|from|with|by|of)\b)[\w'-]+(?:\s+[\w'-]+){0,5}?"
    r"\s+(?:at|for)\s+(?:the\s+)?[A-Z]"
)
#: what one does as a living, after any verb: "as a nurse", "to become a pilot"
_AS_ROLE = re.compile(r"^(?:as|to\s+(?:be|become))\s+(?:an?\s+)?", re.IGNORECASE)
#: "(we're) in Salford now": a place the user is in now (not "in Paris this week")
_IN_PLACE_NOW = re.compile(r"^in\s+[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?\s*,?\s+now$")
#: "(everyone calls) me Maggie": the name the user goes by
_CALLS_ME = re.compile(r"^(?:me|us)\s+(?=[A-Z])")
_USED_TO = re.compile(r"\bused\s+to\b", re.IGNORECASE)
_FUTURE = frozenset({"will", "'ll", "going", "gonna", "might", "may", "could", "should", "would", "'d"})
_HAVE_VERBS = frozenset({"have", "get", "got", "own", "buy", "adopt", "keep", "rescue"})
_ALIASES = {"work": "job", "employ": "job"}
#: "I run a small bed and breakfast", "we own a bakery": a business one runs is one's work
_RUN_VERBS = frozenset({"run", "own", "manage"})
_START_VERBS = frozenset({"start", "begin", "join"})
_WORKING_AT = re.compile(r"^(?:working|work|to\s+work)\s+(?:at|for|in)\b", re.IGNORECASE)
_JOB_NOUNS = re.compile(r"\b(?:job|position|role|post|placement|internship|apprenticeship|residency)\b", re.I)
_BUSINESS = re.compile(
    r"\b(?:business|company|firm|shop|store|caf[eé]|restaurant|bakery|pub|bar|hotel|b&b|bed\s+and\s+breakfast"
    r"|guest\s*house|farm|salon|studio|agency|practice|clinic|nursery|garage|start-?up|consultancy|bookshop"
    r"|boutique|brewery|gym|pharmacy|pharmacies|hospital|school|university|college|bank|office|lab|laboratory"
    r"|surgery|charity|council|newspaper|magazine)s?\b",
    re.IGNORECASE,
)


def _words(text: str) -> list[str]:
    return read_words(text.replace("\u2019", "'"))


def _is_name(word: str) -> bool:
    return word[:1].isupper() and word.lower() not in STOPWORDS and word.replace("'", "").isalpha()


def _names_a_relative(subject_key: str, words: Sequence[str]) -> bool:
    """The words are the name of someone known by their relation ("my manager" ... "Kwame")."""
    return (
        subject_key != USER
        and bool(relation_word(subject_key))
        and 0 < len(words) <= 3
        and all(_is_name(w) for w in words)
    )


def _copula_attribute(value: str, noun: str, subject_key: str) -> str:
    value = re.sub(r"(?<=\d)\s+not\s+\d{1,3}\b.*$", "", value)  # "8 not 7": an age told again
    if noun:
        return stem(noun.split()[-1])
    words = value.split()
    if subject_key == USER and words and len(words) <= 3 and all(_is_name(w) for w in words):
        return stem("name")  # "I'm Raj Mehta"
    if _names_a_relative(subject_key, words):
        return stem("name")  # "my new manager is Kwame"
    if _AGE.match(value):
        return "age"
    if not words:
        return "be"
    first = words[0].lower()
    if first in ("a", "an") or is_occupation(" ".join(words[:4])) or _ROLE_AT_PLACE.match(value):
        return "be-a"  # "a nurse", "head of humanities at Clifton College"
    if len(words) > 1 and words[1].lower() in _PREPOSITIONS and first not in _PREPOSITIONS:
        return "be-" + stem(first)  # "allergic to", "married to", "afraid of"
    if first in _PREPOSITIONS:
        return "be-" + first  # "is in Lisbon", "is at the Charité", "is on May 8"
    return "be"


def _object_head(words: tuple[str, ...] | list[str]) -> str:
    """The head noun of an object phrase: its last word before a preposition or comma."""
    head = ""
    for word in words:
        low = word.lower()
        if low in _PREPOSITIONS or low in ("called", "named", "who", "which", "that", ",", "and", "or"):
            break
        if head and (_is_name(word) or low in _TIME_WORDS):
            break
        if low not in _DETERMINERS and low not in STOPWORDS and word.replace("-", "").isalpha():
            head = low
    return stem(head) if head else ""


def _content(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Content words, lower-cased, possessive dropped, in order, once each (a race by its
    distance, "10k", is one)."""
    return tuple(
        dict.fromkeys(
            w.lower().removesuffix("'s")
            for w in words
            if w.lower().removesuffix("'s") not in STOPWORDS
            and len(w) > 2
            and (w.replace("'", "").isalpha() or re.fullmatch(r"\d{1,3}k", w, re.IGNORECASE))
        )
    )


def _after_to(text: str) -> str:
    """What follows the "to" of a move ("... back to July 5" -> "July 5")."""
    found = re.search(r"\b(?:to|until|till|for)\s+(.*)$", text, re.IGNORECASE)
    return found.group(1) if found else ""


#: who moves a date without naming what ("we've rebooked for June", "they postponed till May")
_WHO_MOVES = frozenset({"i", "we", "they"})
#: what a move speaks of when it names nothing: "it", "that"
_IT = frozenset({"it", "that"})
#: where a place told after "to" stops: a comma, a date or time, a word of how it stays
_PLACE_END = re.compile(
    r"\s*(?:[,;.!?(]|\b(?:on|for|from|with|same|now|instead|but|and|so|because|this|next)\b"
    r"|\b(?:in|at)\b(?!\s+[A-Z])).*$",
    re.IGNORECASE,
)
#: what a place moved to cannot start with: a person, a time
_NO_PLACE = re.compile(r"^(?:me|us|him|her|them|you|it|when|after|before|later|earlier)\b", re.IGNORECASE)


#: who moves things, never what moved
_PEOPLE = frozenset({"you", "we", "they"})


@dataclass(frozen=True)
class _Move:
    """What a clause with a verb of moving moved, and where to."""

    #: the words of what moved ("party"; "it")
    thing: tuple[str, ...] = ()
    #: moved to a date ("pushed back to July 5")
    to_date: bool = False
    #: the place an event moved to ("Harrogate"), or ""
    place: str = ""

    @property
    def moved(self) -> bool:
        return self.to_date or bool(self.place)

    @property
    def refers_back(self) -> bool:
        """What moved is "it": the event told last ("they've moved it to 19 June")."""
        return self.moved and bool(self.thing) and set(self.thing) <= _IT


def _moves_home(clause: Clause) -> bool:
    """Someone moves house: to a named place or a kind of home ("we moved to York", "Mum moved
    into sheltered housing", "I've moved back in with my mum in Stockport"), not something moved
    there ("They moved the meeting to Tom's house")."""
    if clause.verb == "go":  # "Mum's gone into a care home"
        return any(prep == "into" and _CARE_HOME.match(obj) for prep, obj in clause.preps)
    if clause.verb not in _RELOCATE or not {w.lower() for w in clause.object_words} <= {"house", "home"}:
        return False
    if _MOVED_IN_WITH.match(clause.value):
        return True
    return any(
        prep in ("to", "into")
        and (obj[:1].isupper() or _IN_PLACE.search(obj) or _HOME_KIND.match(obj))  # "to a bungalow in ..."
        and not _DATE.match(obj)
        for prep, obj in clause.preps
    )


#: moving in with someone: "(moved) back in with my mum in Stockport", "in with Tom"
_MOVED_IN_WITH = re.compile(r"^(?:back\s+)?in\s+with\s+\S", re.IGNORECASE)


#: another one of a kind: "to the renal ward", "to the night team" (not a town or a house)
_TO_ANOTHER = re.compile(r"^to\s+(?:the|a|an)\s+[\w-]+\s+[\w-]+\s*(?:,|$)", re.IGNORECASE)


def _moved_within(clause: Clause, value: str) -> bool:
    """ "I've moved to the renal ward, same hospital": the user moved within what they do (a switch
    of ward, team or office, found by its noun), not house."""
    return clause.verb == "move" and clause.subject.key == USER and bool(_TO_ANOTHER.match(value))


def _move_of(clause: Clause) -> _Move:
    """A move of a date or of an event's place ("The wedding has moved to Harrogate", "we've moved
    it to harrogate"); no move for a verb of moving that moves neither ("we moved to York")."""
    if clause.verb == "be" and clause.subject.said.lower() in _IT and _NOW_ON.match(clause.value):
        return _Move(("it",), to_date=True)  # "It's now due 16 May", "it's now on the 21st"
    if clause.verb not in _MOVE_VERBS:
        return _Move()
    thing = _moved_words(clause)
    if _DATE_START.match(_after_to(clause.value)):
        if not clause.object_words and clause.subject.said.lower() in _WHO_MOVES:
            thing = ("it",)  # "failed my driving test, rebooked for 2 april": what was told last
        return _Move(thing, to_date=True)
    place = _place_moved_to(clause.value) if thing else ""
    if place and (set(thing) <= _IT or event_kinds(" ".join(thing))):
        return _Move(thing, place=place)
    return _Move(thing)


#: a day given anew: "now due 16 May", "now on the 21st" (after "it's")
_NOW_ON = re.compile(
    rf"^now\s+(?:due\s+(?:on\s+)?|on\s+|set\s+for\s+|booked\s+for\s+)(?=(?:the\s+)?(?:\d|{_MONTH}\b|{WEEKDAY}\b))",
    re.IGNORECASE,
)


def _moved_words(clause: Clause) -> tuple[str, ...]:
    """The words of what a move moved, lower-cased: its object ("the party" of "we moved the party
    to the pub"), else its subject ("The wedding has moved to Harrogate")."""
    said = clause.object_words or tuple(_words(clause.subject.said))
    return tuple(w.lower() for w in said if w.lower() not in _DETERMINERS)


def says_a_date(value: str) -> bool:
    """A moved value that is a date or a day ("January", "the 21st", "next Friday"), not a place."""
    return bool(_DATE_START.match(value) or _DATE.search(value))


def _place_moved_to(value: str) -> str:
    """The place a move goes to ("it to harrogate, same date" -> "Harrogate"; "the party to the
    Red Lion" -> "the Red Lion"), or "" when it goes to a date, a person or nothing. A place typed
    in lower case is given its capitals ("harrogate" -> "Harrogate")."""
    found = re.search(r"\bto\s+(.*)$", value, re.IGNORECASE)
    place = _PLACE_END.sub("", found.group(1)).strip() if found else ""
    dated = _DATE.search(place)  # "the Grand in Leeds in June": the place without its month
    place = re.sub(r"\s+(?:in|at|on)$", "", place[: dated.start()].strip()) if dated else place
    if not place or _NO_PLACE.match(place) or _DATE_START.match(place):
        return ""
    if len(place.split()) > 6:
        return ""
    if place == place.lower() and not re.match(r"(?:the|a|an|my|our|his|her|their)\s", place):
        return place.title()
    return place


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;")
    if not text:
        return text
    if text.count("(") > text.count(")"):
        text += ")"  # "... and Sam (7)": the parser left the bracket out of the clause
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")


def _time_phrase(phrase: str) -> bool:
    words = [w.lower() for w in _words(phrase)]
    return not words or bool(_DATE.search(phrase)) or words[0] in _TIME_WORDS or words[-1] in _TIME_WORDS


def _ended(clause: Clause) -> bool:
    if _USED_TO.search(clause.text) or _END_PHRASES.search(clause.text):
        return True
    if clause.negated and _NOT_ANYMORE.search(clause.text) and not clause.copula:
        return True  # "doesn't volunteer there anymore" ended; "is not a vegetarian anymore" is a new state
    if re.search(r"\bno\s+longer\b", clause.text, re.IGNORECASE) and not clause.copula:
        return True
    if clause.verb == "retire" and clause.subject.key != USER and not clause.value:
        return True  # "Joyce has retired": someone leaves the role they had in the user's life
    # "I quit the bakery": a past that looks like a present
    past = clause.tag in ("VBD", "VBN") or (clause.verb in ("quit", "shut", "split") and clause.tag == "VBP")
    if clause.verb == "lose" and _WEIGHT.match(clause.value):
        return False  # "Lost 6kg so far": progress, not something gone
    if clause.verb == "pass" and (clause.object_words or clause.subject.key == USER):
        return False  # "Ollie has passed his driving test", "viva went well, I passed!": done
    return clause.verb in _END_VERBS and past and not (set(clause.auxiliaries) & _FUTURE)


#: an amount of weight ("6kg", "half a stone", "10 pounds")
_WEIGHT = re.compile(
    r"^(?:about\s+|almost\s+|nearly\s+|over\s+)?(?:\d+(?:\.\d+)?|half\s+a|a)\s*(?:kg|kgs|kilos?|lbs?|pounds|st|stones?)\b",
    re.IGNORECASE,
)


#: a pet's death the vet gave: "had to put Max to sleep", "put our old cat down"
_PUT_TO_SLEEP = re.compile(r"\bput\s+(?P<who>(?:[\w'-]+\s+){1,3}?)(?:to\s+sleep|down)\b", re.IGNORECASE)


def _end_about(clause: Clause) -> tuple[str, ...]:
    """What ended: the object ("sold the Golf"), the place of a stopped habit ("doesn't volunteer
    at Oxfam anymore"), or the subject ("Rex died", "my Surly got stolen")."""
    if _USED_TO.search(clause.text):
        return ()
    put = _PUT_TO_SLEEP.search(clause.text)
    if put:  # "We had to put Max to sleep": Max
        return _content(_words(put.group("who")))
    subject = tuple(w for w in _content(_words(clause.subject.said)) if w not in ("you",))
    if clause.passive or clause.verb in _INTRANSITIVE_ENDS:
        return subject
    if clause.object_words and not _time_phrase(" ".join(clause.object_words)):
        return _content(clause.object_words)
    places = [
        obj
        for prep, obj in clause.preps
        if prep not in ("on", "in", "until", "since") or not _time_phrase(obj)
    ]
    places = [p for p in places if not _time_phrase(p)]
    if places:
        return _content(_words(" ".join(places)))
    stopped = clause.value.split(",")[0]  # "stopped working at Grind, need the time": not the reason
    if not subject and stopped and not _time_phrase(stopped):
        return _content(_words(stopped))  # "I stopped driving for uber": what was stopped
    return subject


def _swap(clause: Clause) -> tuple[str, str] | None:
    """(what was replaced, what replaced it) of "we swapped the Clio for a Tesla"."""
    if clause.verb not in _SWAP or not clause.object_words:
        return None
    new = next((obj for prep, obj in clause.preps if prep in ("for", "with")), "")
    if not new:
        return None
    old = " ".join(clause.object_words)
    return re.sub(r"^(?:the|my|our|a|an)\s+", "", old, flags=re.IGNORECASE), new


def _attribute(clause: Clause, relocation: bool) -> str:
    subject = clause.subject
    if relocation or _RENTS_A_HOME.match(clause.text):  # "I rent a flat in Pontcanna": a home, not the rent
        return stem("live")
    if clause.copula and subject.key == USER and _IN_PLACE_NOW.match(clause.value):
        return stem("live")  # "we're in Salford now": where the user lives now
    if clause.copula or not clause.verb:
        return _copula_attribute(clause.value, subject.noun, subject.key)
    if clause.verb == "call" and not clause.passive and _CALLS_ME.match(clause.value):
        return stem("name")  # "everyone calls me Maggie": a name the user goes by
    if subject.noun:
        return stem(subject.noun.split()[-1])
    named = clause.verb in ("call", "name") and clause.passive
    if named and _names_a_relative(subject.key, clause.value.split()):
        return stem("name")  # "my manager is called Deborah"
    said = _work_or_age(clause)
    if said:
        return said
    if clause.verb in _HAVE_VERBS and clause.object_words:
        return _object_head(clause.object_words) or stem(clause.verb)
    verb = stem(clause.verb)
    return _ALIASES.get(verb, verb)


#: losing one's work: "got laid off", "was made redundant", "got fired", "was let go"
LOST_WORK = _LOST_WORK = re.compile(
    r"\b(?:laid\s+off|made\s+redundant|fired|sacked|let\s+go)\b", re.IGNORECASE
)


def _work_or_age(clause: Clause) -> str:
    """ "job" or "age" when the verb says one whatever its words, else ""."""
    past = clause.tag in ("VBD", "VBN")
    if _AS_ROLE.match(clause.value) and is_occupation(clause.value):
        return "job"  # "retraining as a nurse", "I started as a barista", "to become a pilot"
    if clause.verb in _RUN_VERBS and clause.object_words and _BUSINESS.search(clause.value):
        return "job"  # "I run a small bed and breakfast"
    if clause.verb == "make" and clause.passive and clause.subject.key == USER:
        return "job"  # "I've been made head of science", "I was made redundant"
    if (clause.verb == "retire" or _LOST_WORK.search(clause.text)) and past:
        return "job"  # "I retired last month", "I got laid off": a new state of work that replaces the job
    if clause.verb == "turn" and past and re.match(r"\d{1,3}\b", clause.value):
        return "age"  # "Ada turned 6 yesterday" (not "turns 40 on May 3": a birthday to come)
    if clause.verb in _START_VERBS and _starts_work(clause):
        return "job"  # "I'm starting at a hospital pharmacy in Bath", "she joined a law firm"
    return ""


def _starts_work(clause: Clause) -> bool:
    """A new job begins: "starting a new job", "starting at a hospital pharmacy", "joined a law firm"."""
    said = " ".join(clause.object_words)
    if _JOB_NOUNS.search(said) or (clause.verb == "join" and _BUSINESS.search(said)):
        return True
    if _WORKING_AT.match(clause.value):
        return True  # "I've started working at an agency in town"
    return any(prep == "at" and (_BUSINESS.search(obj) or _EMPLOYER.match(obj)) for prep, obj in clause.preps)


#: "started at Tesco", "starting at Arup on Monday": a named place of work (not a school or a
#: university, where one starts studying)
_EMPLOYER = re.compile(
    r"(?!(?:the\s+)?(?:uni|university|college|school|sixth\s+form)\b)(?-i:[A-Z])[\w&'-]+", re.IGNORECASE
)


def _clean_value(value: str, attribute: str) -> str:
    """The value without its reason, hedges and time words ("6 yesterday" -> "6", "me Maggie" ->
    "Maggie")."""
    value = re.split(r"\s+(?:because|since|as|due\s+to)\b", value, maxsplit=1)[0]
    value = re.sub(r"^(?:actually|really|still|also|just|now)\s+", "", value, flags=re.IGNORECASE)
    value = _TRAILING.sub("", value).strip(" ,.")
    if attribute == stem("name"):
        value = _CALLS_ME.sub("", value)
    if attribute == "age":
        value = re.sub(r"^(\d{1,3})\b.*$", r"\1", value)
    return value


def _reading(clause: Clause, label_change: bool) -> ExtractedFact:
    """Attribute, value, slots and change of one clause."""
    text = clause.text.strip().rstrip(".!")
    value = clause.value
    move = _move_of(clause)
    moved = move.moved
    relocation = not moved and _moves_home(clause)
    end = _ended(clause)
    swap = _swap(clause) if not end else None
    attribute = _attribute(clause, relocation)
    old_value = ""
    replaced = _REPLACED.search(text)
    if replaced:
        old_value = next(g for g in replaced.groups() if g)
        text = (text[: replaced.start()] + text[replaced.end() :]).strip(" ,")
        value = _REPLACED.sub("", value).strip(" ,")
    # "moved from March 3 to May 9", "switched from medicine to biology": the new value, the old one
    from_to = _FROM_TO.search(value) if moved or relocation or clause.verb in _FROM_TO_VERBS else None
    if from_to:
        old_value = from_to.group("old")
        value = from_to.group("new")
        text = re.sub(rf"\s*\bfrom\s+{re.escape(old_value)}\s+to\b", " to", text, flags=re.IGNORECASE)
    if swap:
        old_value, value = swap
    if moved:
        value = move.place or re.sub(r"^(?:back\s+|forward\s+)?(?:to|until|till)\s+", "", value, flags=re.I)
    value = _clean_value(value, attribute)
    if end:
        change = Change.END
    elif moved:
        change = Change.MOVE
    elif (
        label_change
        or old_value
        or relocation
        or swap
        or _moved_within(clause, value)
        or _CHANGE_WORDS.search(clause.text)
    ) and not (
        clause.negated and not clause.copula  # "Niamh can't come in July now" says no new value
    ):
        change = Change.CHANGE
    else:
        change = Change.NONE
    if change is Change.END:
        about = _end_about(clause)
    elif change is Change.MOVE:
        about = () if move.refers_back else tuple(w for w in _content(move.thing) if w not in _PEOPLE)
    elif swap:
        about = _content(_words(old_value))
    else:
        about = ()
    goes_by = attribute == stem("name") and clause.verb == "call" and not clause.passive
    if goes_by and (clause.subject.implicit or re.match(r"^I\s+(?:please\s+)?call\s+me\b", text)):
        text = f"I go by {value}"  # "(but) please call me Ade": not "I please call me Ade"
    return ExtractedFact(
        # "my friends call me Jo": a name of the user's, whoever uses it
        subject_key=USER if goes_by else clause.subject.key,
        subject="you" if goes_by else clause.subject.shown,
        attribute=attribute,
        value=value,
        text=_sentence(text),
        change=change,
        old_value=old_value.strip(),
        about=about,
        # an event moved to another place keeps its date ("moved to Leeds in June" moves no date)
        dated=not move.place and bool(_DATE.search(value) or _DATE.search(text)),
        category=Category.CONSTRAINT if _CONSTRAINT.search(clause.text) else Category.GENERAL,
        slots=fact_slots(text, attribute, value),
        verb=clause.verb,
        refers_back=move.refers_back and change is Change.MOVE,
    )


#: "(I'm) 71, retired school teacher from Cardiff": an age, then who the user is
_AGE_THEN = re.compile(r"^(?P<age>1[01]\d|[1-9]?\d),\s+(?P<rest>[a-z].+)$")


def _split_name(fact: ExtractedFact) -> list[ExtractedFact]:
    """ "I'm Lena, a second-year chemistry student at ...": the name, and who the user is; "I'm 71,
    retired school teacher ...": the age, and who the user is."""
    if fact.subject_key != USER or fact.attribute not in ("be", "be-a"):
        return [fact]
    aged = _AGE_THEN.match(fact.value)
    if aged is not None and names_a_role(re.sub(r"^(?:an?|the)\s+", "", aged.group("rest"))):
        rest = with_article(aged.group("rest").rstrip(".!"))
        role_text = f"I'm {rest}."
        role = ExtractedFact(
            subject_key=USER, subject="you", attribute="be-a", value=rest, text=role_text,
            dated=fact.dated, category=fact.category, slots=fact_slots(role_text, "be-a", rest),
        )  # fmt: skip
        return [_bare_age(aged.group("age")), role]
    found = _NAME_THEN.match(fact.value)
    bare = _NAME_THEN_BARE.match(fact.value) if found is None else None
    if bare is not None and names_a_role(bare.group("rest")):
        found = bare  # "I'm Sam, software tester"
    if found is None:
        return [fact]
    name, rest = found.group("name"), with_article(found.group("rest"))
    named = ExtractedFact(
        subject_key=USER, subject="you", attribute=stem("name"), value=name, text=f"I'm {name}.",
        slots=frozenset({Slot.NAME}),
    )  # fmt: skip
    role_text = f"I'm {rest.rstrip('.!')}."
    role = ExtractedFact(
        subject_key=USER, subject="you", attribute="be-a", value=rest.rstrip(".!"), text=role_text,
        dated=fact.dated, category=fact.category, slots=fact_slots(role_text, "be-a", rest),
    )  # fmt: skip
    return [named, role]


#: a part of an introduction that says where the user lives ("living in Galway with my husband",
#: "semi-retired accountant, I live in Perth with my wife Jean")
_LIVING_IN = re.compile(
    r"^(?:(?:i|we)\s+live|living|based|settled)\s+(?P<where>(?:in|near)\s+.+)$", re.IGNORECASE
)


def _role_parts(fact: ExtractedFact) -> list[ExtractedFact]:
    """ "I'm a retired nurse, 68, living in Galway with my husband Declan": who the user is, their
    age and where they live, each a fact of its own (a move to Salthill replaces where they live,
    not that they were a nurse)."""
    if fact.subject_key != USER or fact.attribute not in ("be", "be-a") or "," not in fact.value:
        return [fact]
    kept: list[str] = []
    out: list[ExtractedFact] = []
    for part in (p.strip() for p in fact.value.split(",")):
        living = _LIVING_IN.match(part)
        if _BARE_NUMBER.match(part) and kept:
            out.append(_bare_age(part))
        elif living and kept:
            where = living.group("where")
            said = f"I live {where}."
            slots = fact_slots(said, stem("live"), where)
            out.append(
                replace(fact, attribute=stem("live"), value=where, text=said, slots=slots, verb="live")
            )
        else:
            kept.append(part)
    if not out:
        return [fact]
    value = ", ".join(kept)
    text = f"I'm {with_article(value) if fact.attribute == 'be-a' else value}."
    role = replace(fact, value=value, text=text, slots=fact_slots(text, fact.attribute, value))
    return [role, *out]


_CASUAL_I = {"i": "I", "im": "I'm", "i'm": "I'm", "ive": "I've", "i've": "I've", "i'll": "I'll", "i'd": "I'd"}
_CASUAL_I_WORD = re.compile(r"\b(?:i|im|i'm|ive|i've|i'll|i'd)\b")
#: a name in an all-lower-case introduction: "im jake, 24", "jake here", "my name is jake"
_CASUAL_NAME = re.compile(
    rf"(?:\b(?:I'm|I am|this is)\s+|^\s*(?:{GREETING}\b[\s!,.]*)?)"
    rf"(?P<name>[a-z][a-z'-]+)(?=\s*,\s*\d{{1,3}}\s*(?:[,.!]|$)|{HERE})"
    r"|\b(?:my name is|my name's|call me)\s+(?P<named>[a-z][a-z'-]+)"
)


#: pets named in a lower-case message: "two guinea pigs, peanut and biscuit", "a cat called mochi"
_CASUAL_PETS = re.compile(
    rf"\b{PET_WORD}(?:\s+(?:called|named)\s+(?P<called>[a-z][a-z'-]+)"
    r"|\s*,\s*(?P<names>[a-z][a-z'-]+(?:\s*(?:,|and|&)\s*[a-z][a-z'-]+)?)"
    r"(?=\s*(?:[,.!:;)(]|\band\b|\bwho\b|$)))"
)


def _group_replaced(found: re.Match[str], group: str, new: str) -> str:
    """The match's text with one of its groups replaced."""
    start, end = found.start(group) - found.start(), found.end(group) - found.start()
    return found.group()[:start] + new + found.group()[end:]


#: a word after "my mum" that is what she does, not her name ("my mum lives with us", "my dad
#: passed away", "my boss is ...")
_NOT_A_NAME = (
    r"(?!(?:is|was|has|had|does|did|can|will|would|lives|works|says|goes|wants|loves|likes|hates|gets"
    r"|makes|takes|keeps|needs|runs|plays|helps|teaches|studies|stays|comes|visits|calls|rings|drives"
    r"|walks|thinks|just|still|also|always|never|really|used|and|who|got|went|came|said|told|died|[a-z]{3,}ed)\b)"
)
#: people named after how they relate to the user in a lower-case message: "married to sarah",
#: "my wife sarah", "2 kids, ella (10) and sam (7)"
_CASUAL_PEOPLE = re.compile(
    r"\b(?:(?:married|engaged)\s+to|my\s+(?:wife|husband|partner|boyfriend|girlfriend|fiancée?|son|daughter"
    r"|mum|mom|dad|brother|sister|friend|best\s+friend|boss|manager|flatmate|housemate)"
    r"|(?:kids|children|sons|daughters|boys|girls)\s*[,:-])"
    rf"\s+{_NOT_A_NAME}(?P<names>[a-z][a-z'-]+(?:\s*\(\d+\))?"
    r"(?:\s*(?:,|and|&)\s*[a-z][a-z'-]+(?:\s*\(\d+\))?(?=\s*(?:[,.!;)(&]|and\b|$)))*)"
)


def _names_cased(pattern: re.Pattern[str], groups: tuple[str, ...], text: str) -> str:
    """``text`` with the names of ``pattern``'s first matched group of ``groups`` capitalised."""

    def cased(found: re.Match[str]) -> str:
        group = next(g for g in groups if found.group(g))
        names = re.sub(
            r"[a-z][a-z'-]+",
            lambda w: w.group() if w.group() in STOPWORDS else w.group().capitalize(),
            found.group(group),
        )
        return _group_replaced(found, group, names)

    return pattern.sub(cased, text)


def _pet_names_cased(text: str) -> str:
    return _names_cased(_CASUAL_PETS, ("called", "names"), text)


def casual_case(text: str) -> str:
    """A message typed in lower case (its first letter and its "I"s; a place may still be
    capitalised: "hey! ines, 19, medicine at Edinburgh") read as if cased: "i"/"im" as "I"/"I'm",
    the name of an introduction ("yo im jake, 24, bartender" -> "yo I'm Jake, 24, bartender") and
    pets' names ("got two guinea pigs, peanut and biscuit" -> "... Peanut and Biscuit")."""
    first = next((c for c in text if c.isalpha()), "")
    if first.isupper() or re.search(r"\bI\b", text):
        return text
    text = _CASUAL_I_WORD.sub(lambda m: _CASUAL_I[m.group()], text)

    def named(found: re.Match[str]) -> str:
        group = "name" if found.group("name") else "named"
        word = found.group(group)
        if word in STOPWORDS or word in CASUAL_WORDS or is_occupation(word):
            return found.group()
        return _group_replaced(found, group, word.capitalize())

    text = _names_cased(_CASUAL_PEOPLE, ("names",), _pet_names_cased(_CASUAL_NAME.sub(named, text)))
    return _dates_cased(text)


#: a month next to a day ("12 may", "march 3rd"; not "I may go"), a weekday ("saturdays")
_CASUAL_DATE = re.compile(
    rf"(?<=\d\s)(?:of\s+)?{_MONTH}\b|(?<=\d(?:st|nd|rd|th)\s)(?:of\s+)?{_MONTH}\b"
    rf"|\b{_MONTH}(?=\s+\d{{1,2}}(?:st|nd|rd|th)?\b)|\b{WEEKDAY}\b"
)


def _dates_cased(text: str) -> str:
    """Months and weekdays in a lower-case message as written in the answers ("12 May")."""
    return _CASUAL_DATE.sub(
        lambda m: re.sub(r"\b(?!of\b)\w", lambda c: c.group().upper(), m.group(), count=1), text
    )


#: "wife is Morag", "kids are 4 and 2", "mum lives in Dundee": a relative named without "my"
_BARE_RELATIVE = re.compile(
    r"^(?P<word>[a-z][\w-]*)(?='s\b|\s+(?:is|are|was|were|has|have|had|will|just|got|gets|\w+(?:es|ed)|lives|works)\b)"
)


def owned_relative(sentence: str) -> str:
    """A sentence that starts with a relative in lower case, without "my", read as the user's
    ("wife is Morag, she teaches" -> "my wife is Morag, she teaches"); a capitalised one is a
    name ("Mum's party ...") and left as said."""
    found = _BARE_RELATIVE.match(sentence)
    if found is None or relation_word(found.group("word")) is None:
        return sentence
    return "my " + sentence


_BARE_NUMBER = re.compile(r"^\s*(?:1[0-1]\d|[1-9]?\d)\s*[.!]?\s*$")


def _bare_age(text: str) -> ExtractedFact:
    age = text.strip(" .!")
    return ExtractedFact(
        subject_key=USER, subject="you", attribute="age", value=age, text=f"I'm {age}.",
        slots=frozenset({Slot.AGE}),
    )  # fmt: skip


#: an end one was made to do: "we had to cancel Cornwall", "had to sell the car" (read as done)
_ENDED_AS = {"cancel": "cancelled", "sell": "sold", "quit": "quit", "leave": "left", "scrap": "scrapped"}
_HAD_TO_END = re.compile(rf"\bhad\s+to\s+(?P<verb>{'|'.join(_ENDED_AS)})\b", re.IGNORECASE)
#: a new clause after a comma: "my supervisor gave me an extension, it's now due 16 may"
_THEN_IT_IS_NOW = re.compile(r",\s+it(?:['\u2019]s|\s+is)\s+now\b", re.IGNORECASE)
#: "..., so they've ...": what followed happened because of it, a sentence of its own
_SO_THEN = re.compile(r",?\s+so\s+(?=(?:we|they|i|he|she)(?:['\u2019](?:ve|re|ll|d|m)\b|\s))", re.IGNORECASE)
#: "its" typed for "it's" ("its now due 16 may", "its been moved")
_ITS_IS = re.compile(r"\b([Ii]t)s(?=\s+(?:now|been|due|going|getting|on|off|moved|cancelled|at|in)\b)")
#: a new one of something told as news: "new client! a games studio called Pixelbarn"
_NEW_THING = re.compile(
    r"^\s*(?:(?:a|my|our)\s+)?new\s+(?P<what>[a-z]+)\s*[!:]+\s*(?P<rest>\w.+)$", re.IGNORECASE
)
#: what one has many of at a time: a new one is one more, not one in place of the old
_MANY_AT_A_TIME = frozenset(
    {"client", "customer", "friend", "colleague", "student", "pupil", "patient", "project", "hobby"}
    | {"cat", "dog", "puppy", "kitten"}
)


def _new_thing(found: re.Match[str]) -> str:
    """ "new client! a games studio called Pixelbarn" -> "A games studio called Pixelbarn is my new
    client." (one more); "new car! a Skoda" -> "My new car is a Skoda" (in place of the old one)."""
    what, rest = found.group("what"), found.group("rest").rstrip(" .!")
    if what.lower() in _MANY_AT_A_TIME:
        return f"{rest[:1].upper()}{rest[1:]} is my new {what}."
    return f"My new {what} is {rest}."


#: "Luna's quit gymnastics": "has quit" (a parser reads "Luna's quit" as her quit, a noun)
_HAS_QUIT = re.compile(r"\b([A-Z][a-z]+)['\u2019]s\s+(?=(?:quit|dropped)\s+\w)")


def extract_facts(message: str) -> list[ExtractedFact]:
    """Every fact the telling sentences of a message state, in order."""
    reader = Reader()
    out: list[ExtractedFact] = []
    # "It's a boy! We've named him Theo": one fact, across the two sentences
    message = _ITS_IS.sub(lambda m: m.group(1) + "'s", message)  # "its now due 16 may"
    message = _HAS_QUIT.sub(r"\1 has ", message)
    message = _NEW_THING.sub(_new_thing, message)  # "new client! a games studio called Pixelbarn"
    message = _HAD_TO_END.sub(lambda m: _ENDED_AS[m.group("verb").lower()], message)
    message = _THEN_IT_IS_NOW.sub(". It's now", message)  # "... an extension, it's now due 16 May"
    message = _SO_THEN.sub(". ", message)  # "the venue flooded so they've moved it to scarborough"
    message = _STATUS_THEN.sub(r"I'm \g<status>. I have \g<rest>", casual_case(message))
    message = _MET_SOMEONE.sub(r"I'm seeing someone new called \g<name>", message)
    message = _SCAN_SHOWED.sub(r"We're having a \g<sex>", message)  # "The scan showed it's a girl!"
    said = sentences(BABY_NAMED.sub(baby_named, message))
    for index, sentence in enumerate(said):
        if index == 0 and _name_then_age(said):  # "dave. 44. bus driver in glasgow"
            out += _sentence_facts(reader, f"I'm {sentence.strip(' .!').title()}.")
        else:
            named = any(f.subject_key == USER and f.attribute == stem("name") for f in out)
            out += _read_sentence(reader, sentence, named)
    return _moved_after_naming(out)


def _moved_after_naming(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """A move of "it" right after a clause that named something ("failed my driving test lol,
    rebooked for 2 april") carries that clause's words, so the test is what moved, not the last
    dated event of earlier messages."""
    out = list(facts)
    for index in range(1, len(out)):
        if out[index].refers_back and not out[index].context:
            said = tuple(sorted(_content_stems(out[index - 1].text)))
            out[index] = replace(out[index], context=said)
    return out


def _content_stems(text: str) -> set[str]:
    return {stem(w) for w in _content(_words(text))}


#: "I quit the fintech, starting at Revolut on monday": a doing after a comma of the user's sentence
#: is the user's own clause (the parser reads it as what the fintech does)
_THEN_DOING = re.compile(
    r",\s+(?=(?:starting|moving|joining|going|heading|flying|studying|training|retiring|volunteering"
    r"|working\s+(?:at|in)\b))",
    re.IGNORECASE,
)
_MINE = re.compile(r"^(?:i|i['\u2019](?:m|ve|d|ll)|just)\b", re.IGNORECASE)


def _without_subject(reader: Reader, sentence: str) -> bool:
    """The sentence begins without a subject, so it is the user's ("quit the chicken shop, ...")."""
    clauses = reader.clauses(sentence)
    return bool(clauses) and clauses[0].subject.implicit


#: a sentence that is only the user's state of marriage ("Widower.", "divorced")
_BARE_STATUS = re.compile(
    r"^\s*(?P<status>widow(?:er|ed)?|divorced|separated|single|married|engaged)\s*[.!]?\s*$", re.IGNORECASE
)


def _read_sentence(reader: Reader, sentence: str, named: bool) -> list[ExtractedFact]:
    """The facts of one sentence; after the user's name, a bare age or role is the user's too."""
    if _THEN_DOING.search(sentence) and (_MINE.match(sentence) or _without_subject(reader, sentence)):
        if not _MINE.match(sentence):  # "quit the chicken shop, working at ...": both clauses said by "I"
            sentence = f"I {sentence[:1].lower()}{sentence[1:]}"
        sentence = _THEN_DOING.sub(", I'm ", sentence)
    if _BARE_NUMBER.match(sentence) and named:
        return [_bare_age(sentence)]  # "Sam here. 41. Software engineer at Monzo."
    if _AGE_THEN.match(sentence) and named:  # "Kwame here. 62, retired postman, live in ..."
        return _sentence_facts(reader, f"I'm {sentence}")
    status = _BARE_STATUS.match(sentence)
    if named and status:  # "Graham here. 66. Retired engineer. Widower."
        word = status.group("status").lower()
        return _sentence_facts(
            reader, f"I'm {with_article(word) if word.startswith('widow') and word != 'widowed' else word}."
        )
    if named and _bare_role(sentence):  # "Dave. 44. Bus driver in Glasgow"
        role = sentence.strip(" .!")
        return _sentence_facts(reader, f"I'm {with_article(role[:1].lower() + role[1:])}.")
    if tells(sentence) and not is_order(sentence):  # an order is never a fact about anyone
        return _sentence_facts(reader, owned_relative(sentence))
    return []


def _bare_role(sentence: str) -> bool:
    """A sentence that is only an occupation ("bus driver in glasgow"), after a name."""
    said = sentence.strip(" .!")
    role = said[:1].lower() + said[1:]
    return "?" not in sentence and is_occupation(role) and names_a_role(role)


#: "divorced, two lads, Connor 15 and Jamie 12": a state, then what the user has
_STATUS_THEN = re.compile(
    r"^\s*(?P<status>divorced|widowed|separated|single|married|engaged|retired)\s*,\s*"
    r"(?P<rest>(?:two|three|four|five|one|a|an|\d)\s+[a-z]+\b.*)$",
    re.IGNORECASE | re.DOTALL,
)
#: "met someone! her name's Fiona": a new partner, named
_MET_SOMEONE = re.compile(
    r"\b(?:i(?:['\u2019]ve|\s+have)?\s+)?met\s+someone(?:\s+new)?\s*[!.,]+\s*(?:(?:her|his|their)\s+name"
    r"(?:['\u2019]s|\s+is)|(?:she|he)['\u2019]s\s+called)\s+(?P<name>(?-i:[A-Z])[\w'-]+)",
    re.IGNORECASE,
)
#: a baby's sex told before the birth: "The scan showed it's a girl", "the ultrasound says boy"
_SCAN_SHOWED = re.compile(
    r"\b(?:the\s+)?(?:\d+[- ]week\s+)?(?:scan|ultrasound)\s+(?:showed|shows|says|said|confirmed)\s+"
    r"(?:that\s+)?(?:it['\u2019]s\s+|it\s+is\s+|we['\u2019]re\s+having\s+)?(?:an?\s+)?(?P<sex>girl|boy)\b",
    re.IGNORECASE,
)
#: what a chat says alone that is no name ("lol. 44 replies")
_CHAT_WORDS = frozenset(
    {"lol", "lmao", "omg", "haha", "hmm", "ugh", "wow", "yay", "sorry", "thanks", "hi", "hey"}
)
#: a sentence of one word, a name ("dave.")
_BARE_NAME = re.compile(r"^\s*(?P<name>[A-Za-z][a-z'-]+)\s*[.!]?\s*$")


def _name_then_age(said: Sequence[str]) -> bool:
    """The message opens with a name alone, then an age ("dave. 44. bus driver in glasgow")."""
    found = _BARE_NAME.match(said[0]) if len(said) > 1 else None
    name = found.group("name").lower() if found else ""
    if not name or known_word(name) or name in CASUAL_WORDS or name in _CHAT_WORDS:
        return False
    # "Maeve. Retired nurse, 68, living in Galway": a role after the name says the same
    return bool(_BARE_NUMBER.match(said[1]) or _AGE_THEN.match(said[1]) or _bare_role(said[1].split(",")[0]))


def _without_openings(sentence: str) -> tuple[str, bool]:
    """The sentence without its labels and opening words, in any order ("ok so quick intro: Fran,
    27, ..."), and whether they announce a change ("Update:", "Scratch that, ...")."""
    opening, text = split_opening(sentence)
    return text, bool(_CHANGE_WORDS.search(opening))


#: "My best mate Lewis is getting married": a relation and a name the parser read as a sentence
#: of its own ("mate" its root); with commas round the name it reads the subject
_APPOSITIVE = re.compile(r"^((?i:my|our)\s+(?:[a-z]+\s+){0,2}?[a-z]+)\s+([A-Z][\w'-]+)(?=\s+[a-z])")
#: what a bare correction's new value cannot start with: a subject of its own ("I moved to Leeds")
_OWN_CLAUSE = re.compile(r"(?i)(?:i|i'm|we|we're|he|she|they|my|our|it|it's)\b")


def _bare_correction(text: str) -> re.Match[str] | None:
    """ "(Sorry, I meant) Crete, not Cyprus": a new value of a few words and the old one (not
    "Alex is my wife, not my partner": a clause of its own)."""
    found = _BARE_CORRECTION.match(text)
    if found is None or len(found.group("new").split()) > 4 or _OWN_CLAUSE.match(found.group("new")):
        return None
    return None if _A_VERB.search(found.group("new")) else found


#: a verb that makes a clause of what looked like a bare value
_A_VERB = re.compile(r"\b(?:is|are|was|were|am|has|have|had|does|did|will)\b|['\u2019](?:s|re|m|ve)\b", re.I)


def _sentence_facts(reader: Reader, sentence: str) -> list[ExtractedFact]:
    text, label_change = _without_openings(sentence.strip())
    if not text:
        return []
    out: list[ExtractedFact] = []
    bare = _bare_correction(text)  # "Crete, not Cyprus": no clause ("I crete"), only the values
    clauses = (
        [] if bare else reader.clauses(upper_first(text)) or reader.clauses(_APPOSITIVE.sub(r"\1, \2,", text))
    )
    bare = bare or (_BARE_CORRECTION.match(text) if not clauses else None)
    if bare:  # the value it replaces is found by the keeper (keeper.inherit_slots rewrites it)
        new, old = bare.group("new").strip(), bare.group("old").strip()
        told = ExtractedFact(
            subject_key=USER, subject="you", attribute="be", value=new, text=_sentence(text),
            change=Change.CHANGE, old_value=old, slots=fact_slots(text, "be", new),
        )  # fmt: skip
        out.append(told)
    for clause in clauses:
        out += [part for fact in _split_name(_reading(clause, label_change)) for part in _role_parts(fact)]
    return _with_context(_passed_what(_what_changed_then_how(out)))


def _passed_what(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """ "viva went well, I passed!": what was passed is what the clause before spoke of ("I passed
    my viva"), so "Did I pass my viva?" finds it."""
    out: list[ExtractedFact] = []
    for fact in facts:
        before = out[-1] if out else None
        if (
            before is not None
            and fact.verb == "pass"
            and fact.subject_key == USER
            and not fact.value
            and before.subject_key != USER
            and not relation_word(before.subject)
        ):
            thing = re.sub(r"^(?:the|my|our)\s+", "", before.subject, flags=re.IGNORECASE).lower()
            fact = replace(fact, value=f"my {thing}", text=f"I passed my {thing}.")
        out.append(fact)
    return out


def _what_changed_then_how(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """ "My rotation changed, I'm in A&E now": a change that names only what changed gives it to
    the clause after it, which says how (the new fact replaces the one naming the rotation); the
    bare "My rotation changed" tells nothing of its own."""
    out: list[ExtractedFact] = []
    for fact in facts:
        named = _only_what_changed(out[-1]) if out and out[-1].subject_key == fact.subject_key else ()
        if named and fact.change in (Change.NONE, Change.CHANGE):
            text = f"{out[-1].text.rstrip('.!')}: {lower_first(fact.text)}"  # what changed, and how
            out[-1] = replace(fact, text=text, change=Change.CHANGE, about=named)
        else:
            out.append(fact)
    return out


def _only_what_changed(fact: ExtractedFact) -> tuple[str, ...]:
    """The words of what changed when a fact says nothing else ("rotation" of "My rotation
    changed")."""
    if fact.verb != "change" or fact.change is not Change.CHANGE or fact.value:
        return ()
    return tuple(w for w in _content(_words(fact.text)) if not w.startswith("chang"))


#: a clause that goes on about what was just said: "we rehearse on Tuesdays", "it starts at 9"
_GOES_ON = re.compile(r"^(?:we|they|it)(?:\s|['\u2019])", re.IGNORECASE)


def _with_context(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """Each "we ...", "they ...", "it ..." clause after another of the same sentence carries the
    other's value words as its context (relations and dates left out: "we rehearse on Tuesdays"
    is about the choir, not about the user's sister)."""
    out: list[ExtractedFact] = []
    for index, fact in enumerate(facts):
        if index and _GOES_ON.match(fact.text):
            said = DATE.sub(" ", facts[index - 1].value)
            named = [w.lower() for w in read_words(said)]
            kept = {stem(w) for w in named if w not in STOPWORDS and not relation_word(w)}
            fact = replace(fact, context=tuple(sorted(kept - word_stems(fact.text))))
        out.append(fact)
    return out
