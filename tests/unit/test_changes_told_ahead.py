"""A change told ahead ("we're moving to York in March") takes effect on the day it names: until
then the value it replaces is what is true and the change is a plan; after it, the change is true
and the older value is history. Code works the day out from the claim's time as told (dates are
closed-class work), never from the sentence's wording."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from services.common.dates import day_start_ms, day_told
from services.common.timeline import claims_at, planned_at
from services.knowledge.claims.keeper import starts_on
from services.prompts.extract_claims import ClaimKind
from services.views.memories import memories_view
from tests.claims_support import said
from thea.models import Fact

#: Monday 30 November 2026, noon UTC
NOW = int(datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp() * 1000)
DAY = 86_400_000


@pytest.mark.parametrize(
    ("when", "day"),
    [
        ("in March", date(2027, 3, 1)),
        ("March", date(2027, 3, 1)),
        ("on 3 March", date(2027, 3, 3)),
        ("March 3rd", date(2027, 3, 3)),
        ("the 3rd of March", date(2027, 3, 3)),
        ("Sept 2027", date(2027, 9, 1)),
        ("2027-02-01", date(2027, 2, 1)),
        ("next month", date(2026, 12, 1)),
        ("in two weeks", date(2026, 12, 14)),
        ("in 3 months", date(2027, 2, 1)),
        ("this Tuesday", date(2026, 12, 1)),
        ("monday after next", date(2026, 12, 14)),
        ("Friday after next", date(2026, 12, 11)),
        ("next Friday", date(2026, 12, 4)),
        ("next week", date(2026, 12, 7)),
        ("the 14th", date(2026, 12, 14)),
        ("tomorrow", date(2026, 12, 1)),
        ("next year", date(2027, 1, 1)),
        ("from the 3rd of next month", date(2026, 12, 3)),
    ],
)
def test_a_time_told_ahead_names_the_day_it_means(when: str, day: date) -> None:
    assert day_told(when, NOW) == day


@pytest.mark.parametrize(
    "when",
    [
        "yesterday",
        "last week",
        "three days ago",
        "last month",
        "November",
        # a time something has held from is never ahead, whatever the same words mean alone
        # (first contact, set 20: "a teacher's assistant since the 1st" was planned from 1 January)
        "since the 1st",
        "ever since the 3rd",
        "since December",
        "since 5 December",
        "since Friday",
    ],
)
def test_a_time_told_of_the_past_or_now_is_never_ahead(when: str) -> None:
    day = day_told(when, NOW)
    assert day is not None
    assert day_start_ms(day) <= NOW


@pytest.mark.parametrize(
    "when",
    [
        "",
        "soon",
        "in the spring",
        "one day",
        "whenever",
        # a habit comes round again: no one day (seen on a first-contact persona: "a watercolour
        # class at the library on Thursday afternoons" was planned from next Thursday)
        "on Thursday afternoons",
        "Tuesday nights",
        "every Monday",
        "each Friday morning",
        "on Sundays",
        "weekly",
        # a bare weekday is the last one or the next alike ("put to sleep on Monday")
        "on Monday",
        "Saturday",
    ],
)
def test_a_time_that_names_no_day_names_none(when: str) -> None:
    assert day_told(when, NOW) is None


@pytest.mark.parametrize(
    ("when", "day"),
    [
        ("since the 1st", date(2026, 11, 1)),
        ("since the 30th", date(2026, 11, 30)),
        ("ever since the 3rd", date(2026, 11, 3)),
        ("since December", date(2025, 12, 1)),
        ("since 5 December", date(2025, 12, 5)),
        ("since March 2024", date(2024, 3, 1)),
        ("since Friday", date(2026, 11, 27)),
        ("since Monday", date(2026, 11, 30)),
    ],
)
def test_a_time_held_since_names_the_latest_such_day_not_after_it_was_said(when: str, day: date) -> None:
    assert day_told(when, NOW) == day


@pytest.mark.parametrize(
    ("quote", "attribute", "value", "when"),
    [
        ("we're moving to York in March", "home", "York", "in March"),
        ("I start at Kings College in August", "workplace", "Kings College", "in August"),
        ("from next month I'm at Nordbrise", "workplace", "Nordbrise", "next month"),
        ("I leave Boots on the 14th", "job", "Boots", "the 14th"),
    ],
)
def test_a_change_told_ahead_starts_on_its_day(quote: str, attribute: str, value: str, when: str) -> None:
    for kind in (ClaimKind.REPLACES, ClaimKind.ENDS):
        starts = starts_on(said(quote, attribute, value, when=when, kind=kind), NOW)
        assert starts is not None
        assert starts > NOW


@pytest.mark.parametrize(
    ("quote", "attribute", "value", "when", "kind"),
    [
        # a plain fact about a day ahead is true now
        ("my conference is in Lisbon in March", "conference", "Lisbon", "March", ClaimKind.NEW),
        ("we got a second cat in March", "pet", "cat", "March", ClaimKind.ADDS),
        # the day is the value itself: a date moved
        ("the recital got moved to May 3", "recital", "May 3", "May 3", ClaimKind.REPLACES),
        # a fix of what was said wrongly is true now
        ("sorry, the move is to York, not Hull, in March", "home", "York", "March", ClaimKind.CORRECTS),
        # a change that happened
        ("we moved to York last week", "home", "York", "last week", ClaimKind.REPLACES),
        ("we moved to York", "home", "York", "", ClaimKind.REPLACES),
        ("we're moving to York soon", "home", "York", "soon", ClaimKind.REPLACES),
        # a habit that replaces another is true now
        (
            "I've joined a watercolour class on Thursday afternoons instead",
            "hobby",
            "watercolour class",
            "Thursday afternoons",
            ClaimKind.REPLACES,
        ),
        (
            "I swim every Monday now instead of running",
            "exercise",
            "swim",
            "every Monday",
            ClaimKind.REPLACES,
        ),
    ],
)
def test_what_is_no_change_told_ahead_starts_when_said(
    quote: str, attribute: str, value: str, when: str, kind: ClaimKind
) -> None:
    assert starts_on(said(quote, attribute, value, when=when, kind=kind), NOW) is None


def _home(value: str, *, said_at: int, valid_from: int | None = None, **more: object) -> Fact:
    return Fact(
        id=f"home-{value}",
        content=f"Your home: {value}.",
        subject_key="user",
        attribute="home",
        value=value,
        created_at=said_at,
        valid_from=valid_from or said_at,
        user_id="u",
        quote=value,
        **more,  # type: ignore[arg-type]
    )


MARCH = day_start_ms(date(2027, 3, 1))
LEEDS = _home("Leeds", said_at=NOW - 30 * DAY, valid_until=MARCH, superseded_by="home-York")
YORK = _home("York", said_at=NOW, valid_from=MARCH, change="replaces", when="in March")


def test_before_its_day_the_older_value_holds_and_the_change_is_planned() -> None:
    before = claims_at([YORK, LEEDS], NOW + DAY)
    assert [f.value for f in before.known] == ["Leeds"]
    assert (before.known[0].valid_until, before.known[0].superseded_by) == (None, None)
    assert [f.value for f in before.planned] == ["York"]
    assert planned_at(YORK, NOW)


def test_from_its_day_the_change_holds_and_the_older_value_is_history() -> None:
    after = claims_at([YORK, LEEDS], MARCH + DAY)
    assert after.planned == []
    current = [f.value for f in after.known if f.valid_until is None]
    assert current == ["York"]
    (earlier,) = [f for f in after.known if f.valid_until is not None]
    assert (earlier.value, earlier.superseded_by) == ("Leeds", "home-York")


def test_the_memories_view_lists_the_plan_beside_what_holds_now_and_the_summary_says_only_what_holds() -> (
    None
):
    view = memories_view([YORK, LEEDS], at=NOW + DAY)
    shown = {f.value: f for group in view.subjects for f in group.facts}
    assert set(shown) == {"Leeds", "York"}
    assert (shown["York"].planned, shown["York"].since) == (True, MARCH)
    assert (shown["Leeds"].planned, shown["Leeds"].current, shown["Leeds"].history) == (False, True, [])
    assert "Leeds" in view.summary
    assert "York" not in view.summary
    later = memories_view([YORK, LEEDS], at=MARCH + DAY)
    (york,) = [f for group in later.subjects for f in group.facts]
    assert (york.value, york.planned) == ("York", False)
    assert [e.value for e in york.history] == ["Leeds"]


def _told(attribute: str, value: str, when: str, kind: str) -> Fact:
    """A claim of the user's said NOW with its time as told."""
    return Fact(
        id="n",
        content=f"Your {attribute}: {value}.",
        subject_key="user",
        attribute=attribute,
        value=value,
        when=when,
        change=kind,
        created_at=NOW,
        valid_from=NOW,
        user_id="u",
        quote=value,
    )


