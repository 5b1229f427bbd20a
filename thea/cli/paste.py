"""Bracketed paste for ``thea chat``: a multi-line paste is one message, not one per line.

When the chat runs in a terminal it asks the terminal for bracketed paste (``ESC [?2004h``):
the terminal then wraps pasted text in ``ESC [200~`` ... ``ESC [201~``. :func:`read_message`
reads lines until the closing marker and returns the paste as one text with its line breaks
(markers removed). Outside a terminal (a pipe, a script) every line stays one message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

PASTE_ON = "\x1b[?2004h"
PASTE_OFF = "\x1b[?2004l"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
#: a paste longer than this many lines is cut here (the service refuses huge messages anyway)
MAX_PASTE_LINES = 20_000


def read_message(read_line: Callable[[str], str], prompt: str) -> str:
    """One message: a typed line, or a whole bracketed paste (and what was typed around it)."""
    line = read_line(prompt)
    if PASTE_START not in line:
        return line
    parts = [line]
    while PASTE_END not in parts[-1] and len(parts) < MAX_PASTE_LINES:
        try:
            parts.append(read_line(""))
        except EOFError:
            break
    return "\n".join(parts).replace(PASTE_START, "").replace(PASTE_END, "")


@contextmanager
def bracketed_paste(stream: TextIO, stdin: TextIO) -> Iterator[None]:
    """Bracketed paste on while the block runs, when both ends are a terminal."""
    on = stream.isatty() and stdin.isatty()
    if on:
        stream.write(PASTE_ON)
        stream.flush()
    try:
        yield
    finally:
        if on:
            stream.write(PASTE_OFF)
            stream.flush()
