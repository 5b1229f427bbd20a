"""Numbers a sentence may say: only those its source holds. The one check behind a reaction to a
statement (services/cycle/reply.py), a short answer read from a text (services/cycle/from_text.py)
and an insight's numbers, their order and that the user said them (services/reflection/grounding.py)."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d+")
#: a terminal control sequence ("\x1b[2J"): its digits are no number anybody said
_CONTROL_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")


def numbers(text: str) -> list[str]:
    """The text's numbers as written, digit runs ("8:20" holds "8" and "20")."""
    return _NUMBER.findall(_CONTROL_SEQUENCE.sub(" ", text))


def number_value(number: str) -> str:
    """A digit run without its leading zeros: "07" of "07:31" and "7" of "7:31" are one number."""
    return number.lstrip("0") or "0"


def numbers_not_held(said: str, source: str) -> list[str]:
    """The numbers ``said`` names that ``source`` does not hold (leading zeros aside: a timetable's
    "07:31" holds "7:31")."""
    held = {number_value(n) for n in numbers(source)}
    return [n for n in numbers(said) if number_value(n) not in held]


#: number words as digits (closed class): "ten" and "10" are one answer
_UNITS = {
    word: n
    for n, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    word: 10 * n
    for n, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2
    )
}


def as_digits(word: str) -> str:
    """A number word ("nine", "fifty-eight") as its digits, any other word as it is."""
    tens, _, unit = word.partition("-")
    if tens in _TENS and (not unit or unit in _UNITS):
        return str(_TENS[tens] + _UNITS.get(unit, 0))
    return str(_UNITS[word]) if word in _UNITS else word
