"""Questions about the user that nothing remembered answers get "I don't know", not a guess.

Measured with the offline 0.5B model (benchmarks/knowledge.py): asked about things the user
never said ("Which car do I drive?"), it answered every time with an invented fact ("A Toyota
Camry"), whatever the prompt said. So the decision is made before the model is asked, without
it:

* the message is a **personal question**: it asks (services/common/statements.py) and speaks in the
  first person ("my ...", "I ...", "me");
* its **topic words** are its content words (stemmed, stopwords dropped) without the words
  that only frame a question ("name", "called", "kind"...); "What is my name?" keeps "name";
* a recalled memory **bears on it** when it tells something the user said or learnt (an
  impulse or turn that tells, a fact, an insight; thea's own answers and the user's earlier
  questions are no evidence) and shares a topic word, or holds a word close in meaning to one
  (word embeddings, cosine >= :data:`WORD_SIMILARITY`: "job" ~ "work", "spouse" ~ "husband").

When no recalled memory bears on a personal question the answer is a fixed sentence saying
so and naming the words looked for; a question with no topic word ("What do you know about
me?") and every other question go to the model as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from services.common.statements import asks, is_statement, sentences, tells_anything
from services.common.text import TextEmbedder
from services.recall.lexical import stem
from services.recall.types import RecallHit
from thea.words import STOPWORDS, lower_words, without_possessive

#: measured with MiniLM on single words: job~work 0.77, spouse~husband 0.87, pets~dog 0.70,
#: kid~son 0.65; unrelated pairs mostly below 0.55 (sister~husband 0.54, car~app 0.35)
WORD_SIMILARITY = 0.6
#: at most this many distinct words of the recalled memories are compared by embedding
MAX_COMPARED_WORDS = 160
#: a topic word this close to a whole recalled statement bears on it ("car" ~ "I got a Skoda
#: Octavia estate" 0.32, "bike" ~ "I commute on a steel Surly" 0.31); measured with MiniLM on
#: personas' facts, a word never said stays below (sister 0.26, daughter 0.24, brother 0.28)
STATEMENT_SIMILARITY = 0.3
#: memory types that hold what the user told or what was learnt from it
EVIDENCE_TYPES = frozenset({"UserImpulse", "DialogueTurn", "Fact", "KnowledgeCrystal"})
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
#: words that frame a question rather than say what it is about
FRAME_WORDS = frozenset(
    {
        "name",
        "names",
        "many",
        "much",
        "named",
        "call",
        "called",
        "kind",
        "sort",
        "type",
        "thing",
        "things",
        "exactly",
        "again",
        "anything",
        "something",
        "ever",
        "recall",
        "remind",
        "happen",
        "happened",
        # "How old is ...?" asks an age, not about something old
        "old",
        # when, not what: "What car do I drive now?" is about a car
        "now",
        "currently",
        "current",
        "still",
        "anymore",
        "before",
        "previous",
        "previously",
        "today",
        "these",
        "days",
    }
)
#: the speaker in a question: "my", "our", "did I", "are we", "Bernie and I" (closed-class pronouns)
_ABOUT_ME = re.compile(
    r"\b(my|mine|our|ours)\b|\b(did|do|does|am|was|were|have|had|is|are)\s+(i|we)\b|\band\s+i\b"
)
#: question words typed with their "is" run on in a hurry ("whats", "wheres", "hows")
_RUN_ON = r"(?:what|when|where|who|how)s"
_QUESTION_OPENER = re.compile(
    rf"({_RUN_ON}?|whom|whose|why|which|is|are|am|was|were|do|does|did|have|has|had)\b"
)
#: a question word with its "is" run on ("whats"): never what a question is about
_QUESTION_WORD = re.compile(_RUN_ON)
#: how-to and advice: answerable without the user's memories
_ADVICE = re.compile(
    r"\bhow\s+(do|does|can|could|should|would|might|to)\b|\b(should|could|can|shall|might)\s+(i|we)\b"
    r"|\bhelp me\b|\bwhat if\b"
)
#: requests to recall something about the user ("tell me about my job", "remind me where I ...");
#: linear time: the search for "my" after "tell me" stops at the next "tell me", which is tried on
#: its own (each scanned to the end of the line: 0.46 s for "tell me " repeated to 20,000
#: characters); whether it matches is unchanged, only used as yes or no
_RECALL_REQUEST = re.compile(r"\b(tell me|remind me)\b(?:(?!\b(?:tell|remind) me\b).)*?\b(my|mine|i)\b")


def _raw_words(text: str) -> list[str]:
    return [without_possessive(w) for w in lower_words(text)]


def is_personal_question(text: str) -> bool:
    """Some sentence asks for a fact about the speaker: a question with "my" / "mine" or with
    "I" as its subject ("Where did I ...?", "Do I ...?"), or "tell me about my ...". A request
    for help or advice ("How do I ...?", "Should I ...?", "Can you help me ...") is not one:
    it can be answered without anything the user told."""
    if is_statement(text):
        return False
    for sentence in sentences(text):
        low = sentence.lower()
        if _ADVICE.search(low):
            continue
        question = low.rstrip().endswith("?") or (asks(sentence) and _QUESTION_OPENER.match(low))
        if (question and _ABOUT_ME.search(low)) or _RECALL_REQUEST.search(low):
            return True
    return False


_MAY_THE_MONTH = re.compile(r"(?<=\w\s)May\b")


def topic_words(text: str) -> list[str]:
    """What a question is about: its content words without the question's frame, in order."""
    month = {"may"} if _MAY_THE_MONTH.search(text) else set()  # "Where am I going in May?"
    said = [
        w
        for w in _raw_words(text)
        if w not in _FIRST_PERSON and len(w) > 2 and not _QUESTION_WORD.fullmatch(w)
    ]
    content = [w for w in said if w not in STOPWORDS or w in month]
    topic = [w for w in content if w not in FRAME_WORDS] or content
    return list(dict.fromkeys(topic))


