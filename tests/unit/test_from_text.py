"""Answers from a text the user gave (issue 38, item 3): the lines the model names are quoted,
and its short answer is said only when every number and word of substance is in them."""

from __future__ import annotations

import pytest

from services.cycle.from_text import TEXT_WORDS, is_text, lines_of, quote_of, text_answer, texts_of
from services.prompts.answer_from_text import TextAnswer
from services.recall.types import RecallHit

LETTER = (
    "Riverside Primary School\nYear 5 Trip\n\nDear Parents,\nThe coach will leave at 8:40, so children "
    "must arrive by 8:20. The trip costs £14.50. Please send a packed lunch.\nMrs Okonkwo can help "
    "with costs."
)


def hit(text: str, kind: str = "UserImpulse", hid: str = "m1") -> RecallHit:
    return RecallHit(id=hid, type=kind, text=text, score=1.0)


LINES = lines_of([hit(LETTER)])


def number_of(words: str) -> int:
    return next(i for i, (line, _) in enumerate(LINES, 1) if words in line)


@pytest.mark.parametrize(
    ("line", "answer", "shown"),
    [
        (
            "arrive by 8:20",
            "by 8:20",
            "By 8:20 (the text you gave me: \u201cSo children must arrive by 8:20.\u201d)",
        ),
        ("£14.50", "£14.50", None),
        ("Okonkwo", "Mrs Okonkwo", None),
    ],
)
def test_an_answer_the_named_line_holds_is_said_with_the_line(
    line: str, answer: str, shown: str | None
) -> None:
    quote = quote_of(TextAnswer(lines=[number_of(line)], answer=answer), LINES)
    assert quote is not None
    said = text_answer(quote)
    assert said.startswith(answer[0].upper() + answer[1:])
    assert line in said  # the line itself is quoted
    if shown is not None:
        assert said in (shown, shown.replace("So children", "The coach will leave at 8:40, so children"))


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("arrive by 8:20", "8:15"),  # a time the line does not hold
        ("£14.50", "£15"),  # an amount it does not hold
        ("Okonkwo", "Mr Patel"),  # a name it does not hold
        ("packed lunch", "a hot school dinner"),
    ],
)
def test_an_answer_the_line_does_not_hold_is_not_said_but_the_line_is(line: str, answer: str) -> None:
    quote = quote_of(TextAnswer(lines=[number_of(line)], answer=answer), LINES)
    assert quote is not None
    said = text_answer(quote)
    assert answer not in said
    assert said.startswith("The text you gave me says: \u201c")
    assert line in said


def test_no_line_or_a_line_it_was_not_shown_is_no_answer() -> None:
    assert quote_of(TextAnswer(lines=[], answer=""), LINES) is None
    assert quote_of(TextAnswer(lines=[99], answer="8:20"), LINES) is None


def test_texts_are_chunks_and_long_messages_not_remarks() -> None:
    long = " ".join(["word"] * TEXT_WORDS)
    hits = [
        hit("I live in Leeds."),
        hit(long, hid="a"),
        hit("chunk", "DocumentChunk", "b"),
        hit("Hi", "Fact", "c"),
    ]
    assert [h.id for h in texts_of(hits)] == ["a", "b"]
    assert not is_text(hit("I live in Leeds."))


def test_a_text_is_read_line_by_line_and_sentence_by_sentence() -> None:
    assert [line for line, _ in LINES][:4] == [
        "Riverside Primary School",
        "Year 5 Trip",
        "Dear Parents,",
        "The coach will leave at 8:40, so children must arrive by 8:20.",
    ]
