"""A message that tells something, read again with what the model says it asks of thea.

The reading of acts by sentence shape (services/common/understanding.py) is kept for what it is
sure of; where a message tells something, the claims model reads the whole of it and says which
words ask for help, which ask about the user's own life, or that nothing is asked
(services/prompts/asked_beside_news.py). Code then marks the parts: the words that ask become a
part of their own (a request or a question), and a "question" without a question mark that the
model found asks nothing is a statement. Closed-class work only: the question mark is the one
sign read here; what asks is the model's to say.
"""

from __future__ import annotations

import re

from services.common.understanding import Act, Part, Understanding
from services.prompts.asked_beside_news import Asked, AskedBesideNews
from thea.words import SINGULAR_SUBJECTS, lower_words

#: share of the copied words a part must hold to be the one that asks (a copy that is not exact)
NEAR_COPY = 0.6

_ACT = {Asked.HELP: Act.REQUEST, Asked.MY_LIFE: Act.QUESTION}


def _has_words(text: str) -> bool:
    return bool(lower_words(text))


def _split(part: Part, asked: str, act: Act) -> list[Part] | None:
    """The part cut round the copied words, which become a part of ``act``; None when the part
    does not hold them word for word (whatever the spacing and case)."""
    words = asked.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    found = re.search(pattern, part.text, re.IGNORECASE)
    if found is None:
        return None
    before, after = part.text[: found.start()].strip(), part.text[found.end() :].strip()
    cut = [Part(before, part.act)] if _has_words(before) else []
    if not _has_words(after):  # the sentence's own end stays on it ("best way to train him.")
        return [*cut, Part(found.group() + after, act)]
    return [*cut, Part(found.group(), act), Part(after, part.act)]


def _holds(part: Part, asked: str) -> bool:
    """The part holds most of the copied words (a copy with a word changed or left out)."""
    wanted = set(lower_words(asked))
    return bool(wanted) and len(wanted & set(lower_words(part.text))) >= NEAR_COPY * len(wanted)


def reread(understanding: Understanding, read: AskedBesideNews) -> Understanding:
    """The message's parts as the model read it: the words that ask as a request (help) or a
    question (about the user's life), and the other parts taken for questions without a question
    mark as statements; unchanged when the model names words the message does not hold. Words
    that open on someone else ("he", "she") are what they asked, not the user: nothing asked."""
    asked = " ".join(read.asked.split())
    act = _ACT.get(read.asks)
    opening = lower_words(asked)[:1]
    if opening and opening[0] in SINGULAR_SUBJECTS:
        # what someone else asked is news (first contact, set 22: "... and he has asked me never
        # to mention drawing boards again", read as help asked, got "I don't know.")
        act = None
    parts: list[Part] = []
    placed = act is None or not asked
    for part in understanding.parts:
        if not placed and act is Act.QUESTION and part.act is Act.STATEMENT and "?" not in asked:
            # a statement read as a question of the user's life, with no question mark: the
            # model's misreading of news is worse than the sentence's shape (first contact, set 15:
            # "Kidney failure, the vet said he was suffering" read as asking, and answered)
            continue
        if not placed and act is not None:
            cut = _split(part, asked, act) or ([Part(part.text, act)] if _holds(part, asked) else None)
            if cut is not None:
                parts += cut
                placed = True
                continue
        if part.act is Act.QUESTION and not part.text.rstrip().endswith("?"):
            parts.append(Part(part.text, Act.STATEMENT))  # asks nothing, in the model's reading
        else:
            parts.append(part)
    if not placed:  # words the message does not hold: the model's own, not the user's
        return understanding
    return Understanding(tuple(parts))
