"""Conversation history files a user can import: LoCoMo-format JSON and JSONL of messages.

Parsing is separate from writing and validates a whole file before anything is written:
a bad row anywhere raises :class:`ImportFormatError` with one line saying where and what.

**LoCoMo format** (Maharana et al., ACL 2024; the ``locomo10.json`` shape): a list of
samples (or one sample) ``{"sample_id", "conversation": {"session_N": [{"speaker",
"dia_id", "text", "blip_caption"?}, ...], "session_N_date_time": "1:56 pm on 8 May,
2023", ...}, ...}``. Other keys (``qa``, summaries) are ignored.

**JSONL**: one message per line, ``{"speaker" | "role" | "name": str, "text" |
"content": str, "time" | "timestamp" | "date" | "created_at": ISO 8601 string, epoch
seconds or milliseconds, or a LoCoMo date, optional; "session" | "session_id":
optional; "id": optional}``. Without a session, a message belongs to its day's session.

A message may be of any length: one longer than the turn limit is imported as a document of
chunks, as a chat paste is (services/knowledge/importer.py).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from services.common.impulse_input import as_stored, unstorable
from thea.errors import InputError

Format = Literal["auto", "locomo", "jsonl"]
FORMATS: tuple[Format, ...] = ("auto", "locomo", "jsonl")

_SESSION = re.compile(r"^session_(\d+)$")
_LOCOMO_TIME = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%H:%M on %d %B, %Y")
_SPEAKER_KEYS = ("speaker", "role", "name")
_TEXT_KEYS = ("text", "content")
_TIME_KEYS = ("time", "timestamp", "date", "created_at")
_SESSION_KEYS = ("session", "session_id")
#: numbers below this are epoch seconds, above it epoch milliseconds (1e11 s is the year 5138)
_SECONDS_LIMIT = 100_000_000_000


class ImportFormatError(InputError):
    """A history file that cannot be imported (nothing was written)."""


@dataclass(frozen=True)
class HistoryTurn:
    """One message of imported history."""

    key: str  # unique within its conversation (a dia_id, an id field or a line number)
    speaker: str
    text: str
    session: str
    time_ms: int | None  # when it was said (None: the file does not say)


@dataclass
class HistoryConversation:
    name: str
    turns: list[HistoryTurn] = field(default_factory=list)


def parse_locomo_time(text: str) -> int:
    """'1:56 pm on 8 May, 2023' -> epoch ms (UTC); ValueError if it is not that shape."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for pattern in _LOCOMO_TIME:
        try:
            moment = datetime.strptime(cleaned, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
        return int(moment.timestamp() * 1000)
    raise ValueError(f"unrecognised date {text!r}")


#: the latest time a message may carry: the end of year 9999 (epoch ms), as datetime allows
_LATEST_MS = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() * 1000)
_EARLIEST_MS = int(datetime(1, 1, 2, tzinfo=UTC).timestamp() * 1000)


