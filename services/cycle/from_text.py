"""Answers from a text the user gave (issue 38, item 3): a pasted letter, timetable or recipe is
answered from its own lines, never from the model's invention.

A question whose recalled memories hold such texts (a document's chunks, or a message long
enough to be one) is read against their lines by the model that reads claims
(services/prompts/answer_from_text.py): it names the lines that state the answer and copies the
answer from them. Code then says it only as the lines write it: the lines are quoted, and the
short answer before the quote is shown only when every number and word of substance in it is in
those lines. When no line states it and the best memory is such a text, the answer is that the
text does not say. Language-neutral: numbers and words are compared, no wording is matched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.common.statements import sentences, upper_first
from services.prompts.answer_from_text import TextAnswer
from services.recall.types import RecallHit
from thea.models import NodeType
from thea.words import is_content, lower_words

#: a recalled message with this many words is a text the user gave, not a remark
TEXT_WORDS = 40
#: texts read for one question (the best recalled), and the lines shown of them at most
TEXTS_READ = 3
MAX_LINES = 80
#: what is said when the text does not state the answer
NOT_IN_TEXT = "I can't find that in the text you gave me."

_MESSAGE_TYPES = frozenset({NodeType.USER_IMPULSE.value, NodeType.DIALOGUE_TURN.value})
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class TextQuote:
    """The answer as the text states it: the lines quoted, and a short answer when it checks."""

    lines: list[str]
    answer: str
    #: the recalled texts the lines come from
    source_ids: list[str]


def is_text(hit: RecallHit) -> bool:
    """A document's chunk, or a message long enough to be a text the user gave."""
    if hit.type == NodeType.DOCUMENT_CHUNK.value:
        return True
    return hit.type in _MESSAGE_TYPES and len(lower_words(hit.text)) >= TEXT_WORDS


def texts_of(hits: Sequence[RecallHit]) -> list[RecallHit]:
    """The best recalled texts the user gave, in recall's order."""
    return [h for h in hits if is_text(h)][:TEXTS_READ]


def lines_of(texts: Sequence[RecallHit]) -> list[tuple[str, str]]:
    """Each text's lines (its line breaks, then its sentences), with the id of the text."""
    out: list[tuple[str, str]] = []
    for hit in texts:
        for line in hit.text.splitlines():
            out += [(s, hit.id) for s in sentences(line) if s.strip()]
    return out[:MAX_LINES]


def _checks(answer: str, source: str) -> bool:
    """Every number and word of substance of the answer is in the lines it comes from."""
    digits = set(_NUMBER.findall(source))
    if any(n not in digits for n in _NUMBER.findall(answer)):
        return False
    words = set(lower_words(source))
    return all(w in words for w in lower_words(answer) if is_content(w) and not w.isdigit())


def quote_of(read: TextAnswer, lines: Sequence[tuple[str, str]]) -> TextQuote | None:
    """What the model read, as code says it (None: it named no line it was shown)."""
    chosen = [lines[n - 1] for n in dict.fromkeys(read.lines) if 1 <= n <= len(lines)]
    if not chosen:
        return None
    said = [text for text, _ in chosen]
    answer = " ".join(read.answer.split()).strip(" .")
    if answer and not _checks(answer, " ".join(said)):
        answer = ""  # the lines stand alone: the model's words did not check
    return TextQuote(said, answer, list(dict.fromkeys(source for _, source in chosen)))


def text_answer(quote: TextQuote) -> str:
    """ "8:15 (the text you gave me: “The coach leaves at 8:15 sharp.”)" """
    quoted = " … ".join(f"\u201c{line}\u201d" for line in quote.lines)
    if quote.answer:
        return f"{upper_first(quote.answer)} (the text you gave me: {quoted})"
    return f"The text you gave me says: {quoted}"
