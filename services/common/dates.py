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


_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = (
    r"(?P<{name}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
)
_ORDINAL = r"(?P<{name}>\d{{1,2}})(?:st|nd|rd|th)?"
_DAY_MONTH = re.compile(
    rf"(?:\b{_ORDINAL.format(name='day')}\s+(?:of\s+)?{_MONTH.format(name='month')}"
    rf"|\b{_MONTH.format(name='month2')}\.?\s+{_ORDINAL.format(name='day2')}\b"
    rf"|\b{_MONTH.format(name='month3')})"
    r"(?:,?\s+(?P<year>\d{4})\b)?",
    re.IGNORECASE,
)
_ISO = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
_AHEAD = re.compile(
    rf"\bin\s+(?P<n>{_NUMBER})\s+(?P<unit>days?|weeks?|months?|years?)\b"
    rf"|\b(?:next|this coming)\s+(?P<next>week|weekend|month|year|{'|'.join(_DAYS)})\b"
    rf"|\bthis\s+(?P<weekday>{'|'.join(_DAYS)})\b"
    rf"|\b(?P<after>{'|'.join(_DAYS)})\s+after\s+next\b"
    r"|\b(?:the\s+)?(?P<nth>\d{1,2})(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)
#: a time that comes round again ("on Thursday afternoons", "every Tuesday", "Sundays",
#: "weekly") names no one day: a habit told is true now, never a plan from its next occurrence
_RECURRING = re.compile(
    rf"\b(?:every|each|weekly|daily|nightly|fortnightly)\b|\b(?:{'|'.join(_DAYS)})s\b"
    r"|\b(?:mornings|afternoons|evenings|nights|weekends|weekdays)\b",
    re.IGNORECASE,
)


def _month_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _named_day(found: re.Match[str], anchor: date) -> date | None:
    """ "3 March", "March 3rd", "March", "March 2027": without a year, the next such day."""
    name = found.group("month") or found.group("month2") or found.group("month3")
    month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(name.lower()[:3]))
    day_text_ = found.group("day") or found.group("day2")
    day = int(day_text_) if day_text_ else 1
    if found.group("year"):
        return _month_day(int(found.group("year")), month, day)
    this_year = _month_day(anchor.year, month, day)
    if this_year is None:
        return None
    if this_year >= anchor or (not day_text_ and month == anchor.month):
        return this_year if this_year >= anchor else anchor
    return _month_day(anchor.year + 1, month, day)


def _ahead(found: re.Match[str], anchor: date) -> date | None:
    if found.group("n"):
        count = _NUMBERS.get(found.group("n").lower().replace("a couple of", "couple of"))
        number = count if count is not None else int(found.group("n"))
        unit = found.group("unit").lower().rstrip("s")
        if unit == "day":
            return anchor + timedelta(days=number)
        if unit == "week":
            return anchor + timedelta(weeks=number)
        if unit == "month":
            return _month_back(anchor, -number)
        return _month_day(anchor.year + number, anchor.month, 1)
    after = (found.group("after") or "").lower()
    if after:  # "Monday after next": the Monday of the week after next
        return anchor + timedelta(days=((_DAYS.index(after) - anchor.weekday()) % 7 or 7) + 7)
    unit = (found.group("next") or found.group("weekday") or "").lower()
    if unit in _DAYS:
        return anchor + timedelta(days=(_DAYS.index(unit) - anchor.weekday()) % 7 or 7)
    if unit == "week":
        return anchor + timedelta(days=7 - anchor.weekday())
    if unit == "weekend":
        return anchor + timedelta(days=(5 - anchor.weekday()) % 7 or 7)
    if unit == "month":
        return _month_back(anchor, -1)
    if unit == "year":
        return date(anchor.year + 1, 1, 1)
    nth = int(found.group("nth"))
    on = _month_day(anchor.year, anchor.month, nth)
    if on is not None and on >= anchor:
        return on
    following = _month_back(anchor, -1)
    return _month_day(following.year, following.month, nth)


#: a time something has held from ("since the 1st", "ever since March", "since Monday"): a day
#: not after the one it was said, whatever the same words would mean alone
_SINCE = re.compile(r"\bsince\b", re.IGNORECASE)


def _since(when: str, anchor: date) -> date | None:
    """The latest day on or before ``anchor`` that a time held "since" names, or None."""
    weekday = re.search(rf"\b({'|'.join(_DAYS)})\b", when, re.IGNORECASE)
    if weekday and not _DAY_MONTH.search(when):
        return anchor - timedelta(days=(anchor.weekday() - _DAYS.index(weekday.group(1).lower())) % 7)
    day = _day_named(when, anchor)
    if day is None or day <= anchor:
        return day
    named = _DAY_MONTH.search(when)
    if named and not named.group("year"):
        return _month_day(day.year - 1, day.month, day.day)
    nth = _AHEAD.search(when)
    if nth and nth.group("nth"):
        this_month = _month_day(anchor.year, anchor.month, int(nth.group("nth")))
        if this_month is not None and this_month <= anchor:
            return this_month
        back = _month_back(anchor, 1)
        return _month_day(back.year, back.month, int(nth.group("nth")))
    return None


def day_told(when: str, anchor_ms: int) -> date | None:
    """The day a time as told names, said on ``anchor_ms``: "in March" (the next March), "3 June
    2027", "next month", "in two weeks", "next Tuesday", "this Friday", "the 14th", "tomorrow";
    for "last week", "three days ago" a day before the anchor (only that it is past). None when
    it names no day this can work out ("soon", "in the spring"), for a bare weekday (English says
    "on Monday" of the last Monday and of the next alike: "Pudding had to be put to sleep on
    Monday" was planned from the next one), and for a time that comes round again ("on Thursday
    afternoons", "every Tuesday"). A time something has held "since" ("since the 1st", "since
    March", "since Monday") is the latest such day not after the anchor (first contact, set 20:
    "a teacher's assistant since the 1st", said in December, was planned from 1 January)."""
    if not when or not anchor_ms or _RECURRING.search(when):
        return None
    anchor = datetime.fromtimestamp(anchor_ms / 1000, tz=UTC).date()
    if _SINCE.search(when):
        return _since(when, anchor)
    return _day_named(when, anchor)


def _day_named(when: str, anchor: date) -> date | None:
    iso = _ISO.search(when)
    if iso:
        return _month_day(int(iso.group("year")), int(iso.group("month")), int(iso.group("day")))
    named = _DAY_MONTH.search(when)
    if named:
        return _named_day(named, anchor)
    relative = _PHRASE.search(when)
    if relative:
        simple = (relative.group("simple") or "").lower()
        if simple in ("yesterday", "last night"):
            return anchor - timedelta(days=1)
        if simple == "tomorrow":
            return anchor + timedelta(days=1)
        if simple:
            return anchor
        if relative.group("n"):
            return None if _meaning(relative, anchor) is None else anchor - timedelta(days=1)
        if (relative.group("rel") or "").lower() == "last":
            return anchor - timedelta(days=1)
    ahead = _AHEAD.search(when)
    return _ahead(ahead, anchor) if ahead else None


def day_start_ms(day: date) -> int:
    """The epoch ms of the day's start (UTC)."""
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)
