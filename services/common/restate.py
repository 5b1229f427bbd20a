"""The user's own sentences restated as facts about "the user" (deterministic, no model).

"My name is Priya Ramanathan and I work on Tidewatch." becomes "The user's name is Priya
Ramanathan and the user works on Tidewatch." This is what the slow loop stores as a grounded
insight when the model's insight for a statement was not supported by what the user said
(services/reflection/crystallizer.py): every content word comes from the user's sentence, so the fact is
still remembered and recallable, and nothing is added to it.

Only the first person is turned ("I", "me", "my", "mine", "we", "our", contractions); a verb
right after a turned "I"/"we" is put in the third person singular ("work" -> "works",
"have" -> "has", "am" -> "is"); past tenses and modals stay as they are.
"""

from __future__ import annotations

import re

from services.common.statements import IRREGULAR_PAST, telling_sentences, without_opening
from thea.words import pieces

#: first-person words and what "the user" says instead
_SUBJECT = {"i": "the user", "we": "the user"}
_OTHER = {
    "me": "the user",
    "us": "the user",
    "my": "the user's",
    "our": "the user's",
    "mine": "the user's",
    "ours": "the user's",
    "myself": "themselves",
    "ourselves": "themselves",
    "i'm": "the user is",
    "we're": "the user is",
    "i've": "the user has",
    "we've": "the user has",
    "i'll": "the user will",
    "we'll": "the user will",
    "i'd": "the user would",
    "we'd": "the user would",
}
#: "my"/"our" once the sentence has named "the user": "The user drinks their coffee black."
_POSSESSIVE = frozenset({"my", "our"})
#: after "I"/"we": these stay (past tenses, modals) or change irregularly
_IRREGULAR = {"am": "is", "are": "is", "was": "was", "were": "was", "have": "has", "do": "does", "go": "goes"}
_UNCHANGED = frozenset(
    [
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "also",
        "still",
        "never",
        "always",
        "often",
        "usually",
        "just",
        "really",
        "only",
        "already",
        "don't",
        "didn't",
        "can't",
        "won't",
        "wasn't",
        "haven't",
        "hadn't",
        "had",
        "did",
        "not",
        "and",
        "or",
        "but",
    ]
)
#: words between "I" and its verb ("I also work", "I sometimes walk"): kept, the verb after them turns
_ADVERBS = frozenset(
    ["also", "still", "never", "always", "often", "sometimes", "just", "even", "almost", "now", "already",
     "only", "soon", "once", "ever"]
)  # fmt: skip
#: at most this much restated text
MAX_CHARS = 400


#: irregular past tenses (they stay: "I sold" -> "the user sold"): the ones a telling sentence
#: is known by, and more that are also present tenses ("put", "hurt") or need no telling
_PAST = IRREGULAR_PAST | frozenset(
    [
        "saw", "said", "felt", "built", "sent", "taught", "heard", "put", "lent", "chose", "forgot", "sat",
        "slept", "spoke", "stood", "woke", "ate", "drank", "led", "held", "hurt", "understood"
    ]
)  # fmt: skip


def third_person_verb(word: str) -> str:
    """ "work" -> "works", "teach" -> "teaches", "study" -> "studies"; past tenses stay."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _UNCHANGED or low in _PAST or low.endswith("ed") or low.endswith("'t") or len(low) < 2:
        return word
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return word + "es"
    if re.search(r"[^aeiou]y$", low):
        return word[:-1] + "ies"
    return word + "s"


def restate_sentence(sentence: str) -> str:
    """One sentence in the third person, about "the user"."""
    tokens = pieces(" ".join(sentence.split()))
    out: list[str] = []
    conjugate = False
    named = False  # "the user" already said in this sentence: "my" is then "their"
    for tok in tokens:
        low = tok.lower().replace("\u2019", "'")
        if not tok[0].isalpha():
            out.append(tok)
            continue
        if conjugate:
            conjugate = False
            adverb = low in _ADVERBS or (len(low) > 4 and low.endswith("ly"))  # "I usually walk"
            new = tok if adverb else third_person_verb(tok)
            conjugate = adverb
        elif low in _SUBJECT:
            new = _SUBJECT[low]
            conjugate = True
        elif low in _POSSESSIVE and named:
            new = "their"
        elif low in _OTHER:
            new = _OTHER[low]
        else:
            new = tok
        named = named or new.startswith("the user")
        out.append(new)
    text = "".join(out).strip()
    if text:
        text = text[0].upper() + text[1:]
        if text[-1] not in ".!…":
            text = text.rstrip(";,:") + "."
    return text


def restate(message: str, limit: int = MAX_CHARS) -> str:
    """The telling sentences of a message, restated; "" when it tells nothing."""
    out = ""
    for sentence in telling_sentences(message):
        restated = restate_sentence(without_opening(sentence))
        if out and len(out) + 1 + len(restated) > limit:
            break
        out = f"{out} {restated}".strip()
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"
