"""A deterministic search plan from the text alone (no LLM).

Used when the planner's model output is malformed or the step fails, and by the
retrieval benchmark's "query from question" mode. Finds a time window from plain
phrases ("yesterday", "last week"), candidate concepts (capitalised words, quoted
phrases, content words) and keeps the whole text as the main query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from services.common.limits import MAX_CONCEPT_CHARS
from services.common.time_window import TimeWindow
from thea.models import SearchPlan, Step, cycle_node_id
from thea.words import is_content, iter_words, written_names

_DAY_MS = 86_400_000
_WINDOWS = {
    "today": 1,
    "yesterday": 2,
    "last_week": 7,
    "last_month": 31,
    "last_year": 366,
}
#: the periods that are over: a question naming one asks what happened in it, and recall keeps
#: to it. A period still going on ("today", "tonight", "this week") names no window: what is
#: asked of it may have been told before it began (first contact set 31: "… tonight, what i must
#: not eat?" had recall keep to that day, where a constraint told on an earlier day is not)
_PHRASES = [
    (re.compile(r"\byesterday\b", re.I), "yesterday"),
    (re.compile(r"\b(last|past) week\b", re.I), "last_week"),
    (re.compile(r"\b(last|past) month\b", re.I), "last_month"),
    (re.compile(r"\b(last|past) year\b", re.I), "last_year"),
]
# single quotes count only around words, not as apostrophes ("Caroline's ... Ana's")
_QUOTED = re.compile(r"\"([^\"]{2,60})\"|(?<!\w)'([^']{2,60})'(?!\w)")


def time_window(name: str, now_ms: int | None = None) -> TimeWindow:
    """[from, to) in epoch ms for a named window ending now; open at both ends for "none"."""
    days = _WINDOWS.get(name)
    if days is None:
        return TimeWindow()
    now = datetime.fromtimestamp((now_ms or _now_ms()) / 1000, tz=UTC)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if name == "yesterday":
        start = midnight - timedelta(days=1)
        return TimeWindow(int(start.timestamp() * 1000), int(midnight.timestamp() * 1000))
    start = midnight - timedelta(days=days - 1)
    return TimeWindow(int(start.timestamp() * 1000), int(now.timestamp() * 1000) + 1)


def detect_window(text: str) -> str:
    for pattern, name in _PHRASES:
        if pattern.search(text):
            return name
    return "none"


def candidate_concepts(text: str, limit: int = 6, *, content: bool = False) -> list[str]:
    """Quoted phrases and capitalised words (not sentence-initial); with ``content``
    also plain content words. Only the first kind becomes Concept nodes. The first ``limit``
    distinct ones, in that order; reading stops there (a long text is not read to its end)."""
    unique: dict[str, str] = {}

    def add(names: Iterable[str]) -> None:
        for name in names:
            if len(unique) >= limit:
                return
            if name and len(name) <= MAX_CONCEPT_CHARS:
                unique.setdefault(name.casefold(), name)

    add(m.group(1) or m.group(2) for m in _QUOTED.finditer(text))
    add(written_names(text))  # "Caroline's" is the concept "Caroline"
    if content:
        add(w.lower() for w in iter_words(text) if is_content(w))
    return list(unique.values())


def fallback_plan(
    text: str,
    *,
    now_ms: int | None = None,
    user_id: str | None = None,
    session_id: str | None = None,
    correlation_id: str | None = None,
) -> SearchPlan:
    window = detect_window(text)
    span = time_window(window, now_ms)
    return SearchPlan(
        id=cycle_node_id(correlation_id, Step.PLAN),
        content=f"fallback plan ({window})",
        queries=[text.strip()[:500]],
        concepts=candidate_concepts(text),
        time_from=span.start,
        time_to=span.end,
        user_id=user_id,
        session_id=session_id,
        correlation_id=correlation_id,
    )


def _now_ms() -> int:
    return int(datetime.now(tz=UTC).timestamp() * 1000)
