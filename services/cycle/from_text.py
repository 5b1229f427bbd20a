"""Answers from a text the user gave (issue 38, item 3): a pasted letter, timetable or recipe is
answered from its own lines, never from the model's invention.

A question whose recalled memories hold such texts (a document's chunks, or a message with
a pasted text's shape) is read against them by the model that reads claims
(services/prompts/answer_from_text.py): it copies the words that state the answer and gives the
answer in a few words. Code then says it only as the text writes it: the line holding the copied
words is quoted (words the text does not hold are no answer), and the short answer before the
quote is shown only when every number and word of substance of it is in that line; a bare "Yes"
gives the line alone, and an answer naming what the line does not hold is no answer: the text
does not say, and the line is shown as the nearest it comes. When the model copies nothing and
such a text is among the three best memories, the answer is that the text does not say.
Language-neutral: numbers and words are compared, no wording is matched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from services.common.held import number_value, numbers, numbers_not_held
from services.common.pasted import is_pasted, lines_in
from services.common.statements import sentences, upper_first
from services.common.text import TextEmbedder
from services.common.text_tables import read_tables
from services.cycle.fact_match import restates
from services.prompts.answer_from_text import MAX_QUOTES, TextAnswer
from services.recall.lexical import stem
from services.recall.types import RecallHit
from thea.models import NodeType
from thea.words import is_content, lower_words

#: texts read for one question (the best recalled), and the characters shown of them at most
TEXTS_READ = 3
MAX_TEXT_CHARS = 6000
#: lines nearest the question the model is shown (with the line before each)
LINES_SHOWN = 8
#: lines sharing the most words of substance with the question shown beside them, when the
#: nearest by meaning leave them out (the documents set: "which room do i go to?" and the
#: letter's "… in Consulting Room 7, on the first floor.")
SHARING_SHOWN = 2
#: a line longer than this is quoted sentence by sentence
LONG_LINE = 300
#: share of the copied words one line must hold when the copy is not exact
NEAR_COPY = 0.8
#: share of the copied words one line must hold when the copy is reworded but the line holds the
#: model's answer
REWORDED_COPY = 0.5
#: words an answer found word for word in a line it did not copy has at least
WRITTEN_WORDS = 2
#: words after a number in a line that may name what it counts ("5 working days")
COUNT_REACH = 3
#: letters a shortening of what a number counts has at least ("min" for "minutes")
COUNT_ABBREVIATION = 3
#: the text does not say when nothing is copied from it and it is among this many best memories
#: (the claims read from it often rank first: seen live, the 0.5B then invented "free parking")
TEXT_RANKS = 3
#: what is said when the text does not state the answer
NOT_IN_TEXT = "I can't find that in the text you gave me."

_MESSAGE_TYPES = frozenset({NodeType.USER_IMPULSE.value, NodeType.DIALOGUE_TURN.value})


@dataclass(frozen=True)
class TextQuote:
    """The answer as the text states it: the lines quoted, and a short answer when it checks."""

    lines: list[str]
    answer: str
    #: the recalled texts the lines come from
    source_ids: list[str]
    #: the model's answer named what the lines do not hold: they are only the nearest the text
    #: comes to it
    unsupported: bool = False


#: what a pasted text that asks nothing gets
TEXT_KEPT = "Got it, I've kept that text ({lines} lines). Ask me anything about it."


def text_kept(message: str) -> str:
    """What a pasted text that asks nothing gets: what was kept, never the text said back."""
    return TEXT_KEPT.format(lines=lines_in(message))


def is_text(hit: RecallHit) -> bool:
    """A document's chunk, or a message with the shape of a pasted text (several lines and words
    enough: services/common/pasted.py). A long remark typed as one run of sentences ("Hello there.
    I'm Maggie, I'm 67 and I live in Salthill …") is the user speaking, answered from their
    claims and words, never as "the text you gave me" (seen on a first-contact persona)."""
    if hit.type == NodeType.DOCUMENT_CHUNK.value:
        return True
    return hit.type in _MESSAGE_TYPES and is_pasted(hit.text)


def texts_of(hits: Sequence[RecallHit]) -> list[RecallHit]:
    """The best recalled texts the user gave, in recall's order."""
    return [h for h in hits if is_text(h)][:TEXTS_READ]


def lines_of(texts: Sequence[RecallHit]) -> list[tuple[str, str]]:
    """Each text's lines (a long line by its sentences, a table by its records:
    services/common/text_tables.py), with the id of the text."""
    out: list[tuple[str, str]] = []
    for hit in texts:
        for line in read_tables(hit.text.splitlines()):
            parts = sentences(line) if len(line) > LONG_LINE else [line.strip()]
            out += [(part, hit.id) for part in parts if part.strip()]
    return out


def nearest_indices(
    question: str, texts: Sequence[str], embedder: TextEmbedder | None, shown: int
) -> list[int]:
    """The indices of the ``shown`` texts nearest the question by meaning, in their order; all of
    them without an embedder, or when there are no more."""
    if embedder is None or len(texts) <= shown:
        return list(range(len(texts)))
    vectors = np.asarray(embedder.embed_documents([question, *texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    scores = vectors[1:] @ vectors[0]
    return sorted(np.argsort(-scores)[:shown].tolist())


def sharing_indices(question: str, texts: Sequence[str], shown: int = SHARING_SHOWN) -> list[int]:
    """The indices of the ``shown`` texts sharing the most words of substance with the question
    (compared by recall's stemmer; at least one), the most first; a word most lines hold says
    nothing and is not counted."""
    asked = {stem(w) for w in lower_words(question) if is_content(w)}
    held = [{stem(w) for w in lower_words(t)} & asked for t in texts]
    common = {w for w in asked if sum(w in h for h in held) > len(texts) // 2}
    counts = [len(h - common) for h in held]
    ranked = sorted((i for i, n in enumerate(counts) if n), key=lambda i: -counts[i])
    return ranked[:shown]


def nearest_lines(question: str, lines: Sequence[tuple[str, str]], embedder: TextEmbedder | None) -> str:
    """The :data:`LINES_SHOWN` lines nearest the question by meaning, in the text's order, with
    the line before each (a heading or the sentence it goes on from): a small model finds the
    answer among a dozen lines far better than in a whole letter. All of them without an
    embedder, or when there are few."""
    texts = [t for t, _ in lines]
    if embedder is None or len(texts) <= LINES_SHOWN:
        return "\n".join(texts)[:MAX_TEXT_CHARS]
    best = set(nearest_indices(question, texts, embedder, LINES_SHOWN)) | set(
        sharing_indices(question, texts)
    )
    kept = sorted(best | {i - 1 for i in best if i > 0})
    return "\n".join(texts[i] for i in kept)[:MAX_TEXT_CHARS]


def flat(text: str) -> str:
    """The text's words, lower case, one space apart (copies are compared so)."""
    return " ".join(lower_words(text))


def lines_holding(quote: str, lines: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines the copied words come from: the line holding them all, else the lines they run
    over, else the one line holding most of them (at least :data:`NEAR_COPY`); none when the
    text does not hold them (the model wrote them itself)."""
    copied = flat(quote)
    if not copied:
        return []
    whole = [(t, i) for t, i in lines if copied in flat(t)]
    if whole:  # the sentence of that line holding them, when one does
        text, source = whole[0]
        sentence = next((s for s in sentences(text) if copied in flat(s)), text)
        return [(sentence, source)]
    spanned = [(t, i) for t, i in lines if flat(t) and flat(t) in copied]
    if spanned and sum(len(flat(t)) for t, _ in spanned) >= NEAR_COPY * len(copied):
        return spanned
    words = set(lower_words(quote))
    best = max(lines, key=lambda line: len(words & set(lower_words(line[0]))), default=None)
    if best is not None and len(words & set(lower_words(best[0]))) >= NEAR_COPY * len(words):
        return [best]
    return []


def says_something(answer: str) -> bool:
    """A number or a word of substance ("Yes", "No" say nothing the line does not say better)."""
    return bool(numbers(answer)) or any(is_content(w) for w in lower_words(answer))


def answer_held(answer: str, source: str, question: str) -> bool:
    """Every number of the answer is in the lines it comes from, and every word of substance in
    them or in the question (an answer may take up the question's words: "bring a packed lunch"),
    in any ending recall's stemmer maps to one key ("peanuts" for "kuba has peanut allergy":
    first contact set 29 had "I don't know" for it)."""
    words = {stem(w) for w in [*lower_words(source), *lower_words(question)]}
    # numbers are checked as numbers: "50-55" is held by "50\u201355" (an en dash splits the words)
    substance = [w for w in lower_words(answer) if is_content(w) and any(c.isalpha() for c in w)]
    return (
        not numbers_not_held(answer, source)
        and all(stem(w) in words for w in substance)
        and counts_held(answer, source)
    )


def _counted(words: Sequence[str]) -> list[tuple[str, str]]:
    """Each number of the words with the word of substance right after it ("10 slices")."""
    return [
        (number_value(w), nxt)
        for w, nxt in pairwise(words)
        if w.replace(".", "").isdigit() and is_content(nxt) and nxt.isalpha()
    ]


def counts_held(answer: str, source: str) -> bool:
    """Every number the answer gives with what it counts ("10 calories") counts the same in the
    source: the word comes within :data:`COUNT_REACH` words after that number there ("5 days" is
    held by "5 working days"; "about 10 calories" is not by "about 10 slices", seen on the
    documents set). A number the source holds with nothing after it is not compared."""
    said = lower_words(source)
    for number, counted in _counted(lower_words(answer)):
        at = [i for i, w in enumerate(said) if number_value(w) == number]
        after = [said[i + 1 : i + 1 + COUNT_REACH] for i in at]
        if any(any(is_content(w) and w.isalpha() for w in near) for near in after) and not any(
            _same_count(counted, w) for near in after for w in near
        ):
            return False
    return True


def _same_count(one: str, other: str) -> bool:
    """Two words naming what a number counts alike: one ending of a word, or a word and its
    shortening ("55 minutes" and "Bake 55 min")."""
    a, b = stem(one), stem(other)
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= COUNT_ABBREVIATION and long_.startswith(short))


def reworded(
    quote: str, answer: str, lines: Sequence[tuple[str, str]], question: str
) -> list[tuple[str, str]]:
    """The line a copy the model reworded comes from: the one holding most of its words (at
    least :data:`REWORDED_COPY`) that also holds the answer, which must name a number or a word of
    substance of its own (the documents set: "The oven is set to 170°C (150°C fan)." for "1. Heat
    the oven to 170°C (150°C fan) and line a 900 g loaf tin …", answer "170°C (150°C fan)"); none
    otherwise."""
    asked = set(lower_words(question))
    if not (numbers(answer) or any(is_content(w) and w not in asked for w in lower_words(answer))):
        return []
    words = set(lower_words(quote))
    backed = [
        (len(words & set(lower_words(line[0]))), line)
        for line in lines
        if answer_held(answer, line[0], question)
    ]
    shared, best = max(backed, key=lambda found: found[0], default=(0, None))
    if best is None or shared < REWORDED_COPY * len(words):
        return []
    return [best]


def written_in(answer: str, lines: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The one line that holds the answer word for word, when it is :data:`WRITTEN_WORDS` words
    or more (the documents set: "which room do i go to?" copied two lines beside the point and
    answered "Consulting Room 7, on the first floor", the words of a third); None when no line or
    several do."""
    words = flat(answer)
    if len(words.split()) < WRITTEN_WORDS:
        return None
    found = [line for line in lines if f" {words} " in f" {flat(line[0])} "]
    return found[0] if len(found) == 1 else None


def quote_of(read: TextAnswer, lines: Sequence[tuple[str, str]], question: str = "") -> TextQuote | None:
    """What the model read, as code says it (None: it copied nothing the text holds)."""
    answer = " ".join(read.answer.split()).strip(" .")
    held = (
        lines_holding(quote, lines) or reworded(quote, answer, lines, question)
        for quote in read.quotes[:MAX_QUOTES]
    )
    chosen = list({line: (line, source) for found in held for line, source in found}.values())
    if not chosen:
        return None
    said = [text for text, _ in chosen]
    sources = list(dict.fromkeys(source for _, source in chosen))
    if not answer or not says_something(answer):
        return TextQuote(said, "", sources)  # the lines answer on their own
    if not answer_held(answer, " ".join(said), question):  # the model named what they do not hold
        written = written_in(answer, lines)
        if written:  # the answer is the text's own words, in a line it did not copy
            return TextQuote([written[0]], answer, [written[1]])
        return TextQuote(said, "", sources, unsupported=True)
    if restates(answer, question):
        # the lines answer on their own: an answer of only the question's words names nothing
        # the text says (the documents set: "how much will the prescription cost me?" -> "The
        # cost of the prescription", beside the line saying where it was sent)
        return TextQuote(said, "", sources)
    return TextQuote(said, answer, sources)


def text_answer(quote: TextQuote) -> str:
    """ "8:15 (the text you gave me: “The coach leaves at 8:15 sharp.”)" """
    quoted = " … ".join(f"\u201c{line}\u201d" for line in quote.lines)
    if quote.unsupported:
        return f"{NOT_IN_TEXT[:-1]}; the nearest it says: {quoted}"
    if quote.answer:
        return f"{upper_first(quote.answer)} (the text you gave me: {quoted})"
    return f"The text you gave me says: {quoted}"
