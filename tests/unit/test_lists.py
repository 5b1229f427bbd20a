"""One item taken out of a list told in a sentence (services/knowledge/record/lists.py)."""

from __future__ import annotations

import pytest

from services.knowledge.record.lists import without_item


@pytest.mark.parametrize(
    ("text", "item", "left"),
    [
        (
            "I volunteer at the Oxfam shop on Tuesdays and Thursdays.",
            "Thursdays",
            "I volunteer at the Oxfam shop on Tuesdays.",
        ),
        ("I volunteer on Tuesdays and Thursdays.", "tuesdays", "I volunteer on Thursdays."),
        ("I'm doing chemistry, biology and maths.", "maths", "I'm doing chemistry and biology."),
        ("I'm doing chemistry, biology and maths.", "biology", "I'm doing chemistry and maths."),
        ("I'm doing chemistry, biology and maths.", "chemistry", "I'm doing biology and maths."),
        ("I teach piano, guitar, and drums on weekdays.", "guitar", "I teach piano and drums on weekdays."),
        ("I teach piano, guitar, cello and drums.", "guitar", "I teach piano, cello and drums."),
        ("Maths and physics are my subjects.", "maths", "Physics are my subjects."),
    ],
)
def test_an_item_is_taken_out_and_the_list_still_reads(text: str, item: str, left: str) -> None:
    assert without_item(text, item) == left


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("I have a girlfriend, Anke, she is a nurse at Charité.", "Anke"),  # an aside, not a list
        ("I live in Leeds, near the station.", "Leeds"),
        ("I play tennis.", "tennis"),
        ("I play tennis on Thursdays.", "Fridays"),
    ],
)
def test_a_word_in_no_list_is_no_item(text: str, item: str) -> None:
    assert without_item(text, item) is None
