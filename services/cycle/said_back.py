"""An answer that only says the user's request back ("another favour pls: lunch box ideas for my
two kids this week, cheap, nothing with nuts" -> "Lunch box ideas for your two kids this week,
cheap, nothing with nuts.", the 0.5B, live): no answer, whatever its words.

Closed-class work only: the words are compared as they are, the user's first person taken for
the answer's second ("my" said back as "your").
"""

from __future__ import annotations

from thea.words import lower_words

#: the answer's second person as the user's first (closed class)
_AS_THE_USERS = {"you": "i", "me": "i", "your": "my", "yours": "mine", "yourself": "myself"}
#: share of the answer's words the request holds for it to be the request said back
SAID_BACK_SHARE = 0.9
#: an answer this short (in words) is too short to tell
LEAST_WORDS = 3


def _words(text: str) -> list[str]:
    return [_AS_THE_USERS.get(w, w) for w in lower_words(text)]


def says_back(answer: str, asked: str) -> bool:
    """Nearly every word of the answer is one of the request's: it says the request back."""
    said, held = _words(answer), set(_words(asked))
    if len(said) < LEAST_WORDS or not held:
        return False
    return sum(w in held for w in said) >= SAID_BACK_SHARE * len(said)


def may_say_back(raw: str, asked: str) -> bool:
    """The start of a streamed answer holds only the request's words so far: it may yet be the
    request said back, and is held until a word of its own shows (or it ends)."""
    held = set(_words(asked))
    return bool(held) and all(w in held for w in _words(raw))
