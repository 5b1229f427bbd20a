"""Time in recall: questions that ask *when*, memories that say when, and dates as search words.

- :func:`asks_when` spots a question about time ("When did ...", "How long ago ...",
  "What year ..."). Such a question is answered by a memory that says when something
  happened ("yesterday", "last Friday", "in 2022"), so recall ranks memories that mention
  a time a little higher for it (``RecallTuning.when_boost``).
- :func:`mentions_time` spots such a mention in a memory.
- :func:`date_terms` are the words of the month and year a memory happened in, added to
  what the keyword stage matches, so "camping in June" prefers the June session's turns.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_MONTHS = (
    "january|february|march|april|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_UNITS = (
    "day|days|week|weeks|weekend|month|months|year|years|night|morning|evening"
    "|summer|winter|spring|fall|autumn"
)

_ASKS_WHEN = re.compile(
    r"^\W*(when|since when|how long|what (year|month|date|day|time|season))\b"
    r"|\b(how long ago|what (year|month|date|day) (did|was|were|is|will))\b",
    re.IGNORECASE,
)
_MENTIONS_TIME = re.compile(
    rf"\b(yesterday|today|tonight|tomorrow|recently|lately|ago"
    rf"|(last|next|this|past|coming) ({_UNITS}|{_DAYS}|time)"
    rf"|{_DAYS}|{_MONTHS}"
    rf"|may \d|\d{{1,2}}(st|nd|rd|th)? may"  # "may" only as a month with a day beside it
    rf"|(19|20)\d\d)\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """The question asks about time: when, how long (ago), which year/month/date."""
    return bool(_ASKS_WHEN.search(question))


def mentions_time(text: str) -> bool:
    """The text says when something happened (relative or absolute)."""
    return bool(_MENTIONS_TIME.search(text))


def date_terms(ms: int | None) -> list[str]:
    """The month name and year of an epoch-ms time, as search words ("june", "2023")."""
    if not ms:
        return []
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return [moment.strftime("%B").lower(), str(moment.year)]