def parse_time(value: Any) -> int:
    """A message time (ISO 8601, epoch s/ms, or a LoCoMo date) -> epoch ms; ValueError if not
    (also for a number that is no time of years 1970-9999: ``1e20``, ``NaN``, ``Infinity``)."""
    if isinstance(value, bool):
        raise ValueError(f"not a date: {value!r}")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(f"not a date: {value!r}") from None
        if not math.isfinite(number) or number < 0:
            raise ValueError(f"not a date: {value!r}")
        ms = number if number >= _SECONDS_LIMIT else number * 1000
        if ms > _LATEST_MS:
            raise ValueError(f"not a date: {value!r}")
        return int(ms)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"not a date: {value!r}")
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        return parse_locomo_time(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        ms = int(moment.timestamp() * 1000)
    except (OverflowError, OSError):  # a date at the very edge of datetime's range
        raise ValueError(f"not a date: {value!r}") from None
    if not _EARLIEST_MS <= ms <= _LATEST_MS:  # e.g. 9999-12-31T23:59:59-14:00 is in year 10000
        raise ValueError(f"not a date: {value!r}")
    return ms


#: JSON nested deeper than Python's parser goes (no history file is shaped like that)
_TOO_DEEP = "JSON nested too deeply (a history file is a list of conversations or messages)"


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- LoCoMo ------------------------------------------------------------------------------


def parse_locomo(data: Any, source: str = "file") -> list[HistoryConversation]:
    samples = data if isinstance(data, list) else [data]
    if not samples:
        raise ImportFormatError(f"{source}: no conversations in the file")
    out: list[HistoryConversation] = []
    for index, sample in enumerate(samples, start=1):
        where = f"{source}: conversation {index}"
        if not isinstance(sample, Mapping) or not isinstance(sample.get("conversation"), Mapping):
            raise ImportFormatError(
                f'{where}: expected an object with a "conversation" object (LoCoMo format)'
            )
        name = str(sample.get("sample_id") or f"conversation-{index}")
        where = f"{source}: conversation {name}"
        out.append(_locomo_conversation(sample["conversation"], name, where))
    return out


def _locomo_conversation(conv: Mapping[str, Any], name: str, where: str) -> HistoryConversation:
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(str(key))))
    if not sessions:
        raise ImportFormatError(f"{where}: no session_N lists of turns")
    result = HistoryConversation(name)
    seen: set[str] = set()
    for number, key in sessions:
        turns = conv[key]
        if not isinstance(turns, list):
            raise ImportFormatError(f"{where}: {key} must be a list of turns")
        stamp = conv.get(f"{key}_date_time")
        if stamp is None:
            raise ImportFormatError(f"{where}: {key} has no {key}_date_time")
        try:
            start = parse_locomo_time(str(stamp))
        except ValueError:
            raise ImportFormatError(
                f"{where}: {key}_date_time {_short(stamp)} is not a date like '1:56 pm on 8 May, 2023'"
            ) from None
        for offset, item in enumerate(turns):
            at = f"{where}: {key}[{offset}]"
            if not isinstance(item, Mapping):
                raise ImportFormatError(f"{at}: a turn must be an object")
            speaker, text = item.get("speaker"), item.get("text")
            if not isinstance(speaker, str) or not speaker.strip():
                raise ImportFormatError(f'{at}: "speaker" must be a non-empty string')
            if not isinstance(text, str):
                raise ImportFormatError(f'{at}: "text" must be a string')
            caption = item.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                text = f"{text} [shares a photo of {caption.strip()}]"
            dia_id = str(item.get("dia_id") or f"{key}:{offset}")
            if dia_id in seen:
                raise ImportFormatError(f"{at}: dia_id {dia_id!r} appears twice")
            seen.add(dia_id)
            _check_storable(text, at, speaker)
            # turns of one session keep their order: one second apart
            result.turns.append(
                HistoryTurn(
                    dia_id, as_stored(speaker.strip()), as_stored(text), str(number), start + offset * 1000
                )
            )
    return result


# -- JSONL -------------------------------------------------------------------------------


def _first(row: Mapping[str, Any], keys: Iterable[str]) -> tuple[str | None, Any]:
    for key in keys:
        if key in row and row[key] is not None:
            return key, row[key]
    return None, None


def parse_jsonl(lines: Iterable[str], source: str = "file") -> HistoryConversation:
    result = HistoryConversation(Path(source).stem or "messages")
    seen: set[str] = set()
    previous: dict[str, tuple[int, int]] = {}  # session -> (given time, time used)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        at = f"{source} line {number}"
        row = _json_row(line, at)
        speaker, text = _message(row, at)
        when = _row_time(row, at)
        _, session = _first(row, _SESSION_KEYS)
        if session is None:
            session = datetime.fromtimestamp(when / 1000, tz=UTC).strftime("%Y-%m-%d") if when else "1"
        session = str(session)
        key = str(row.get("id") or f"line-{number}")
        if key in seen:
            raise ImportFormatError(f"{at}: id {key!r} appears twice")
        seen.add(key)
        if when is not None:
            # messages stamped with the same time (e.g. a date only) keep their order: 1 s apart
            given, used = previous.get(session, (-1, -1))
            when_used = used + 1000 if when == given else when
            previous[session] = (when, when_used)
            when = when_used
        result.turns.append(HistoryTurn(key, as_stored(speaker.strip()), as_stored(text), session, when))
    if not result.turns:
        raise ImportFormatError(f"{source}: no messages in the file")
    return result


