"""Statements into atomic facts: subject, attribute, value, and what the statement changes.

Deterministic (no model), so a fact is there for the very next message and the same wording
always gives the same fact. A telling sentence is cut into clauses ("I sold the Golf and got a
Skoda" -> "I sold the Golf" / "I got a Skoda"; "Anjali got a new job, she's now a pharmacist" ->
two clauses, "she" read as Anjali), and each clause is read as

* a **subject**: the user ("I", "we", "my ...", "our ...", "the deadline"), or a named person,
  pet, place or thing ("Tomás", "Tomás's birthday", "my partner Tomás", "Pixel");
* an **attribute**: what the clause says about it, as a key that different wordings share:
  the possessed noun ("my *name* is", "Pixel's *appointment*", "Pixel has an *appointment*"),
  the verb's stem ("I *live* in", "we're *living* in") or a kind of "is" ("is a nurse", "is
  allergic to", "is 4 years old");
* a **value**: the rest ("in Munich", "a nurse at the Charité");
* a **change**: what it says about earlier facts: a plain statement, a *change* ("now", "no
  longer", "not Berlin anymore", "got a new job"), an *end* ("I sold the Golf", "I quit the
  Clifton Wanderers", "my Surly got stolen", "sadly Rex passed away"), or a *move* of a date
  ("the deadline moved from March 3 to March 17", "the ride was pushed back to July 5").

The fact's text is the clause as the user said it, with the replaced value left out ("we live
in Munich, not Berlin anymore" is kept as "we live in Munich"), so a current fact never
mentions the value it replaced. :mod:`services.knowledge.record.rules` decides what each new
fact supersedes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from services.common.text import STOPWORDS
from services.cycle.statements import telling_sentences
from services.prompts.quoting import is_order
from services.recall.lexical import stem

#: the subject key of facts about the user themselves
USER = "user"


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
    #: "user" or the normalised name of another subject ("tomás", "pixel")
    subject_key: str
    #: how the subject is shown ("you", "Tomás", "Pixel")
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

    @property
    def is_current(self) -> bool:
        """An end ("I sold the Golf") is history from the moment it is said."""
        return self.change is not Change.END


_WORD = re.compile(r"[\w'&.-]*\w|[^\w\s]")
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:next|last|this)\s+(?:week|month|year|weekend)\b|\bend\s+of\s+the\s+(?:week|month|year)\b"
    rf"|\bin\s+{_MONTH}\b",
    re.IGNORECASE,
)
#: a short label before a colon: "Big news:", "Update:", "Bad luck:"
_LABEL = re.compile(r"^\s*(?:[\w'-]+\s+){0,2}[\w'-]+\s*:\s+(?=\S)")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|yo|good\s+(?:morning|afternoon|evening)|well|so|oh|ok(?:ay)?|also|anyway"
    r"|by the way|btw|sadly|unfortunately|luckily|fortunately|finally|guess what)\b[\s,!.:-]*",
    re.IGNORECASE,
)
_CHANGE_WORDS = re.compile(
    r"\b(?:now|anymore|any\s+more|no\s+longer|instead|new|newly|switched|changed|update[ds]?|these\s+days"
    r"|from\s+now\s+on|as\s+of|starting\s+(?:from|on|next|this)|from\s+next\s+(?:week|month|year))\b",
    re.IGNORECASE,
)
#: verbs that end what they are about ("sold the Golf"), in the forms that say it already happened
_END_VERBS = frozenset(
    {
        "sold", "quit", "left", "lost", "stopped", "cancelled", "canceled", "ended", "retired", "resigned",
        "stolen", "stole", "broke", "broken", "died", "dumped", "divorced", "closed", "gave", "given",
        "sell", "finished", "crashed", "wrecked", "totalled", "totaled", "scrapped", "passed",
    }
)  # fmt: skip
#: phrases that end their subject or object whatever the verb form
_END_PHRASES = re.compile(
    r"\b(?:passed\s+away|broke\s+up\s+with|gave\s+up|moved\s+out\s+of|got\s+rid\s+of|no\s+longer\s+(?:have|own)"
    r"|got\s+stolen|was\s+stolen|got\s+sold|was\s+sold|got\s+cancelled|was\s+cancelled|split\s+up)\b",
    re.IGNORECASE,
)
#: verbs that move a date or plan
_MOVE = re.compile(
    r"\b(?:moved|got\s+moved|was\s+moved|has\s+moved|pushed\s+back|pushed|postponed|rescheduled|delayed"
    r"|brought\s+forward|shifted|changed|put\s+off|bumped)\b",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|gluten|lactose|coeliac|celiac|diabet\w*"
    r"|kosher|halal|can't\s+eat|cannot\s+eat|don't\s+eat|do\s+not\s+eat|avoid\w*|pregnan\w*|asthma\w*"
    r"|epilep\w*|injur\w*|bad\s+(?:back|knee|hip)|blood\s+pressure|sober|don't\s+drink|do\s+not\s+drink)\b",
    re.IGNORECASE,
)
_USER_SUBJECTS = frozenset({"i", "we", "i'm", "we're", "i've", "we've", "i'll", "we'll", "i'd", "we'd"})
_USER_POSSESSIVES = frozenset({"my", "our"})
_CARRIED = frozenset({"i", "we", "he", "she", "they"})
_THIRD = {
    "he": "", "she": "", "they": "", "it": "",
    "he's": "'s", "she's": "'s", "they're": "'re", "it's": "'s", "he'll": "'ll", "she'll": "'ll",
    "they'll": "'ll", "they've": "'ve", "he'd": "'d", "she'd": "'d",
}  # fmt: skip
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "his", "her", "their", "its"})
_AUX = frozenset(
    {
        "am", "is", "are", "was", "were", "be", "been", "being", "'m", "'s", "'re", "have", "has", "had",
        "'ve", "'d", "will", "'ll", "would", "can", "could", "should", "shall", "may", "might", "must",
        "do", "does", "did", "going", "gonna", "get", "gets", "got", "getting", "finally", "just", "also",
        "still", "now", "currently", "already", "really", "actually", "recently", "usually", "always",
        "often", "sometimes", "soon", "even", "officially", "newly", "then", "only", "used",
    }
)  # fmt: skip
#: words that say when, ending an object ("sold the Panda last week")
_TIME_WORDS = frozenset(
    {"last", "next", "this", "yesterday", "today", "tonight", "tomorrow", "ago", "recently",
     "because", "since", "so", "after", "before", "when", "while"}
)  # fmt: skip
_LINKERS = frozenset({"now", "then", "so", "but", "and", "also", "today", "currently", "these"})
_PARTICLES = frozenset({"up", "away", "out", "off", "with", "from", "of", "on", "down", "over"})
_NEGATIONS = frozenset({"not", "never", "no", "don't", "doesn't", "didn't", "won't", "can't", "cannot",
                        "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't"})  # fmt: skip
_BE = frozenset({"am", "is", "are", "was", "were", "be", "been", "being", "'m", "'s", "'re"})
_PREPOSITIONS = frozenset(
    {"in", "at", "on", "for", "to", "from", "with", "by", "of", "as", "about", "into", "after", "near", "off"}
)
_IRREGULAR = {
    "got": "get", "gotten": "get", "sold": "sell", "bought": "buy", "left": "leave", "went": "go",
    "gone": "go", "made": "make", "took": "take", "taken": "take", "drove": "drive", "driven": "drive",
    "stolen": "steal", "stole": "steal", "lost": "lose", "met": "meet", "found": "find", "became": "become",
    "began": "begin", "begun": "begin", "had": "have", "has": "have", "ran": "run", "won": "win",
    "paid": "pay", "said": "say", "told": "tell", "broke": "break", "broken": "break", "chose": "choose",
    "fell": "fall", "felt": "feel", "kept": "keep", "brought": "bring", "taught": "teach", "wrote": "write",
    "written": "write", "ate": "eat", "eaten": "eat", "grew": "grow", "grown": "grow", "flew": "fly",
    "spent": "spend", "sent": "send", "built": "build", "swam": "swim", "rode": "ride", "ridden": "ride",
}  # fmt: skip
#: words that end a clause's subject noun phrase when they follow it (the verb starts there)
_NOT_NOUN = frozenset({*_AUX, *_PREPOSITIONS, "and", "or", "but", "who", "which", "that", "because"})
#: clause boundaries: the words after one of these start a clause of their own when they have a subject
_BOUNDARY = re.compile(r"\s*(?:;|,\s*(?:and|but|so|because)?|\band\b|\bbut\b|\bso\b)\s*", re.IGNORECASE)
#: value words that say when or how long rather than what ("now", "anymore", "for now")
_TRAILING = re.compile(
    r"(?:[\s,]+(?:now|anymore|any\s+more|for\s+now|these\s+days|at\s+the\s+moment|again|too|as\s+well))+\s*$",
    re.IGNORECASE,
)
#: a replaced value named beside the new one (", not Berlin anymore", "instead of X")
REPLACED_VALUE = _REPLACED = re.compile(
    r",?\s*(?:(?:and\s+)?not\s+(?P<a>[^,.;]+?)\s+(?:anymore|any\s+more)|,\s*no\s+longer\s+(?:in\s+|at\s+)?(?P<b>[^,.;]+)"
    r"|instead\s+of\s+(?P<c>[^,.;]+)|rather\s+than\s+(?P<d>[^,.;]+))",
    re.IGNORECASE,
)
#: the new value of a move starts with a date ("moved to May 9", "pushed back to July 5")
_DATE_START = re.compile(
    rf"(?:the\s+)?(?:{_MONTH}\b|\d{{1,2}}(?:st|nd|rd|th)?\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|next\b|tomorrow\b|\d{4}-)",
    re.IGNORECASE,
)
#: verbs of moving house ("we moved to York", "she's relocating to Porto")
_RELOCATE = frozenset({"mov", "relocat", "emigrat"})
_PLACE_TO = re.compile(r"\bto\s+[A-Z]")
_FROM_TO = re.compile(r"\bfrom\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$", re.IGNORECASE)
#: attributes said in different words ("I work as a nurse" and "I'm a nurse at ..." are one job)
_ALIASES = {"work": "job", "employ": "job"}
_AGE = re.compile(r"^\d+\s+(?:years?|months?|weeks?)\s+old\b", re.IGNORECASE)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.replace("\u2019", "'"))


def _is_name(token: str) -> bool:
    return (token[:1].isupper() and token.lower() not in STOPWORDS and token.isalpha()) or (
        token[:1].isupper() and "'" not in token and token[1:].islower() and token.lower() not in STOPWORDS
    )


def _lemma(word: str) -> str:
    low = word.lower().removeprefix("'")
    return stem(_IRREGULAR.get(low, low))


def _is_verb_like(token: str, *, noun: bool = False) -> bool:
    """Whether a word can be a verb; inside a noun phrase (``noun``) an -ing word is a noun
    ("the billing migration")."""
    low = token.lower()
    if noun and low.endswith("ing") and low not in _AUX:
        return False
    return (
        low in _AUX
        or low in _IRREGULAR
        or low in _END_VERBS
        or (len(low) > 4 and low.endswith(("ed", "ing")))
        or low in {"live", "lives", "work", "works", "play", "plays", "drive", "drives", "own", "owns",
                   "commute", "commutes", "starts", "start", "moves", "needs", "likes", "loves", "hates",
                   "wants", "runs", "teaches", "studies", "goes", "takes", "makes", "keeps", "drinks"}
    )  # fmt: skip


def _starts_clause(words: list[str]) -> bool:
    """Whether these words open a clause: a subject followed by a verb, or a bare verb."""
    while words and words[0].lower() in _LINKERS:
        words = words[1:]
    if not words:
        return False
    first = words[0].lower()
    if first in _USER_SUBJECTS or first in _THIRD:
        return True
    # "my Surly got stolen", "the deadline is March 3", "Pixel's appointment got moved"
    for i, word in enumerate(words[:5]):
        if word in (",", ";"):
            return False
        if i and _is_verb_like(word):
            head = words[0]
            return first in _USER_POSSESSIVES or first in _DETERMINERS or _is_name(head.removesuffix("'s"))
    return False


def clauses(sentence: str) -> list[str]:
    """A telling sentence cut where a new subject (or a verb with the same subject) starts."""
    text = _LABEL.sub("", sentence.strip(), count=1)
    text = _GREETING.sub("", text, count=1).strip()
    pieces: list[str] = []
    current = ""
    position = 0
    for match in _BOUNDARY.finditer(text):
        before, after = text[position : match.start()], text[match.end() :]
        current += before
        following = _tokens(after)
        bare_verb = (
            match.group().strip().lower() in ("and", ", and")
            and bool(following)
            and (following[0].lower() in _IRREGULAR or following[0].lower() in _END_VERBS)
        )
        said = _tokens(current)
        has_verb = any(_is_verb_like(t) for t in said[1:]) or (
            bool(said) and "'" in said[0] and said[0].lower() in _USER_SUBJECTS | set(_THIRD)
        )
        if current.strip() and has_verb and (_starts_clause(following) or bare_verb):
            pieces.append(current.strip())
            first = _tokens(current)[0]
            # "I sold the Golf and got a Skoda": the second clause keeps the subject "I"
            current = f"{first} " if bare_verb and first.lower() in _CARRIED else ""
        else:
            current += match.group()
        position = match.end()
    current += text[position:]
    if current.strip():
        pieces.append(current.strip())
    return [p.strip(" ,;") for p in pieces if p.strip(" ,;")]


@dataclass
class _Reader:
    """Reads the clauses of one message in order (a pronoun refers to the last name seen)."""

    last_name: str = ""
    last_user_clause: bool = False
    facts: list[ExtractedFact] = field(default_factory=list)

    def read(self, clause: str, label_change: bool) -> None:
        tokens = [t for t in _tokens(clause) if t not in {",", ";"}]
        if not tokens:
            return
        names = [t.removesuffix("'s") for t in tokens if _is_name(t.removesuffix("'s"))]
        while len(tokens) > 1 and tokens[0].lower() in _LINKERS:
            tokens = tokens[1:]  # "now I live in Rome"
        start = _skip_leading_phrase(tokens)
        subject_key, subject, attribute_noun, rest, said_subject = self._subject(tokens, start)
        if rest or attribute_noun:
            said = _named(clause, said_subject, subject) if subject_key != USER else clause
            fact = _reading(said, subject_key, subject, attribute_noun, rest, said_subject, label_change)
            if fact is not None:
                self.facts.append(fact)
        if names:
            self.last_name = names[-1]
        elif subject_key != USER:
            self.last_name = subject

    def _subject(self, tokens: list[str], start: int) -> tuple[str, str, str, list[str], list[str]]:
        """(subject key, shown subject, possessed noun, the tokens after the subject, subject tokens)."""
        first = tokens[start].lower()
        if first in _USER_SUBJECTS:
            rest = tokens[start + 1 :] if first in ("i", "we") else [_contracted(first), *tokens[start + 1 :]]
            return USER, "you", "", rest, tokens[: start + 1]
        if first in _THIRD and self.last_name:
            suffix = _THIRD[first]
            rest = ([suffix] if suffix else []) + tokens[start + 1 :]
            return self.last_name.lower(), self.last_name, "", rest, tokens[: start + 1]
        # "Tomás and I ...": the user (with someone)
        if (
            len(tokens) > start + 2
            and tokens[start + 1].lower() == "and"
            and tokens[start + 2].lower()
            in (
                "i",
                "we",
            )
        ):
            return USER, "you", "", tokens[start + 3 :], tokens[: start + 3]
        # a noun phrase up to the verb: "my partner Tomás", "Tomás's birthday", "the deadline"
        end = start
        while end < len(tokens) and (
            end == start
            or (tokens[end].lower() not in _NOT_NOUN and not _is_verb_like(tokens[end], noun=True))
        ):
            after_name = end > start and _is_name(tokens[end - 1]) and not tokens[end - 1].endswith("'s")
            if after_name and tokens[end][:1].islower():
                break  # "my daughter Lily turns 7": the word after the name is the verb
            end += 1
        phrase, rest = tokens[start:end], tokens[end:]
        owner_is_user = phrase[0].lower() in _USER_POSSESSIVES
        body = phrase[1:] if owner_is_user or phrase[0].lower() in _DETERMINERS else phrase
        if not body:
            return USER, "you", "", rest, phrase
        possessive = next((i for i, t in enumerate(body) if t.endswith("'s") and _is_name(t[:-2])), None)
        if possessive is not None:  # "Tomás's birthday", "my partner Tomás's car"
            owner = body[possessive][:-2]
            noun = " ".join(body[possessive + 1 :])
            return owner.lower(), owner, noun, rest, phrase
        names = [t for t in body if _is_name(t)]
        if names:  # "my partner Tomás", "Pixel", "our neighbour Jonas", "my Surly"
            name = " ".join(t for t in body if _is_name(t))
            return name.lower(), name, "", rest, phrase
        # "my name", "our rent", "the deadline", "the billing migration deadline"
        return USER, "you", " ".join(body), rest, phrase


#: what a pronoun's contraction stands for once the pronoun is a name ("she's" -> "Pixel is")
_EXPANDED = {"'s": " is", "'re": " are", "'ll": " will", "'ve": " has", "'d": " would", "": ""}


def _named(clause: str, said_subject: list[str], name: str) -> str:
    """The clause with a pronoun subject replaced by the name it refers to ("She is 4 years old."
    -> "Pixel is 4 years old."), so the fact says whom it is about on its own."""
    if len(said_subject) != 1 or said_subject[0].lower() not in _THIRD:
        return clause
    pronoun = said_subject[0]
    found = re.search(rf"\b{re.escape(pronoun)}(?![\w'])", clause.replace("\u2019", "'"))
    if found is None:
        return clause
    return clause[: found.start()] + name + _EXPANDED[_THIRD[pronoun.lower()]] + clause[found.end() :]


def _contracted(word: str) -> str:
    return "'" + word.split("'", 1)[1] if "'" in word else ""


def _skip_leading_phrase(tokens: list[str]) -> int:
    """Where the subject starts after a leading time or place phrase ("At work I ...", "From next
    month we ...", "On Sundays I ...")."""
    if tokens[0].lower() not in _PREPOSITIONS | {"next", "last", "this", "since", "after", "before", "once"}:
        return 0
    for i, token in enumerate(tokens[1:7], start=1):
        if token.lower() in _USER_SUBJECTS or token.lower() in _USER_POSSESSIVES:
            return i
    return 0


def _reading(
    clause: str,
    subject_key: str,
    subject: str,
    noun: str,
    rest: list[str],
    said_subject: list[str],
    label_change: bool,
) -> ExtractedFact | None:
    """Attribute, value and change of one clause from what follows its subject."""
    i = 0
    saw_be = passive = ended = habit = False
    while i < len(rest) and (rest[i].lower() in _AUX or rest[i].lower() in _NEGATIONS):
        if rest[i].lower() in _NEGATIONS:
            if rest[i].lower() == "no" and i + 1 < len(rest) and rest[i + 1].lower() == "longer":
                ended = True  # "I no longer work at Acme"
                i += 1
            i += 1
            continue
        if rest[i].lower() == "used" and i + 1 < len(rest) and rest[i + 1].lower() == "to":
            habit = True  # "I used to live in Paris": history from the start
            i += 2
            continue
        low = rest[i].lower()
        nxt = rest[i + 1].lower() if i + 1 < len(rest) else ""
        participle = nxt.endswith("ed") or nxt in _IRREGULAR or nxt in _END_VERBS
        if low in ("have", "has", "had", "'ve", "'d") and nxt and nxt not in _AUX and not participle:
            break  # "we have a cat", "Pixel has an appointment": have is the verb
        if low in ("got", "get", "gets", "getting") and not participle:
            break  # "got a new job": get is the verb; "got moved", "got stolen": passive
        saw_be = saw_be or low in _BE
        passive = passive or ((low in _BE or low in ("got", "get", "gets")) and participle)
        i += 1
    verb = rest[i] if i < len(rest) else ""
    low_verb = verb.lower()
    value_tokens = [t for t in rest[i + 1 :] if t not in (".", "!", "?")]
    lowered_clause = clause.lower()
    end = (
        ended
        or habit
        or bool(_END_PHRASES.search(clause))
        or (low_verb in _END_VERBS and not (low_verb.endswith("ing")) and not _future(rest[:i]))
    )
    moved = _MOVE.search(clause)
    move = moved is not None and bool(_DATE_START.match(_after_to(clause[moved.end() :])))
    relocation = not move and _lemma(verb) in _RELOCATE and bool(_PLACE_TO.search(" ".join(rest[i + 1 :])))
    copula = low_verb in _BE or not verb or (saw_be and not passive and not low_verb.endswith("ing")
                                              and not _is_verb_like(verb))  # fmt: skip
    if copula:
        # "is a nurse", "is allergic to peanuts", "is 4 years old", "the deadline is March 3"
        value_tokens = [
            t for t in (rest[i + 1 :] if low_verb in _BE else rest[i:]) if t not in (".", "!", "?")
        ]
        value = " ".join(value_tokens)
        attribute = _copula_attribute(value, noun, subject_key)
    else:
        value = " ".join(value_tokens)
        if noun:
            attribute = stem(noun.split()[-1])
        elif _lemma(verb) in ("hav", "get", "own") and value_tokens:
            attribute = _object_head(value_tokens) or _lemma(verb)
        else:
            attribute = _lemma(verb)
    if relocation:
        attribute = stem("live")
    if attribute in _ALIASES:
        attribute = _ALIASES[attribute]
    text = clause.strip().rstrip(".!")
    old_value = ""
    replaced = _REPLACED.search(text)
    if replaced:
        old_value = next(g for g in replaced.groups() if g)
        text = (text[: replaced.start()] + text[replaced.end() :]).strip(" ,")
        value = _REPLACED.sub("", value).strip(" ,")
    from_to = _FROM_TO.search(value) if move or relocation else None
    if from_to:
        old_value = from_to.group("old")
        value = from_to.group("new")
        text = re.sub(rf"\s*\bfrom\s+{re.escape(old_value)}\s+to\b", " to", text, flags=re.IGNORECASE)
    if move:
        value = re.sub(r"^(?:back\s+|forward\s+)?(?:to|until|till)\s+", "", value, flags=re.IGNORECASE)
    value = re.split(r"\s+(?:because|since|as|due\s+to)\b", value, maxsplit=1)[0]
    value = _TRAILING.sub("", value).strip(" ,.")
    if end:
        change = Change.END
    elif move:
        change = Change.MOVE
    elif label_change or old_value or relocation or _CHANGE_WORDS.search(lowered_clause):
        change = Change.CHANGE
    else:
        change = Change.NONE
    about = () if habit else _about(said_subject, value_tokens, change, noun, passive or subject_key != USER)
    category = Category.CONSTRAINT if _CONSTRAINT.search(clause) else Category.GENERAL
    return ExtractedFact(
        subject_key=subject_key,
        subject=subject,
        attribute=attribute,
        value=value,
        text=_sentence(text),
        change=change,
        old_value=old_value.strip(),
        about=about,
        dated=bool(_DATE.search(value) or _DATE.search(text)),
        category=category,
    )


def _after_to(text: str) -> str:
    """What follows the "to" of a move ("... back to July 5" -> "July 5")."""
    found = re.search(r"\b(?:to|until|till|for)\s+(.*)$", text, re.IGNORECASE)
    return found.group(1) if found else ""


def _future(auxiliaries: list[str]) -> bool:
    return any(a.lower() in ("will", "'ll", "going", "gonna", "might", "may", "could", "should")
               for a in auxiliaries)  # fmt: skip


def _copula_attribute(value: str, noun: str, subject_key: str) -> str:
    if noun:
        return stem(noun.split()[-1])
    words = value.split()
    if subject_key == USER and words and all(_is_name(w) for w in words[:3]) and len(words) <= 3:
        return stem("name")  # "I'm Raj Mehta"
    if _AGE.match(value):
        return "age"
    if not words:
        return "be"
    first = words[0].lower()
    if first in ("a", "an"):
        return "be-a"
    if len(words) > 1 and words[1].lower() in _PREPOSITIONS and first not in _PREPOSITIONS:
        return "be-" + stem(first)  # "allergic to", "married to", "afraid of"
    if first in _PREPOSITIONS:
        return "be-" + first  # "is in Lisbon", "is at the Charité", "is on May 8"
    return "be"


def _object_head(tokens: list[str]) -> str:
    """The head noun of an object phrase: its last word before a preposition or comma."""
    head = ""
    for token in tokens:
        low = token.lower()
        if low in _PREPOSITIONS or low in ("called", "named", "who", "which", "that", ",", "and", "or"):
            break
        if head and _is_name(token):
            break
        if low not in _DETERMINERS and low not in STOPWORDS and token.isalpha():
            head = low
    return stem(head) if head else ""


def _about(subject: list[str], value: list[str], change: Change, noun: str, passive: bool) -> tuple[str, ...]:
    """What an end or a move is about: the thing that ended ("the Golf") or moved ("the ride")."""
    if change is Change.NONE or change is Change.CHANGE:
        return ()
    if change is Change.MOVE:
        words = [*subject, *noun.split()]
    else:
        words = subject if passive or not value else _object_words(value)
        words = [w for w in words if w.lower() not in _USER_SUBJECTS]
    return tuple(
        dict.fromkeys(
            w.lower().removesuffix("'s")
            for w in words
            if w.isalpha() or w.endswith("'s")
            if w.lower().removesuffix("'s") not in STOPWORDS and len(w) > 2
        )
    )


def _object_words(tokens: list[str]) -> list[str]:
    """The object after a verb, particles skipped ("broke up with Sam" -> "Sam")."""
    words: list[str] = []
    for token in tokens:
        low = token.lower()
        if not words and (low in _PARTICLES or low in _PREPOSITIONS):
            continue
        if low in _PREPOSITIONS or token in (",", ";") or low in _TIME_WORDS:
            break
        words.append(token)
    return words


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;")
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")


def extract_facts(message: str) -> list[ExtractedFact]:
    """Every fact the telling sentences of a message state, in order."""
    reader = _Reader()
    for sentence in telling_sentences(message):
        if is_order(sentence):  # an order to the assistant is never a fact about anyone
            continue
        label = _LABEL.match(sentence.strip())
        label_change = bool(label and _CHANGE_WORDS.search(label.group()))
        for clause in clauses(sentence):
            reader.read(clause, label_change)
    return reader.facts
