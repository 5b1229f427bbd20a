"""A table in a text the user gave, read as records (issue 38, item 3).

A pasted timetable or price list sets its cells in columns, apart by runs of spaces or tabs or
between bars (a Markdown table, its rule under the heading left out). A
small model reading such a block copies a whole row and names the cell under the wrong heading
(the documents set: "What time does the 08:33 from Ashbury leave Kelmont?" got "08:33", the
row's own time). Read as records, each cell beside the label of its row (and its column's
heading, when the table has one), the answer is one line the model can copy and code can check:
"Ashbury dep. 08:33; Kelmont dep. 08:50; …". Layout only: cells, columns and digits are
compared, no word is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from services.common.held import numbers

#: what sets a table's cells apart: two spaces or more, or a tab
_CELL_GAP = re.compile(r"\t|\s{2,}")
#: what a barred table's rule under its heading is made of ("|-----|:----:|")
_RULE_MARKS = frozenset("|:- \t")
#: cells a table's line has at least (a label and two values)
MIN_CELLS = 3
#: lines a table has at least
MIN_ROWS = 2


def _is_rule(line: str) -> bool:
    """The line under a barred table's heading: bars, dashes and colons only."""
    return "-" in line and "|" in line and set(line.strip()) <= _RULE_MARKS


def cells(line: str) -> list[str]:
    """A line's cells (one when it is not set in columns): apart by bars when it is written
    between them, else by runs of spaces or tabs."""
    text = line.strip()
    if len(text) > 1 and text[0] == text[-1] == "|":
        return [c.strip() for c in text[1:-1].split("|")]
    return [c for c in _CELL_GAP.split(text) if c]


def records(rows: Sequence[Sequence[str]]) -> list[str]:
    """A table's rows of cells (each as long) as lines a reader can copy. With a heading row
    (its cells after the first hold no digit, the others' do) each row is one record, every cell
    beside its heading: "Saturday: Opens 8:00; Closes 20:00". Without one (a timetable: a label
    then a time for each train) each column is one record, every cell beside its row's label:
    "Ashbury dep. 08:33; Kelmont dep. 08:50"."""
    head, body = rows[0], rows[1:]
    headed = not any(numbers(c) for c in head[1:]) and any(numbers(c) for r in body for c in r[1:])
    if headed:
        return [
            f"{row[0]}: " + "; ".join(f"{name} {cell}" for name, cell in zip(head[1:], row[1:], strict=True))
            for row in body
        ]
    return ["; ".join(f"{row[0]} {row[col]}" for row in rows) for col in range(1, len(head))]


def _blocks(lines: Sequence[str]) -> Iterator[tuple[list[str], bool]]:
    """The lines (a barred table's rule left out) in blocks, each with whether it is a table:
    :data:`MIN_ROWS` lines or more in a row set in the same number of columns, at least
    :data:`MIN_CELLS`."""
    kept = [line for line in lines if not _is_rule(line)]
    i = 0
    while i < len(kept):
        width = len(cells(kept[i]))
        end = i + 1
        while width >= MIN_CELLS and end < len(kept) and len(cells(kept[end])) == width:
            end += 1
        yield kept[i:end], width >= MIN_CELLS and end - i >= MIN_ROWS
        i = end


def read_tables(lines: Sequence[str]) -> list[str]:
    """The lines of a text with each table in it read as records, other lines as they are."""
    out: list[str] = []
    for block, table in _blocks(lines):
        out += records([cells(line) for line in block]) if table else block
    return out


def holds_table(lines: Sequence[str]) -> bool:
    """Some lines of the text are a table (a pasted price list, however few its words)."""
    return any(table for _, table in _blocks(lines))
