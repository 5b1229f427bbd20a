"""Bracketed paste for ``thea chat``: a multi-line paste is one message, not one per line.

In a terminal the chat reads lines with GNU readline and turns on its bracketed paste
(:func:`line_editing`): a paste lands in the line as it was copied, line breaks included, with
no ``^[[200~`` shown, and one Enter sends it. Where readline cannot (libedit, no readline) the
chat asks the terminal for bracketed paste itself (``ESC [?2004h``): the terminal then wraps
pasted text in ``ESC [200~`` ... ``ESC [201~`` and :func:`read_message` reads lines until the
closing marker and returns the paste as one text with its line breaks (markers removed).
Outside a terminal (a pipe, a script) every line stays one message.
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


def line_editing(stream: TextIO, stdin: TextIO) -> bool:
    """Line editing and history by GNU readline, with its own bracketed paste, when both ends
    are a terminal; whether readline now handles pastes."""
    if not (stream.isatty() and stdin.isatty()):
        return False
    try:
        import readline
    except ImportError:  # pragma: no cover - Python built without readline
        return False
    if "libedit" in (readline.__doc__ or ""):  # macOS's libedit has no bracketed paste
        return False
    readline.parse_and_bind("set enable-bracketed-paste on")
    return True


@contextmanager
def bracketed_paste(stream: TextIO, stdin: TextIO, *, by_readline: bool = False) -> Iterator[None]:
    """Bracketed paste on while the block runs, when both ends are a terminal (asked of the
    terminal here unless readline does it)."""
    on = stream.isatty() and stdin.isatty() and not by_readline
    if on:
        stream.write(PASTE_ON)
        stream.flush()
    try:
        yield
    finally:
        if on:
            stream.write(PASTE_OFF)
            stream.flush()