def _evidence(hits: Sequence[RecallHit]) -> list[RecallHit]:
    said = ("UserImpulse", "DialogueTurn")  # what was said counts when it tells something
    return [h for h in hits if h.type in EVIDENCE_TYPES and (h.type not in said or tells_anything(h.text))]


def _close_in_meaning(
    topic: list[str], words: list[str], statements: list[str], embedder: TextEmbedder
) -> bool:
    """A topic word close to a recalled word (cosine >= WORD_SIMILARITY) or to a whole recalled
    statement (>= STATEMENT_SIMILARITY: a car model's name is a car)."""
    if not topic or not (words or statements):
        return False
    raw = np.asarray(embedder.embed_documents([*topic, *words, *statements]), dtype=np.float64)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    vectors = raw / np.where(norms == 0, 1.0, norms)
    to_words = vectors[: len(topic)] @ vectors[len(topic) : len(topic) + len(words)].T
    to_statements = vectors[: len(topic)] @ vectors[len(topic) + len(words) :].T
    return bool((to_words >= WORD_SIMILARITY).any() or (to_statements >= STATEMENT_SIMILARITY).any())


def bears_on(topic: list[str], hits: Sequence[RecallHit], embedder: TextEmbedder | None = None) -> bool:
    """Some recalled memory of what the user told shares a topic word or one close in meaning."""
    evidence = _evidence(hits)
    if not evidence:
        return False
    stems = {stem(w) for w in topic}
    words: dict[str, None] = {}
    for hit in evidence:
        for word in _raw_words(hit.text):
            if stem(word) in stems:
                return True
            if word not in STOPWORDS and len(word) > 2:
                words.setdefault(word, None)
    if embedder is None:
        return False
    statements = [h.text for h in evidence if h.type in ("Fact", "UserImpulse", "DialogueTurn")]
    return _close_in_meaning(topic, list(words)[:MAX_COMPARED_WORDS], statements, embedder)


def not_told_answer(topic: list[str]) -> str:
    """The fixed answer: what is not known, and which words were looked for."""
    shown = [f"“{w}”" for w in topic[:4]]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    return (
        f"I don't know: you haven't told me that. Nothing I remember of what you told me mentions {listed}."
    )


def unknown_to_me(text: str, hits: Sequence[RecallHit], embedder: TextEmbedder | None = None) -> str | None:
    """The "I don't know" answer when the message is a personal question that no recalled
    memory bears on, else None (the model answers)."""
    if not is_personal_question(text):
        return None
    topic = topic_words(text)
    if not topic or bears_on(topic, hits, embedder):
        return None
    return not_told_answer(topic)
