"""``!`` commands typed in a chat (terminal or web): one dispatcher for both."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from services.trace import Trace, latest_impulse_id, load_trace
from thea.errors import InputError, NotFoundError
from thea.runtime.app import Runtime


@dataclass
class ChatSession:
    user_id: str
    session_id: str
    last_impulse_id: str | None = None
    last_response_id: str | None = None


@dataclass
class CommandResult:
    text: str
    trace: Trace | None = None
    data: dict[str, Any] = field(default_factory=dict)
    quit: bool = False


Handler = Callable[[Runtime, ChatSession, str], Awaitable[CommandResult]]

HELP = """Commands:
  !help              this list
  !trace [id]        the thought process behind the last answer (or an impulse id / prefix)
  !quit              leave the chat"""


async def _help(rt: Runtime, chat: ChatSession, arg: str) -> CommandResult:
    return CommandResult(HELP)


async def _quit(rt: Runtime, chat: ChatSession, arg: str) -> CommandResult:
    return CommandResult("bye", quit=True)


async def _trace(rt: Runtime, chat: ChatSession, arg: str) -> CommandResult:
    def load() -> Trace:
        if arg:
            impulse_id = rt.memory.resolve_id(arg)
        else:
            impulse_id = chat.last_impulse_id or latest_impulse_id(rt.memory, chat.user_id) or ""
        if not impulse_id:
            raise NotFoundError("nothing to trace yet: say something first")
        return load_trace(rt.memory, impulse_id)

    trace = await asyncio.to_thread(load)
    return CommandResult(f"trace of {trace.impulse.id}", trace=trace)


COMMANDS: dict[str, Handler] = {
    "help": _help,
    "quit": _quit,
    "exit": _quit,
    "trace": _trace,
}


def is_command(text: str) -> bool:
    return text.lstrip().startswith("!")


async def run_command(rt: Runtime, chat: ChatSession, text: str) -> CommandResult:
    name, _, arg = text.strip()[1:].partition(" ")
    handler = COMMANDS.get(name.lower())
    if handler is None:
        raise InputError(f"unknown command !{name}; type !help")
    return await handler(rt, chat, arg.strip())
