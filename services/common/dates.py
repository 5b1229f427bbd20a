"""Dates for the answering model: when a memory was said, and what its relative dates mean.

A memory dated Thursday 25 May 2023 that says "we ran a charity race last Sunday" means
21 May 2023; small models cannot do that arithmetic (measured: the offline 0.5B model
returned the memory's own date for such questions). :func:`resolve_relative` writes the
absolute date next to each relative phrase it understands, e.g. "last Sunday (21 May
2023)", "two weeks ago (around 11 May 2023)", "last year (2022)". Phrases it does not
understand are left alone; nothing is removed.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
}
_NUMBER = r"(\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of)"
#: what "the last week of ..." is a part of: a month, a term, the year
_PART_OF = (
    r"(?:the\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|term|month|year|summer|holidays?)\b"
)
_PHRASE = re.compile(
    r"\b(?P<simple>yesterday|today|tonight|tomorrow|last night|this morning)\b"
    # not "the last week of July", "the last weekend in May": a part of a month named
    rf"|\b(?P<rel>last|next|this) (?P<unit>week|weekend|month|year|{'|'.join(_DAYS)})\b"
    rf"(?!\s+(?:of|in)\s+{_PART_OF})"
    rf"|\b(?P<n>{_NUMBER}) (?P<agounit>days?|weeks?|months?|years?) ago\b",
    re.IGNORECASE,
)


def day_text(day: date) -> str:
    """'8 May 2023'."""
    return f"{day.day} {day.strftime('%B %Y')}"


def when_text(ms: int) -> str:
    """How a memory's date is shown to the model: 'Monday 8 May 2023'."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return f"{moment.strftime('%A')} {day_text(moment.date())}"


def _month_back(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 - months
    return date(index // 12, index % 12 + 1, 1)


def _meaning(match: re.Match[str], anchor: date) -> str | None:
    simple = match.group("simple")
    if simple:
        word = simple.lower()
        if word in ("yesterday", "last night"):
            return day_text(anchor - timedelta(days=1))
        if word == "tomorrow":
            return day_text(anchor + timedelta(days=1))
        return day_text(anchor)
    rel, unit = match.group("rel"), match.group("unit")
    if rel:
        return _relative(rel.lower(), unit.lower(), anchor)
    count = _NUMBERS.get(match.group("n").lower().replace("a couple of", "couple of"))
    number = count if count is not None else int(match.group("n"))
    unit = match.group("agounit").lower().rstrip("s")
    if unit == "day":
        return day_text(anchor - timedelta(days=number))
    if unit == "week":
        return "around " + day_text(anchor - timedelta(weeks=number))
    if unit == "month":
        return _month_back(anchor, number).strftime("%B %Y")
    return str(anchor.year - number)


def _relative(rel: str, unit: str, anchor: date) -> str | None:
    step = {"last": -1, "next": 1, "this": 0}[rel]
    if unit in _DAYS:
        target = _DAYS.index(unit)
        if step == 0:
            return None  # "this Friday" may be either side: leave it
        delta = (anchor.weekday() - target) % 7 or 7
        day = (
            anchor - timedelta(days=delta)
            if step < 0
            else anchor + timedelta(days=(target - anchor.weekday()) % 7 or 7)
        )
        return day_text(day)
    if unit == "year":
        return str(anchor.year + step)
    if unit == "month":
        return _month_back(anchor, -step).strftime("%B %Y")
    if unit in ("week", "weekend"):
        if step == 0:
            return None
        side = "before" if step < 0 else "after"
        return f"the {unit} {side} {day_text(anchor)}"
    return None


def resolve_relative(text: str, anchor_ms: int) -> str:
    """The text with the absolute date written after each relative date phrase."""
    if not anchor_ms:
        return text
    anchor = datetime.fromtimestamp(anchor_ms / 1000, tz=UTC).date()

    def annotate(match: re.Match[str]) -> str:
        meaning = _meaning(match, anchor)
        return f"{match.group(0)} ({meaning})" if meaning else match.group(0)

    return _PHRASE.sub(annotate, text)
