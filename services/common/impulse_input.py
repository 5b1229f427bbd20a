"""Validation of text thea stores (messages, facts, corrections, imported history): clear
errors for what it will not store, and the one form it stores the rest in."""

from __future__ import annotations

import re

from thea.errors import InputError
from thea.text import without_bidi_controls

#: C0/C1 control characters except tab, newline and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CARRIAGE_RETURN = re.compile(r"\r\n?")


def unstorable(text: str) -> str | None:
    """What in the text thea cannot store (for messages and imported history), or None."""
    if _SURROGATE.search(text):
        return "an invalid (unpaired surrogate) character"
    bad = _CONTROL.search(text)
    if bad:
        return f"a control character (U+{ord(bad.group()):04X})"
    return None


def as_stored(text: str) -> str:
    """The form thea stores storable text in: bidi controls (U+202A-U+202E, U+2066-U+2069,
    U+200E/F, U+061C) removed, line ends (``\\r\\n``, ``\\r``) made ``\\n``; nothing else changes."""
    return _CARRIAGE_RETURN.sub("\n", without_bidi_controls(text))


def storable_text(text: str, what: str = "the message") -> str:
    """``text`` as thea stores it (:func:`as_stored`); :class:`InputError` naming ``what`` for a
    lone surrogate or a control character other than tab and line ends (NUL, BEL, ESC, DEL,
    C1), which are refused on every route rather than stored or silently changed."""
    if _SURROGATE.search(text):
        raise InputError(f"{what} contains an invalid (unpaired surrogate) character")
    bad = _CONTROL.search(text)
    if bad:
        raise InputError(
            f"{what} contains a control character (U+{ord(bad.group()):04X}); remove it and retry"
        )
    return as_stored(text)


def validate_impulse_text(text: object, max_chars: int) -> str:
    """The message as thea stores it (:func:`storable_text`), or an :class:`InputError` saying
    why it will not store it."""
    if not isinstance(text, str):
        raise InputError(f"a message must be text, not {type(text).__name__}")
    if not text.strip():
        raise InputError("the message is empty")
    if len(text) > max_chars:
        raise InputError(f"the message is {len(text):,} characters long; the limit is {max_chars:,}")
    stored = storable_text(text)
    if not stored.strip():
        raise InputError("the message is empty")
    return stored
