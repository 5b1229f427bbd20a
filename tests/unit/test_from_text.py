"""Answers from a text the user gave (issue 38, item 3): the line holding the words the model
copied is quoted, and its short answer is said only when it says something and every number and
word of substance is in that line; words the text does not hold are no answer."""

from __future__ import annotations

import pytest

from services.common.pasted import TEXT_WORDS
from services.cycle.from_text import (
    answer_held,
    counts_held,
    is_text,
    lines_of,
    nearest_lines,
    quote_of,
    sharing_indices,
    text_answer,
    texts_of,
)
from services.prompts.answer_from_text import TextAnswer
from services.recall.types import RecallHit

LETTER = (
    "Riverside Primary School\nYear 5 Trip\n\nDear Parents,\nThe coach will leave at 8:40, so children "
    "must arrive by 8:20.\nThe trip costs £14.50.\nPlease send a packed lunch.\n1. Preheat nothing.\n"
    "Mrs Okonkwo can help with costs."
)


def hit(text: str, kind: str = "UserImpulse", hid: str = "m1") -> RecallHit:
    return RecallHit(id=hid, type=kind, text=text, score=1.0)


LINES = lines_of([hit(LETTER)])


@pytest.mark.parametrize(
    ("quote", "answer", "line"),
    [
        (
            "children must arrive by 8:20",
            "by 8:20",
            "The coach will leave at 8:40, so children must arrive by 8:20.",
        ),
        ("The trip costs £14.50.", "£14.50", "The trip costs £14.50."),
        ("mrs okonkwo can help with COSTS", "Mrs Okonkwo", "Mrs Okonkwo can help with costs."),
        ("The trip costs 14.50", "£14.50", "The trip costs £14.50."),  # near copy: a sign left out
    ],
)
def test_an_answer_the_copied_line_holds_is_said_with_the_line(quote: str, answer: str, line: str) -> None:
    found = quote_of(TextAnswer(quotes=[quote], answer=answer), LINES)
    assert found is not None
    assert text_answer(found) == f"{answer[0].upper()}{answer[1:]} (the text you gave me: \u201c{line}\u201d)"


@pytest.mark.parametrize(
    ("quote", "answer"),
    [
        ("children must arrive by 8:20", "8:15"),  # a time the line does not hold
        ("The trip costs £14.50.", "£15"),  # an amount it does not hold
        ("Mrs Okonkwo can help with costs.", "Mr Patel"),  # a name it does not hold
        ("Please send a packed lunch.", "a hot school dinner"),
    ],
)
def test_an_answer_the_line_does_not_hold_means_the_text_does_not_say(quote: str, answer: str) -> None:
    found = quote_of(TextAnswer(quotes=[quote], answer=answer), LINES)
    assert found is not None
    said = text_answer(found)
    assert said.startswith("I can't find that in the text you gave me; the nearest it says: \u201c")
    assert answer not in said


@pytest.mark.parametrize("answer", ["Yes", "no", ""])
def test_an_answer_that_says_nothing_gives_the_line_alone(answer: str) -> None:
    found = quote_of(TextAnswer(quotes=["Please send a packed lunch."], answer=answer), LINES)
    assert found is not None
    assert text_answer(found) == "The text you gave me says: \u201cPlease send a packed lunch.\u201d"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("how much will the trip cost me?", "The cost of the trip"),
        ("what time does the coach leave", "the time the coach leaves"),
        ("is a packed lunch needed?", "A packed lunch is needed"),
    ],
)
def test_an_answer_of_only_the_question_s_words_gives_the_line_alone(question: str, answer: str) -> None:
    quote = (
        "The coach will leave at 8:40, so children must arrive by 8:20."
        if "coach" in question
        else "Please send a packed lunch."
    )
    found = quote_of(TextAnswer(quotes=[quote], answer=answer), LINES, question)
    assert found is not None
    assert text_answer(found) == f"The text you gave me says: \u201c{quote}\u201d"


def test_the_sentence_holding_the_copy_is_quoted_not_its_whole_paragraph() -> None:
    lines = lines_of([hit("Fees. The trip costs £14.50 per child. Please pay by Friday 30 May.")])
    found = quote_of(TextAnswer(quotes=["costs £14.50 per child"], answer="£14.50"), lines)
    assert found is not None
    assert found.lines == ["The trip costs £14.50 per child."]


@pytest.mark.parametrize("quote", ["", "The bus leaves at 7:15 from the town hall.", "Lunch is provided."])
def test_words_the_text_does_not_hold_are_no_answer(quote: str) -> None:
    assert quote_of(TextAnswer(quotes=[quote], answer="7:15"), LINES) is None


