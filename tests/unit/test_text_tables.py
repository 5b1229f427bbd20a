"""A table in a text the user gave is read as records: each cell beside its row's label (and
its column's heading when the table has one), so the answer is one line that holds it. Without
this a timetable's row is copied whole and the cell under the wrong heading named."""

from __future__ import annotations

import pytest

from services.common.pasted import is_pasted
from services.common.text_tables import read_tables
from services.cycle.from_text import lines_of, quote_of, text_answer
from services.prompts.answer_from_text import TextAnswer
from services.recall.types import RecallHit

TIMETABLE = (
    "Weekday buses, route 7\n"
    "Harbour Road      06:40  07:25  08:10\n"
    "Market Cross      06:52  07:37  08:22\n"
    "Hillside Depot    07:05  07:50  —\n"
    "No buses on public holidays."
)
TABBED = "Ferry times\nStrand\t09:00\t13:30\nIsland\t09:45\t14:15\nTickets on board."
BARRED = (
    "Opening times\n"
    "| Day | Opens | Closes |\n"
    "|-----|:-----:|--------|\n"
    "| Monday | 9:00 | 17:00 |\n"
    "| Saturday | 10:00 | 16:00 |\n"
    "Closed on Sundays."
)
PRICES = (
    "Pool prices\n"
    "Ticket        Off-peak   Peak\n"
    "Adult         £4.20      £5.60\n"
    "Junior        £2.10      £2.80\n"
    "Prices from 1 May."
)


@pytest.mark.parametrize(
    ("text", "record"),
    [
        (TIMETABLE, "Harbour Road 07:25; Market Cross 07:37; Hillside Depot 07:50"),
        (TIMETABLE, "Harbour Road 08:10; Market Cross 08:22; Hillside Depot —"),
        (TABBED, "Strand 13:30; Island 14:15"),
        (PRICES, "Junior: Off-peak £2.10; Peak £2.80"),
        (BARRED, "Saturday: Opens 10:00; Closes 16:00"),
    ],
)
def test_a_table_is_read_as_records_each_cell_beside_its_labels(text: str, record: str) -> None:
    assert record in read_tables(text.splitlines())


@pytest.mark.parametrize("text", [TIMETABLE, TABBED, PRICES, BARRED])
def test_the_lines_around_a_table_stay_as_written(text: str) -> None:
    lines = text.splitlines()
    read = read_tables(lines)
    assert read[0] == lines[0]
    assert read[-1] == lines[-1]


@pytest.mark.parametrize(
    "text",
    [
        "Dear parents,\nThe coach leaves at 8:40.\nPlease send a packed lunch.",
        "Name:    Ada Lovelace\nBorn:    10 December 1815",  # two cells: a form, not a table
        "Only one line    set     in columns\nand then prose.",
        "Pros - cons - and more\n---\nA line | with a bar in it.",
    ],
)
def test_text_that_is_no_table_is_left_as_it_is(text: str) -> None:
    assert read_tables(text.splitlines()) == text.splitlines()


@pytest.mark.parametrize(
    ("text", "copied", "answer", "expected"),
    [
        (TIMETABLE, "Harbour Road 07:25; Market Cross 07:37; Hillside Depot 07:50", "7:37", "07:37"),
        (TABBED, "Strand 13:30; Island 14:15", "14:15", "14:15"),
        (PRICES, "Adult: Off-peak £4.20; Peak £5.60", "£5.60", "£5.60"),
    ],
)
def test_a_cell_asked_about_is_answered_from_its_record(
    text: str, copied: str, answer: str, expected: str
) -> None:
    lines = lines_of([RecallHit(id="t1", type="UserImpulse", text=text, score=1.0)])
    found = quote_of(TextAnswer(quotes=[copied], answer=answer), lines, "what time / how much?")
    assert found is not None
    assert not found.unsupported
    said = text_answer(found)
    assert said.startswith(answer)
    assert expected in said


SHORT_PRICES = (
    "Allotment fees 2027\n| Plot | Members | Others |\n|---|---|---|\n"
    "| Full | £48 | £70 |\n| Half | £26 | £38 |\nDue by 31 January."
)


@pytest.mark.parametrize(
    "text",
    [
        SHORT_PRICES,
        "Bin days\nWeek   Black bin   Blue bin\nOdd    Tuesday     Friday\nEven   Friday      Tuesday",
        "Ferry\nStrand\t09:00\t13:30\nIsland\t09:45\t14:15",
    ],
)
def test_a_short_table_is_a_pasted_text_however_few_its_words(text: str) -> None:
    assert is_pasted(text)


@pytest.mark.parametrize(
    "text",
    [
        "we moved!!\ncant find the kettle\nsend help",
        "Name:    Ada\nBorn:    1815\nLikes:   numbers",
    ],
)
def test_a_few_typed_lines_are_no_pasted_text(text: str) -> None:
    assert not is_pasted(text)
