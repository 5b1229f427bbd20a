"""Streamed answers as typed events, parsed from the service's server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from thea.api.models import AskResult, CommandResult, ImportResult
from thea.client.errors import raise_for_body
from thea.errors import ImportInterrupted


@dataclass(frozen=True)
class Token:
    """A piece of the answer, as the model produced it."""

    text: str


@dataclass(frozen=True)
class Done:
    """The cycle finished: the whole answer, its impulse id, failed steps, usage."""

    result: AskResult


@dataclass(frozen=True)
class Command:
    """A ``!`` command ran (chat lines only)."""

    result: CommandResult


ChatEvent = Token | Done | Command


class SSEParser:
    """Feed it lines; it yields (event, data) pairs. Comment lines (keep-alives) are skipped."""

    def __init__(self) -> None:
        self._event = "message"
        self._data: list[str] = []

    def feed(self, line: str) -> tuple[str, str] | None:
        line = line.rstrip("\r\n")
        if not line:
            if not self._data:
                return None
            out = (self._event, "\n".join(self._data))
            self._event, self._data = "message", []
            return out
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


def to_event(name: str, data: str) -> ChatEvent | None:
    """One SSE message as a typed event; an ``error`` event raises the mapped thea error."""
    payload = json.loads(data)
    if name == "token":
        return Token(str(payload.get("text", "")))
    if name == "done":
        return Done(AskResult.model_validate(payload))
    if name == "command":
        return Command(CommandResult.model_validate(payload))
    if name == "error":
        raise_for_body(500, payload if isinstance(payload, dict) else {})
    return None


def parse_lines(lines: Iterable[str]) -> Iterator[ChatEvent]:
    parser = SSEParser()
    for line in lines:
        message = parser.feed(line)
        if message is not None and (event := to_event(*message)) is not None:
            yield event


def import_event(name: str, data: str) -> tuple[int, int] | ImportResult | None:
    """One message of a streamed import: ``(done, total)`` after a batch, or the result; a
    ``stopped`` event raises :class:`ImportInterrupted`, an ``error`` event the mapped thea error."""
    payload = json.loads(data)
    if name == "progress":
        return int(payload["done"]), int(payload["total"])
    if name == "done":
        return ImportResult.model_validate(payload)
    if name == "stopped":
        raise ImportInterrupted(str(payload["error"]), int(payload["done"]), int(payload["total"]))
    if name == "error":
        raise_for_body(500, payload if isinstance(payload, dict) else {})
    return None


def import_events(lines: Iterable[str]) -> Iterator[tuple[int, int] | ImportResult]:
    """A streamed import's events (:func:`import_event`), line by line."""
    parser = SSEParser()
    for line in lines:
        message = parser.feed(line)
        if message is not None and (event := import_event(*message)) is not None:
            yield event
