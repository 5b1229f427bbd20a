"""Validation of user impulses: clear errors for input thea will not store."""

from __future__ import annotations

import re

from thea.errors import InputError

#: C0/C1 control characters except tab, newline and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def unstorable(text: str) -> str | None:
    """What in the text thea cannot store verbatim (for messages and imported history), or None."""
    if _SURROGATE.search(text):
        return "an invalid (unpaired surrogate) character"
    bad = _CONTROL.search(text)
    if bad:
        return f"a control character (U+{ord(bad.group()):04X})"
    return None


def validate_impulse_text(text: object, max_chars: int) -> str:
    """Return the text unchanged if thea can store and recall it verbatim, else raise."""
    if not isinstance(text, str):
        raise InputError(f"a message must be text, not {type(text).__name__}")
    if not text.strip():
        raise InputError("the message is empty")
    if len(text) > max_chars:
        raise InputError(f"the message is {len(text):,} characters long; the limit is {max_chars:,}")
    if _SURROGATE.search(text):
        raise InputError("the message contains an invalid (unpaired surrogate) character")
    bad = _CONTROL.search(text)
    if bad:
        raise InputError(
            f"the message contains a control character (U+{ord(bad.group()):04X}); remove it and retry"
        )
    return text
