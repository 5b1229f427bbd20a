"""Reading history files for `thea import`: every bad file is one clear line, good ones keep their dates."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from services.knowledge.history_formats import ImportFormatError, parse_history, parse_time
from services.knowledge.importer import turn_nodes


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def locomo(sessions: dict[int, list[dict[str, Any]]], sample_id: str = "conv-1") -> dict[str, Any]:
    conversation: dict[str, Any] = {"speaker_a": "Caroline", "speaker_b": "Melanie"}
    for number, turns in sessions.items():
        conversation[f"session_{number}_date_time"] = f"1:56 pm on {number} May, 2023"
        conversation[f"session_{number}"] = turns
    return {"sample_id": sample_id, "conversation": conversation, "qa": []}


def turn(dia: str, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"dia_id": dia, "speaker": speaker, "text": text, **extra}


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def error_of(path: Path, fmt: str = "auto") -> str:
    with pytest.raises(ImportFormatError) as info:
        parse_history(path, fmt)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    assert "Traceback" not in message
    return message


def test_a_locomo_file_keeps_each_sessions_date_and_the_turn_order(tmp_path: Path) -> None:
    data = [
        locomo(
            {
                1: [
                    turn("D1:1", "Caroline", "Hey Mel!"),
                    turn("D1:2", "Melanie", "Hi!", blip_caption="a dog"),
                ],
                2: [turn("D2:1", "Caroline", "I went to a support group.")],
            }
        )
    ]
    (conv,) = parse_history(write(tmp_path, "conv.json", json.dumps(data)))
    assert conv.name == "conv-1"
    assert [t.key for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert conv.turns[0].time_ms == ms("2023-05-01T13:56:00")
    assert conv.turns[1].time_ms == ms("2023-05-01T13:56:01")  # one second later: order kept
    assert conv.turns[2].time_ms == ms("2023-05-02T13:56:00")
    assert conv.turns[1].text == "Hi! [shares a photo of a dog]"
    assert [t.session for t in conv.turns] == ["1", "1", "2"]


def test_jsonl_messages_accept_roles_iso_and_epoch_times_and_group_by_day(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": "I adopted a cat.", "time": "2023-07-15T10:00:00Z"},
        {"speaker": "thea", "text": "Lovely!", "timestamp": 1689415205},
        {"speaker": "Ana", "text": "Hiking today.", "date": "2023-07-16"},
        {"speaker": "Ana", "text": "It rained.", "date": "2023-07-16"},
        {"speaker": "Ana", "text": "No date here.", "session": "misc"},
    ]
    path = write(tmp_path, "chat.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n\n")
    (conv,) = parse_history(path)
    assert conv.name == "chat"
    times = [t.time_ms for t in conv.turns]
    assert times[0] == ms("2023-07-15T10:00:00")
    assert times[1] == ms("2023-07-15T10:00:05")
    assert times[2] == ms("2023-07-16T00:00:00")
    assert times[3] == times[2] + 1000  # same date: order kept
    assert times[4] is None
    assert [t.session for t in conv.turns] == ["2023-07-15", "2023-07-15", "2023-07-16", "2023-07-16", "misc"]
    assert conv.turns[0].speaker == "user"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2023-05-08T13:56:00+02:00", ms("2023-05-08T11:56:00")),
        ("2023-05-08", ms("2023-05-08T00:00:00")),
        (1683554160, ms("2023-05-08T13:56:00")),
        (1683554160000, ms("2023-05-08T13:56:00")),
        ("1:56 pm on 8 May, 2023", ms("2023-05-08T13:56:00")),
    ],
)
def test_dates_in_the_usual_spellings(value: Any, expected: int) -> None:
    assert parse_time(value) == expected


@pytest.mark.parametrize("value", ["yesterday-ish", "", True, -5, None, [2023]])
def test_things_that_are_not_dates(value: Any) -> None:
    with pytest.raises(ValueError):
        parse_time(value)


def test_not_json_at_all(tmp_path: Path) -> None:
    assert "neither JSON nor JSONL" in error_of(write(tmp_path, "notes.txt", "dear diary\nit rained\n"))
    assert "not valid JSON" in error_of(write(tmp_path, "notes.json", "[{"), "locomo")


def test_wrong_shapes_say_what_was_expected(tmp_path: Path) -> None:
    assert '"conversation" object' in error_of(write(tmp_path, "a.json", "[1, 2]"))
    assert "no session_N" in error_of(write(tmp_path, "b.json", json.dumps({"conversation": {"x": 1}})))
    assert "is empty" in error_of(write(tmp_path, "c.json", "  \n"))
    assert "not UTF-8" in error_of(write_bytes(tmp_path, "d.json", b"\xff\xfe\x00garbage"))
    assert "no such file" in error_of(tmp_path / "missing.json")


def write_bytes(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_a_bad_row_in_the_middle_is_named_by_line(tmp_path: Path) -> None:
    good = json.dumps({"speaker": "Ana", "text": "hello", "time": "2023-01-01T10:00:00"})
    rows = [good] * 3 + ['{"speaker": "Ana", "time": "2023-01-01"}'] + [good] * 3
    assert error_of(write(tmp_path, "m.jsonl", "\n".join(rows))).startswith("m.jsonl line 4: needs")
    rows[3] = '{"speaker": "Ana", "text": "hi", "time": "next tuesday"}'
    message = error_of(write(tmp_path, "m.jsonl", "\n".join(rows)))
    assert message.startswith("m.jsonl line 4:")
    assert "not a date" in message
    rows[3] = "{oops"
    assert "line 4: not valid JSON" in error_of(write(tmp_path, "m.jsonl", "\n".join(rows)))


def test_a_bad_turn_deep_inside_a_locomo_file_is_named(tmp_path: Path) -> None:
    ok = locomo({1: [turn("D1:1", "Caroline", "hi")]}, "conv-a")
    bad = locomo(
        {1: [turn("D1:1", "Caroline", "hi")], 2: [turn("D2:1", "Melanie", "x"), {"dia_id": "D2:2"}]}, "conv-b"
    )
    message = error_of(write(tmp_path, "two.json", json.dumps([ok, bad])))
    assert message == 'two.json: conversation conv-b: session_2[1]: "speaker" must be a non-empty string'
    bad["conversation"]["session_2_date_time"] = "the day after"
    assert "session_2_date_time 'the day after' is not a date" in error_of(
        write(tmp_path, "two.json", json.dumps([ok, bad]))
    )


def test_duplicate_ids_are_refused_and_a_message_of_any_length_is_taken(tmp_path: Path) -> None:
    dup = locomo({1: [turn("D1:1", "A", "x"), turn("D1:1", "B", "y")]})
    assert "dia_id 'D1:1' appears twice" in error_of(write(tmp_path, "dup.json", json.dumps(dup)))
    long = "word " * 80_000  # 400,000 characters: imported as a document of chunks
    (conv,) = parse_history(write(tmp_path, "big.jsonl", json.dumps({"role": "u", "text": long})))
    assert conv.turns[0].text == long


def test_an_unknown_format_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="unknown format 'csv'"):
        parse_history(write(tmp_path, "a.json", "[]"), "csv")  # type: ignore[arg-type]


def test_text_thea_cannot_store_verbatim_is_refused_with_its_line(tmp_path: Path) -> None:
    good = json.dumps({"speaker": "Ana", "text": "hello"})
    nul = json.dumps({"speaker": "Ana", "text": "bad\u0000byte"})
    message = error_of(write(tmp_path, "c.jsonl", "\n".join([good, nul, good])))
    assert message == "c.jsonl line 2: the text contains a control character (U+0000)"
    surrogate = '{"speaker": "Ana\\ud800", "text": "hi"}'
    assert "line 1: the speaker contains an invalid (unpaired surrogate)" in error_of(
        write(tmp_path, "s.jsonl", surrogate)
    )


def test_reply_context_from_short_turns_only_leaves_a_long_replys_tail_out(tmp_path: Path) -> None:
    reply = "Here is how to set up the deployment pipeline step by step. " * 20  # 1,200 characters
    lines = [
        {"role": "User", "text": "How do I deploy my Flask app?", "session": "1"},
        {"role": "Assistant", "text": reply, "session": "1"},
        {"role": "User", "text": "I moved my API to Flask 2.3 last week.", "session": "1"},
        {"role": "Assistant", "text": "Good choice.", "session": "1"},
    ]
    (conv,) = parse_history(write(tmp_path, "chat.jsonl", "\n".join(json.dumps(x) for x in lines)))
    every = [t.node.context for t in turn_nodes(conv, "ana")]
    assert str(every[2]).startswith("…")  # by default: the long reply's tail
    short = [t.node.context for t in turn_nodes(conv, "ana", short_context_only=True)]
    assert short == [None, "How do I deploy my Flask app?", None, "I moved my API to Flask 2.3 last week."]
