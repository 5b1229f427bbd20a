"""A question about what was true at an earlier moment the user names by what they did, said or
asked then ("Which city was I living in when I asked you for a dessert recipe?").

The claims model copies the words naming the moment (services/prompts/asked_when.py); code keeps
the copy only when it is the question's own words, names the one asking (pronoun voice, closed
class) and is not the whole question. The user's own message those words point to is the one
nearest them in meaning; the claims as they stood just after it was said answer the rest of the
question, as the claims of now answer a question about now (first contact sets 19 and 20: four
such questions answered with what is true now). No message near enough, or no claim of then
that answers: the question goes on as any other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from services.common.dates import when_text
from services.common.statements import sentences, turn_round
from services.common.text import TextEmbedder
from services.common.timeline import claims_at
from services.knowledge.claims.verify import quoted_in, tidy
from thea.models import Fact, UserImpulse
from thea.words import FIRST_PERSON, STOPWORDS, lower_words

#: words without one of which a question is never read for a moment (closed class: they only
#: spare the model call, the model reads the moment)
MOMENT_WORDS = frozenset({"when", "while", "time"})
#: words a copy naming a moment has at least ("when I moved")
MIN_WORDS = 3
#: how near in meaning (MiniLM cosine) a sentence of the user's must be to the words naming the
#: moment (first contact sets 19 and 20: the sentence meant 0.50-0.58, the nearest of another
#: message 0.19-0.36; "At the time I first asked you for menu ideas" and "Could you kindly
#: suggest a main course that would suit the occasion?" 0.30, not found)
MOMENT_NEAR = 0.38
#: the user's newest messages searched for the moment, and the sentences of each
MOMENT_READ = 120
MAX_SENTENCES = 12


def may_name_a_moment(question: str) -> bool:
    """The question holds a word a moment is named with: the model is asked which words do."""
    return bool(set(lower_words(question)) & MOMENT_WORDS)


def moment_words(copied: str, question: str) -> str | None:
    """The model's copy of the words naming the moment, when they are the question's own, name
    the one asking ("when I asked you ..."; not "last year", not "on friday") and leave some of
    the question to answer; else None."""
    at = tidy(copied).strip(" ,.?!")
    words = lower_words(at)
    if len(words) < MIN_WORDS or not quoted_in(at, question) or not set(words) & FIRST_PERSON:
        return None
    if len(words) >= len(lower_words(question)) - 1:
        return None
    return at


def moment_message(
    at: str, messages: Sequence[UserImpulse], embedder: TextEmbedder | None
) -> UserImpulse | None:
    """The user's message the words point to: the one holding the sentence nearest them in
    meaning, when near enough (a request is often one sentence of a longer message: "oh n can u
    send me a malva pudding recipe ..." beside a road trip and a braai list). None without an
    embedder: no moment is guessed from shared words."""
    said = [(m, s) for m in messages for s in sentences(m.content)[:MAX_SENTENCES] if s.strip()]
    if embedder is None or not said:
        return None
    # the words as copied, and without their closed-class words ("back when I asked you about
    # the train journey": 0.34 near "what should I pack for a long train journey with a cat?",
    # "back asked train journey" 0.40): the nearer of the two counts
    core = " ".join(w for w in lower_words(at) if w not in STOPWORDS) or at
    vectors = np.asarray(embedder.embed_documents([at, core, *(s for _, s in said)]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    scores = np.maximum(vectors[2:] @ vectors[0], vectors[2:] @ vectors[1])
    best = int(np.argmax(scores))
    return said[best][0] if float(scores[best]) >= MOMENT_NEAR else None


def claims_then(every: Sequence[Fact], at: int) -> list[Fact]:
    """The claims told by ``at`` as they stood then (a claim closed later is current then)."""
    told = [f for f in every if (f.valid_from or f.created_at) <= at]
    return claims_at(told, at).known


def rest_of(question: str, at: str) -> str:
    """The question without the words naming the moment: what it asks of then."""
    start = question.casefold().find(at.casefold())
    if start < 0:
        return question
    rest = f"{question[:start]} {question[start + len(at) :]}"
    rest = " ".join(rest.split())
    return rest.replace(" ,", ",").replace(" ?", "?").strip(" ,")


def moment_said(at: str, said_at: int) -> str:
    """The moment as thea says it back: "When you asked me for a dessert recipe (Saturday 5
    December 2026):" (pronoun voice turned round)."""
    turned = turn_round(at)
    return f"{turned[:1].upper()}{turned[1:]} ({when_text(said_at)}):"