def _json_row(line: str, at: str) -> Mapping[str, Any]:
    """One JSONL line as its object; a line that is not one is refused in one line."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{at}: not valid JSON ({exc.msg})") from None
    except ValueError:  # a number of more than 4,300 digits
        raise ImportFormatError(f"{at}: not valid JSON (a number too long to read)") from None
    except RecursionError:
        raise ImportFormatError(f"{at}: {_TOO_DEEP}") from None
    if not isinstance(row, Mapping):
        raise ImportFormatError(f"{at}: expected a JSON object per line, got {type(row).__name__}")
    return row


def _message(row: Mapping[str, Any], at: str) -> tuple[str, str]:
    """(speaker, text) of a row, both checked storable."""
    _, speaker = _first(row, _SPEAKER_KEYS)
    _, text = _first(row, _TEXT_KEYS)
    if not isinstance(speaker, str) or not speaker.strip():
        raise ImportFormatError(f'{at}: needs "speaker" or "role" (a non-empty string)')
    if not isinstance(text, str):
        raise ImportFormatError(f'{at}: needs "text" or "content" (a string)')
    _check_storable(text, at, speaker)
    return speaker, text


def _row_time(row: Mapping[str, Any], at: str) -> int | None:
    """When a row's message was said (epoch ms), or None when it does not say."""
    time_key, raw_time = _first(row, _TIME_KEYS)
    if time_key is None:
        return None
    try:
        return parse_time(raw_time)
    except ValueError:
        raise ImportFormatError(
            f'{at}: "{time_key}" {_short(raw_time)} is not a date (ISO 8601 or epoch seconds)'
        ) from None


def _check_storable(text: str, at: str, speaker: str = "") -> None:
    """Text of any length is taken (a long message becomes a document when it is imported:
    services/knowledge/importer.py); text thea cannot store verbatim is refused."""
    for name, value in (("text", text), ("speaker", speaker)):
        problem = unstorable(value)
        if problem:
            raise ImportFormatError(f"{at}: the {name} contains {problem}")


# -- files -------------------------------------------------------------------------------


def parse_history(path: Path, fmt: Format = "auto") -> list[HistoryConversation]:
    """Read and validate a whole history file; raises :class:`ImportFormatError` (one line)."""
    if fmt not in FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    source = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ImportFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImportFormatError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ImportFormatError(f"{source}: not UTF-8 text (expected JSON or JSONL)") from None
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot be read ({exc.strerror})") from None
    return parse_history_text(text, source, fmt)


def parse_history_text(text: str, source: str, fmt: Format = "auto") -> list[HistoryConversation]:
    """Validate a whole history file's text (``source`` names it in errors)."""
    if fmt not in FORMATS:
        raise ImportFormatError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    if not text.strip():
        raise ImportFormatError(f"{source}: the file is empty")
    if fmt == "jsonl":
        return [parse_jsonl(text.splitlines(), source)]
    try:
        data = json.loads(text)
    except RecursionError:
        raise ImportFormatError(f"{source}: {_TOO_DEEP}") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # a number of more than 4,300 digits
            raise ImportFormatError(f"{source}: not valid JSON (a number too long to read)") from None
        if fmt == "locomo":
            raise ImportFormatError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
        first = text.lstrip()[:1]
        if first != "{":
            raise ImportFormatError(
                f"{source}: neither JSON nor JSONL (line {exc.lineno}: {exc.msg})"
            ) from None
        return [parse_jsonl(text.splitlines(), source)]
    if fmt == "auto" and isinstance(data, Mapping) and "conversation" not in data:
        # a one-line JSONL file parses as one JSON object
        return [parse_jsonl(text.splitlines(), source)]
    if not isinstance(data, list | Mapping):
        raise ImportFormatError(f"{source}: expected LoCoMo conversations or JSONL messages")
    return parse_locomo(data, source)
