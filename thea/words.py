"""What a word is: the one word reader of recall, grounding, concepts, the planner, merge and the
knowledge record.

A word is a run of letters and digits (any script; ``_`` is no letter), with an apostrophe
(``'`` or U+2019), a hyphen or a full stop inside it joining two such runs: "don't", "O'Brien",
"well-known", "Node.js", "3.5" are one word each; "students'" is the word "students" and a
sentence's full stop is no part of its last word. Everything here reads words with
:data:`WORD`; no other module defines a word pattern of its own.

- :func:`words`, :func:`iter_words`: the words as written; :func:`lower_words` lower-cased;
- :func:`terms`: lower-cased letter-and-digit runs, a word's inner joiners splitting it
  ("don't" -> "don", "t"): what recall indexes and grounding matches;
- :func:`is_content`: a word that carries meaning (no stopword, three letters or more);
- :func:`pieces`: the text cut into words and what lies between them, for rewriting it in place;
- :func:`first_word`, :func:`without_possessive`: small helpers on the same reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

#: THE word: letters/digits, with inner apostrophes, hyphens or full stops joining runs of them
WORD = re.compile(r"[^\W_]+(?:['\u2019.\-][^\W_]+)*")
#: what may join two runs of one word (the separators :func:`terms` splits at)
_JOINERS = str.maketrans({"'": " ", "\u2019": " ", ".": " ", "-": " "})

#: a word that says "not" (closed class; "haven't" as typed, or without its apostrophe: "dont")
NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without"
    r"|dont|doesnt|didnt|havent|hasnt|hadnt|cant|wont|isnt|arent|wasnt)\b|n't\b|(?<=n)\s?\bt\b",
    re.IGNORECASE,
)

#: the writer speaking of themselves (closed class; "im", "ive" as typed without an apostrophe)
FIRST_PERSON = frozenset(
    {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "im", "ive", "id"}
)

#: someone else as the one a clause is about, when it begins with them (closed class)
SINGULAR_SUBJECTS = frozenset({"he", "she"})

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "about",
        "from",
        "into",
        "over",
        "under",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "yours",
        "we",
        "our",
        "us",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "please",
        "tell",
        "say",
        "said",
        "know",
        "think",
        "remember",
        "any",
        "some",
        "all",
        "just",
        "also",
        "very",
        "really",
        "there",
        "here",
        "as",
        "than",
        "too",
        "let",
        "lets",
        "ok",
        "okay",
        "hi",
        "hello",
        "thanks",
        "thank",
    ]
)


def words(text: str) -> list[str]:
    """The words of a text as written ("Don't", "O\u2019Brien", "well-known")."""
    return WORD.findall(text)


def lower_words(text: str) -> list[str]:
    """The words of a text lower-cased, a curly apostrophe written straight ("I\u2019m" -> "i'm")."""
    return WORD.findall(text.lower().replace("\u2019", "'"))


def holds_words(text: str, wanted: Sequence[str]) -> bool:
    """The text holds these lower-cased words one after another ("Tango" in "I told you Tango
    was eleven"; "Al" is no word of "also")."""
    if not wanted:
        return False
    said = lower_words(text)
    n = len(wanted)
    return any(said[i : i + n] == list(wanted) for i in range(len(said) - n + 1))


def iter_words(text: str) -> Iterator[str]:
    """The words of a text as written, taken one by one (a long text need not be read to its end)."""
    return (match.group() for match in WORD.finditer(text))


def terms(text: str) -> list[str]:
    """Lower-cased runs of letters and digits: each word, split at its inner joiners
    ("Don't go" -> "don", "t", "go"). What recall's keyword stage indexes and matches."""
    out: list[str] = []
    for word in WORD.findall(text.lower()):
        if word.isalnum():
            out.append(word)
        else:
            out.extend(word.translate(_JOINERS).split())
    return out


def is_content(word: str) -> bool:
    """The word carries meaning: no stopword, three letters or more."""
    return len(word) > 2 and word.lower() not in STOPWORDS


def pieces(text: str) -> list[str]:
    """The text as alternating pieces, words and what lies between them; joined they give the
    text back exactly. A piece is a word when its first character is a letter or a digit (what
    lies between words has none)."""
    out: list[str] = []
    end = 0
    for match in WORD.finditer(text):
        if match.start() > end:
            out.append(text[end : match.start()])
        out.append(match.group())
        end = match.end()
    if end < len(text):
        out.append(text[end:])
    return out


def first_word(text: str) -> str:
    """The first word of a text ("" when it has none)."""
    match = WORD.search(text)
    return match.group() if match else ""


def without_possessive(word: str) -> str:
    """A word without its possessive "'s" ("Caroline's" -> "Caroline", "Anna\u2019s" alike)."""
    return word.removesuffix("'s").removesuffix("\u2019s").removesuffix("'S").removesuffix("\u2019S")


def written_names(text: str) -> Iterator[str]:
    """The words a text writes as names: capitalised, not its first word, no stopword ("Kuba" in
    "What does my son Kuba …?"; "Caroline's" is "Caroline"), one by one."""
    words = (without_possessive(w) for w in iter_words(text))
    return (w for i, w in enumerate(words) if i > 0 and w[0].isupper() and w.lower() not in STOPWORDS)
