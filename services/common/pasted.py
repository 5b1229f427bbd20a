"""A text the user pasted (a letter, a timetable, a recipe), told apart from what they typed by
its shape alone: several lines and enough words to be a text, or a table among them.
Language-neutral: lines, words and columns are counted, no wording is read.

A pasted text is not the user speaking about themselves: its "I", "please send ..." and
"Kind regards, Mr Hughes" are its writer's. It is kept as a text (recalled, and questions about
it are answered from its lines: services/cycle/from_text.py), never read into the user's claims
of record (services/common/told.py), and a paste that asks thea nothing is only said to be kept.
"""

from __future__ import annotations

from services.common.text_tables import holds_table
from thea.words import lower_words

#: a message (or a recalled message) with this many words is a text the user gave, not a remark
TEXT_WORDS = 40
#: a message of this many lines (and TEXT_WORDS words) was pasted, not typed as a remark
PASTED_LINES = 3


def lines_in(message: str) -> int:
    """The message's lines that hold anything."""
    return sum(1 for line in message.splitlines() if line.strip())


def is_pasted(message: str) -> bool:
    """A text the user pasted: several lines, and enough words to be one or a table among them
    (a short price list in columns is pasted, never typed as a remark: seen live, one of 35 words
    was read as the user's own words and quoted whole, bars and all)."""
    if lines_in(message) < PASTED_LINES:
        return False
    return len(lower_words(message)) >= TEXT_WORDS or holds_table(message.splitlines())
