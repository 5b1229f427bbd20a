"""A model that declines ("I'm sorry, but I can't assist with that request."): never shown.

The offline models refuse in a handful of English forms; code recognises those (closed-class: the
models' own words, never the user's) so a refusal is held back while it streams, and the answer
is asked again of the reading model, or replaced (services/cycle/synthesis.py).
"""

from __future__ import annotations

import re

#: a model that refuses, or speaks of itself as a program (English: the offline models' refusals)
_REFUSAL = re.compile(
    r"\b(?:can(?:not|'t|\u2019t)|unable\s+to|not\s+able\s+to)\s+(?:assist|help|comply|respond)\b"
    r"|\bas\s+an?\s+(?:ai|language\s+model|assistant)\b|\blanguage\s+model\b"
    # declining for want of what it was never asked ("That's great news! I'm sorry, but I don't
    # have enough information to answer your question.", to news that asked nothing: set 27)
    r"|\b(?:do\s+not|don't|don\u2019t)\s+have\s+(?:enough|sufficient)\s+(?:information|context|details)\b",
    re.IGNORECASE,
)
#: how the offline models' refusals open (lower case, straight apostrophe)
_OPENINGS = (
    "i'm sorry",
    "i am sorry",
    "sorry",
    "i can't",
    "i cannot",
    "i'm unable",
    "i am unable",
    "i'm not able",
    "unfortunately",
    "as an ai",
)
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s")


def is_refusal(text: str) -> bool:
    """The model declines ("I can't assist with that") or speaks of itself as a model."""
    return bool(_REFUSAL.search(text))


def may_refuse(raw: str) -> bool:
    """The start of a streamed answer is, or may still become, a refusal: it opens as one does and
    its first sentence is not complete yet, or that sentence is one. An answer opening otherwise
    ("Try a Fluke 323 …", "I'm sorry to hear about your knee. …") streams at once."""
    text = " ".join(raw.split()).lower().replace("\u2019", "'")
    if not text or not any(o.startswith(text) or text.startswith(o) for o in _OPENINGS):
        return False
    first = _FIRST_SENTENCE.split(text, maxsplit=1)
    if len(first) == 1 and not text.endswith((".", "!", "?")):
        return True  # not seen whole yet
    return is_refusal(first[0])
