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


def numbers_not_held(said: str, source: str) -> list[str]:
    """The numbers ``said`` names that ``source`` does not hold."""
    held = set(numbers(source))
    return [n for n in numbers(said) if n not in held]
