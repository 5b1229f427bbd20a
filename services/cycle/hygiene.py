"""Generation hygiene: answers that loop are stopped, answers cut by the length limit say so.

Small models loop ("A corgi, a corgi, a corgi, ...") or run into the token limit mid-word
("... home to a"). Independent of the model runtime:

* :func:`loop_cut` finds a run of the same 1-8 words repeated at the end of the text (a single
  word four times, a longer unit three times), or a block of whole lines repeated (one line three
  times, a block of lines twice: a list that starts over, "- eggs / - bread / - apples / - eggs
  / ..."); the streaming answer is stopped as soon as one appears, and the answer keeps one copy
  of the repeated unit plus a note that it was cut;
* :func:`points_cut` ends a request's list after :data:`MAX_POINTS` points or before a point it
  gives a second time (the prompt asks for five; the 0.5B wrote ten, two of them twice);
* :func:`tidy` adds a note to an answer that used its whole token allowance and does not end a
  sentence, so a cut answer says it was cut instead of ending silently mid-word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

LOOP_NOTE = " … (stopped: the answer began repeating itself)"
LENGTH_NOTE = " … (cut off: the answer reached its length limit)"
MAX_UNIT_WORDS = 8
MAX_UNIT_LINES = 40
#: repeated lines are a loop only when their copies say at least this many words together (two
#: short lines that alternate, "Yes. / No. / Yes. / No.", can be meant)
MIN_LOOP_WORDS = 12
_WORD = re.compile(r"\S+")
#: a list point's mark: a bullet, or a number with "." or ")"
_MARK = r"(?:[-*•]|\d{1,3}[.)])"
_LIST_MARK = re.compile(rf"^{_MARK}\s*")
_ENDS_SENTENCE = re.compile(r"""[.!?…:;)\]"'»`*]\s*$""")


#: a request's answer gives at most this many points (the synthesis prompt asks for five)
MAX_POINTS = 5
_ITEM = re.compile(rf"^(?P<indent>[ \t]*){_MARK}[ \t]+\S")


def points_cut(text: str, limit: int | None = MAX_POINTS, *, whole: bool = False) -> int | None:
    """Where to cut an answer whose list goes on past ``limit`` points (None: no limit) or gives
    a point it gave already (seen: ten dinner ideas, "Stir-fry broccoli with mixed vegetables and tofu" among
    them twice), or None. The cut falls after the last point kept; a list's points are the lines
    of its first item's indent, and a line of other text at no indent starts a new list.
    ``whole``: the text is all there is (its last line complete, not still arriving)."""
    at = 0
    count, indent = 0, None
    seen: set[str] = set()
    last_end = 0
    for line in text.split("\n"):
        end = at + len(line)
        item = _ITEM.match(line)
        if item is None:
            if line.strip() and not line[:1].isspace():
                count, indent, seen = 0, None, set()
        elif indent is None or item.group("indent") == indent:
            indent = item.group("indent")
            key = _line_key(line)
            complete = whole or end < len(text)  # the last line may still be arriving
            if (limit is not None and count == limit) or (complete and key in seen):
                return last_end
            count += 1
            seen.add(key)
        last_end = end
        at = end + 1
    return None


_NUMBER_MARK = re.compile(r"^([ \t]*)\d{1,3}([.)])")
#: two blank lines or more in a row
_BLANK_RUN = re.compile(r"\n[ \t]*(?:\n[ \t]*)+\n")


def without_points(text: str, drop: Callable[[str], bool]) -> str | None:
    """The text without the points of its lists that ``drop`` says go (a point: its line and the
    more deeply indented lines under it), numbered again; None when it has no list point to
    drop, or when every point would go."""
    lines = text.split("\n")
    kept: list[str] = []
    dropped = points = 0
    skipping: str | None = None  # the indent of the point being left out
    for line in lines:
        item = _ITEM.match(line)
        if skipping is not None and line.strip() and line[: len(skipping) + 1].isspace():
            continue  # a line (or a sub-point) under a point left out
        skipping = None
        if item is not None:
            points += 1
            if drop(line):
                dropped += 1
                skipping = item.group("indent")
                continue
        kept.append(line)
    if not dropped or dropped == points:
        return None
    # the blank lines that stood between points left out go with them (live: a lunch idea after
    # four blank lines where three points with bread had been)
    return _numbered_again(_BLANK_RUN.sub("\n\n", "\n".join(kept)).strip("\n"))


