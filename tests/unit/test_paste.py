"""A bracketed paste is one chat message, whatever its line breaks."""

from __future__ import annotations

from collections.abc import Callable

from thea.cli.paste import PASTE_END, PASTE_START, read_message


def lines(*typed: str) -> Callable[[str], str]:
    pending = list(typed)

    def read(_prompt: str) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    return read


def test_a_typed_line_is_one_message() -> None:
    assert read_message(lines("hello", "again"), "you> ") == "hello"


def test_a_multi_line_paste_is_one_message_with_its_line_breaks() -> None:
    read = lines(f"{PASTE_START}first line", "second line", f"third line{PASTE_END}", "next message")
    assert read_message(read, "you> ") == "first line\nsecond line\nthird line"
    assert read_message(read, "you> ") == "next message"


def test_text_typed_around_a_paste_belongs_to_the_same_message() -> None:
    read = lines(f"summarise: {PASTE_START}a", f"b{PASTE_END} please")
    assert read_message(read, "") == "summarise: a\nb please"


def test_a_paste_cut_by_end_of_input_keeps_what_arrived() -> None:
    assert read_message(lines(f"{PASTE_START}a", "b"), "") == "a\nb"