@pytest.mark.parametrize(
    ("attribute", "value", "when", "kind"),
    [
        ("home", "Bath", "in March", "new"),  # a move told ahead, no home told before
        ("pet", "puppy", "next month (December 2026)", "adds"),
        ("hobby", "pottery classes", "from January", "new"),
    ],
)
def test_something_new_told_with_a_later_day_is_planned_until_then(
    attribute: str, value: str, when: str, kind: str
) -> None:
    fact = _told(attribute, value, when, kind)
    now = claims_at([fact], NOW + DAY // 4)
    assert now.planned == [fact]
    assert now.known == []
    assert claims_at([fact], NOW + 400 * DAY).known == [fact]


@pytest.mark.parametrize(
    ("value", "when", "kind"),
    [
        ("23 January", "on 23 January", "new"),  # the day is the value: a fact now
        ("Lisbon", "last month", "new"),  # told of the past
        ("Lisbon", "soon", "new"),  # names no day
        ("York", "in March", "corrects"),  # a correction holds now
        ("teacher's assistant", "since the 1st", "new"),  # held since a day past
        ("teacher's assistant", "since the 1st", "replaces"),
        ("York", "ever since December", "replaces"),
    ],
)
def test_what_names_no_later_day_of_its_own_holds_when_said(value: str, when: str, kind: str) -> None:
    fact = _told("trip", value, when, kind)
    assert claims_at([fact], NOW + DAY // 4).known == [fact]