def _numbered_again(text: str) -> str:
    """Numbered points 1, 2, 3 ... again, per list and indent."""
    counters: dict[str, int] = {}
    out: list[str] = []
    for line in text.split("\n"):
        found = _NUMBER_MARK.match(line)
        if found is None:
            if line.strip() and not line[:1].isspace() and not _ITEM.match(line):
                counters = {}  # text at no indent: a new list
            out.append(line)
            continue
        indent = found.group(1)
        counters[indent] = counters.get(indent, 0) + 1
        out.append(f"{indent}{counters[indent]}{found.group(2)}{line[found.end() :]}")
    return "\n".join(out)


def too_many_points(text: str) -> bool:
    return points_cut(text) is not None


def _key(word: str) -> str:
    return word.strip(".,;:!?\"'()«»").lower()


def loop_cut(text: str) -> int | None:
    """Where to cut a text that ends in a loop (after the first copy of the repeated unit), or None."""
    words = _words_loop_cut(text)
    return words if words is not None else _lines_loop_cut(text)


#: a point that opens with its name in bold ("**Broccoli and Spinach Salad**: …")
_BOLD_HEADING = re.compile(r"^\*\*(?P<name>[^*\n]+?)\*\*")


def _line_key(line: str) -> str:
    """A line as a loop compares it: without its list mark or number, case and spacing; a point
    that opens with its name in bold is that name (live: "**Broccoli and Spinach Salad**" given
    twice, its description worded a little otherwise the second time)."""
    text = _LIST_MARK.sub("", line.strip())
    heading = _BOLD_HEADING.match(text)
    if heading is not None:
        text = heading.group("name")
    return " ".join(_key(w) for w in text.split())


def _lines_loop_cut(text: str) -> int | None:
    """After the first copy of a block of whole lines that the text's last lines repeat, or None."""
    offset = max(0, len(text) - 4000)
    window = text[offset:]
    done = window.rfind("\n")  # only whole lines: the last one may still be arriving
    if done < 0:
        return None
    ends: list[int] = []  # where each non-blank line ends (in ``window``)
    keys: list[str] = []
    start = 0
    for line in window[:done].split("\n"):
        if line.strip():
            keys.append(_line_key(line))
            ends.append(start + len(line))
        start += len(line) + 1
    for n in range(1, MAX_UNIT_LINES + 1):
        needed = 3 if n == 1 else 2
        if len(keys) < n * needed:
            break
        unit = keys[-n:]
        if not all(unit) or sum(len(k.split()) for k in unit) * needed < MIN_LOOP_WORDS:
            continue
        copies = _copies_at_end(keys, n)
        if copies >= needed:
            first = len(keys) - copies * n  # index of the loop's first line
            return offset + ends[first + n - 1]
    return None


def _copies_at_end(items: list[str], n: int) -> int:
    """How many times the last ``n`` items repeat back to back at the end of ``items``."""
    unit, copies = items[-n:], 1
    while copies * n + n <= len(items) and items[-(copies + 1) * n : -copies * n] == unit:
        copies += 1
    return copies


def _words_loop_cut(text: str) -> int | None:
    spans = [m.span() for m in _WORD.finditer(text[-4000:])]
    offset = max(0, len(text) - 4000)
    words = [_key(text[offset + a : offset + b]) for a, b in spans]
    for n in range(1, MAX_UNIT_WORDS + 1):
        needed = 4 if n == 1 else 3
        if len(words) < n * needed:
            break
        unit = words[-n:]
        if not any(unit):
            continue
        copies = _copies_at_end(words, n)
        if copies >= needed:
            first = len(words) - copies * n  # index of the loop's first word
            return offset + spans[first + n - 1][1]
    return None


def is_looping(text: str) -> bool:
    return loop_cut(text) is not None


def tidy(answer: str, tokens_out: int, max_tokens: int | None) -> tuple[str, str]:
    """The answer to keep and the note added to it (empty when nothing was wrong)."""
    cut = loop_cut(answer)
    if cut is not None:
        return answer[:cut].rstrip() + LOOP_NOTE, LOOP_NOTE
    used_all = max_tokens is not None and tokens_out >= max_tokens
    if used_all and answer.strip() and not _ENDS_SENTENCE.search(answer):
        return answer.rstrip() + LENGTH_NOTE, LENGTH_NOTE
    return answer, ""
