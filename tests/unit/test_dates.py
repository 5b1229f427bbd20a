"""Relative dates in memories become absolute dates for the answering model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.common.dates import resolve_relative, when_text
from services.cycle.answer_inputs import references_for
from services.recall.types import RecallHit

#: Thursday 25 May 2023, 13:14 UTC
ANCHOR = int(datetime(2023, 5, 25, 13, 14, tzinfo=UTC).timestamp() * 1000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went yesterday.", "I went yesterday (24 May 2023)."),
        ("We ran a charity race last Sunday!", "We ran a charity race last Sunday (21 May 2023)!"),
        ("Last Thursday was fun", "Last Thursday (18 May 2023) was fun"),  # a week back, not today
        ("See you next Friday", "See you next Friday (26 May 2023)"),
        ("Two weeks ago I signed up", "Two weeks ago (around 11 May 2023) I signed up"),
        ("a couple of days ago", "a couple of days ago (23 May 2023)"),
        ("3 months ago", "3 months ago (February 2023)"),
        ("I painted it last year.", "I painted it last year (2022)."),
        ("The conference is next month.", "The conference is next month (June 2023)."),
        ("last week was rough", "last week (the week before 25 May 2023) was rough"),
        ("tonight we go", "tonight (25 May 2023) we go"),
    ],
)
def test_relative_dates_get_their_absolute_date(text: str, expected: str) -> None:
    assert resolve_relative(text, ANCHOR) == expected


def test_what_it_does_not_understand_stays_as_it_was() -> None:
    for text in (
        "this Friday we will see",
        "in a few days",
        "Last of all, thanks!",
        "I may go",
        "we booked a caravan for the last week of july",  # a part of a month, not the week before
        "the last weekend in May",
        "last week of term",
    ):
        assert resolve_relative(text, ANCHOR) == text
    assert resolve_relative("yesterday", 0) == "yesterday"  # no date known


def test_the_answering_model_sees_when_a_memory_happened_not_when_it_was_stored() -> None:
    stored_later = int(datetime(2026, 11, 23, tzinfo=UTC).timestamp() * 1000)
    hit = RecallHit(
        id="t1",
        type="DialogueTurn",
        text="Caroline: I went to the support group yesterday.",
        score=1.0,
        created_at=stored_later,
        event_time=ANCHOR,
    )
    (ref,) = references_for([hit], 1000)
    assert ref.when == "on Thursday 25 May 2023"
    assert ref.text == "Caroline: I went to the support group yesterday (24 May 2023)."
    assert when_text(stored_later) == "Monday 23 November 2026"