def test_texts_are_chunks_and_pasted_messages_not_remarks() -> None:
    pasted = "\n".join([" ".join(["word"] * (TEXT_WORDS // 3 + 1))] * 3)
    typed = " ".join(["word"] * (TEXT_WORDS * 2))  # a long remark typed in one go
    hits = [
        hit("I live in Leeds."),
        hit(typed, hid="t"),
        hit(pasted, hid="a"),
        hit("chunk", "DocumentChunk", "b"),
        hit("Hi", "Fact", "c"),
    ]
    assert [h.id for h in texts_of(hits)] == ["a", "b"]
    assert not is_text(hit("I live in Leeds."))
    assert not is_text(hit(typed))


def test_a_text_is_read_line_by_line_and_a_numbered_step_stays_whole() -> None:
    lines = [line for line, _ in LINES]
    assert lines[:3] == ["Riverside Primary School", "Year 5 Trip", "Dear Parents,"]
    assert "1. Preheat nothing." in lines


class WordsEmbedder:
    """Texts as bags of their words: the lines sharing most words with the question are nearest."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vocabulary = sorted({w for t in texts for w in t.lower().split()})
        return [[float(w in t.lower().split()) for w in vocabulary] for t in texts]


def test_the_model_is_shown_the_lines_nearest_the_question_with_the_line_before_each() -> None:
    lines = [(f"Line {n} about nothing much.", "m") for n in range(30)]
    lines[20] = ("Parking: the barn has free parking for guests.", "m")
    shown = nearest_lines("is there parking at the barn", lines, WordsEmbedder()).splitlines()
    assert "Parking: the barn has free parking for guests." in shown
    assert "Line 19 about nothing much." in shown  # the line before it
    assert len(shown) < len(lines)
    assert nearest_lines("anything", lines[:5], None).splitlines() == [t for t, _ in lines[:5]]


def test_an_answer_may_take_up_the_question_s_words_but_not_invent_numbers() -> None:
    asked = "do they need to bring something for lunch?"
    found = quote_of(
        TextAnswer(quotes=["Please send a packed lunch."], answer="bring a packed lunch"), LINES, asked
    )
    assert found is not None
    assert text_answer(found).startswith("Bring a packed lunch (the text you gave me:")
    found = quote_of(TextAnswer(quotes=["The trip costs £14.50."], answer="£12"), LINES, "is it £12?")
    assert found is not None
    assert found.unsupported  # a number the line does not hold, even when the question says it


@pytest.mark.parametrize(
    ("line", "answer", "wrong"),
    [
        ("Bake for 50\u201355 minutes, until a skewer comes out clean.", "50-55 minutes", "40-45 minutes"),
        ("Bake for 50-55 minutes until done.", "50\u201355 minutes", "50\u201360 minutes"),
        ("Open 9:00\u201417:30 on weekdays.", "9:00-17:30", "9:00-18:30"),
        ("Ages 5\u201315 pay half the adult fare.", "ages 5-15", "ages 5-16"),
    ],
)
def test_a_range_written_with_another_dash_is_held_by_the_line(line: str, answer: str, wrong: str) -> None:
    """The documents set: "how long does it go in the oven for" -> "I can't find that in the text"
    (the model wrote "50-55 minutes", the recipe "50\u201355 minutes")."""
    lines = lines_of([hit(f"Notes\n{line}\nThanks")])
    found = quote_of(TextAnswer(quotes=[line], answer=answer), lines, "how long?")
    assert found is not None
    assert not found.unsupported
    assert text_answer(found).startswith(answer[0].upper() + answer[1:])
    other = quote_of(TextAnswer(quotes=[line], answer=wrong), lines, "how long?")
    assert other is not None
    assert other.unsupported  # other numbers are still no answer


@pytest.mark.parametrize(
    ("line", "answer", "made_up"),
    [
        ("important: kuba has peanut allergy, proper one w epipen", "peanuts", "cashews"),
        ("the kids swim on tuesdays at the leisure centre", "swimming, on Tuesday", "football, on Tuesday"),
        ("she teaches year 3 at the village school", "teaching year 3", "nursing year 3"),
    ],
)
def test_an_answer_in_another_ending_of_the_line_s_words_is_held(
    line: str, answer: str, made_up: str
) -> None:
    """First contact set 29: "What does my son Kuba have to stay away from in food?" -> "I don't
    know", the model having read "peanuts" from "kuba has peanut allergy" (taken as a word the
    line does not hold)."""
    assert answer_held(answer, line, "what about it?")
    assert not answer_held(made_up, line, "what about it?")


@pytest.mark.parametrize(
    ("answer", "line"), [("7:31", "Arrives 07:31."), ("8:05", "Doors open 08:05"), ("07:10", "at 7:10")]
)
def test_a_time_written_without_its_leading_zero_is_held_by_its_line(answer: str, line: str) -> None:
    assert answer_held(answer, line, "when?")
    assert not answer_held("7:32", line, "when?")


APPOINTMENT = (
    "Eastgate Surgery\nDear Ms Rowe,\nPlease bring a list of your medicines.\n"
    "Parking is free behind the building.\n"
    "Blood results take about a week.\nThe surgery is closed on bank holidays.\n"
    "Call 01632 555 010 to rearrange.\n"
    "Reception opens at 8:00.\nThe pharmacy next door opens at 9:00.\nWe are a teaching practice.\n"
    "Your review with Dr Amadi is on Friday 3 October at 9:10 in Treatment Room 4, ground floor."
)


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("which room is it in?", "Treatment Room 4"),
        ("is the parking free?", "Parking is free"),
        ("what number do i call to rearrange", "Call 01632 555 010"),
    ],
)
def test_a_line_sharing_the_questions_words_is_among_those_shown(question: str, line: str) -> None:
    texts = [t for t, _ in lines_of([hit(APPOINTMENT)])]
    shared = [texts[i] for i in sharing_indices(question, texts)]
    assert any(line in t for t in shared)


def test_a_question_sharing_no_word_with_the_text_adds_no_line() -> None:
    texts = [t for t, _ in lines_of([hit(APPOINTMENT)])]
    assert sharing_indices("anything about lizards?", texts) == []


@pytest.mark.parametrize(
    ("quote", "answer", "line"),
    [
        (
            "The review is at 9:10 in Room 4.",
            "9:10",
            "Your review with Dr Amadi is on Friday 3 October at 9:10",
        ),
        ("Reception is open from 8:00.", "8:00", "Reception opens at 8:00."),
        ("You call 01632 555 010 to change it.", "01632 555 010", "Call 01632 555 010 to rearrange."),
    ],
)
def test_a_copy_the_model_reworded_is_found_by_the_answer_its_line_holds(
    quote: str, answer: str, line: str
) -> None:
    found = quote_of(TextAnswer(quotes=[quote], answer=answer), lines_of([hit(APPOINTMENT)]), "when / which?")
    assert found is not None
    assert found.answer == answer
    assert line in found.lines[0]


@pytest.mark.parametrize(
    ("quote", "answer"),
    [
        ("Reception is open from 8:00.", "7:30"),  # an answer no line holds
        ("The pharmacy closes at six on Sundays.", "six"),  # few of its words in any line
        ("Reception is open from 8:00.", ""),  # no answer to find the line by
    ],
)
def test_a_reworded_copy_without_an_answer_its_line_holds_is_no_quote(quote: str, answer: str) -> None:
    assert quote_of(TextAnswer(quotes=[quote], answer=answer), lines_of([hit(APPOINTMENT)]), "when?") is None


class _AllButRoom:
    """An embedder that finds every line of the letter nearer the question than the room's."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[0.0, 1.0] if "Room 4" in t else [1.0, 0.0] for t in texts]


@pytest.mark.parametrize("question", ["which room is it in?", "what room do I go to", "Room number?"])
def test_the_line_naming_what_is_asked_is_shown_when_meaning_ranks_it_low(question: str) -> None:
    shown = nearest_lines(question, lines_of([hit(APPOINTMENT)]), _AllButRoom())
    assert "Treatment Room 4" in shown


@pytest.mark.parametrize(
    ("answer", "line", "question"),
    [
        ("about 10 calories", "Makes 1 loaf (about 10 slices).", "how many calories in a slice?"),
        ("2 cats", "We have 2 dogs and a cat.", "how many cats do they have"),
        ("£38 monthly", "You can add it for £38 per year.", "what does it cost monthly?"),
    ],
)
def test_a_number_the_line_gives_for_something_else_is_no_answer(
    answer: str, line: str, question: str
) -> None:
    assert not answer_held(answer, line, question)


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        ("5 days", "Refunds are made within 5 working days."),
        ("55 minutes", "Bake for 50\u201355 minutes, until golden."),
        ("2 years", "Own-brand products come with a warranty of 2 years."),
        ("room 7", "Please go to Room 7 on the first floor."),
        ("3 tablespoons", "Add 3 tbsp lemon juice and 3 tablespoons of sugar."),
    ],
)
def test_a_number_the_line_gives_for_the_same_thing_is_held(answer: str, line: str) -> None:
    assert answer_held(answer, line, "how long / which?")


@pytest.mark.parametrize(
    ("copied", "answer", "line"),
    [
        ("Please bring a list of your medicines.", "Treatment Room 4, ground floor", "Treatment Room 4"),
        ("Blood results take about a week.", "behind the building", "Parking is free"),
    ],
)
def test_an_answer_written_word_for_word_in_another_line_is_quoted_from_it(
    copied: str, answer: str, line: str
) -> None:
    found = quote_of(TextAnswer(quotes=[copied], answer=answer), lines_of([hit(APPOINTMENT)]), "where?")
    assert found is not None
    assert not found.unsupported
    assert found.answer == answer
    assert line in found.lines[0]


def test_an_answer_no_line_writes_leaves_the_copied_line_as_the_nearest() -> None:
    found = quote_of(
        TextAnswer(quotes=["Blood results take about a week."], answer="in the car park at the front"),
        lines_of([hit(APPOINTMENT)]),
        "where do i park?",
    )
    assert found is not None
    assert found.unsupported


@pytest.mark.parametrize(
    ("answer", "line"),
    [("55 minutes", "Prep 20 min | Bake 55 min"), ("2 hours", "Parking: 2 hrs max, 2 hours on Sundays")],
)
def test_a_count_named_in_full_is_held_by_its_shortening_or_its_word(answer: str, line: str) -> None:
    assert counts_held(answer, line)
