"""``!`` commands typed in a chat (terminal or web): one dispatcher, run by the service."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from services.common.impulse_input import validate_impulse_text
from services.common.ownership import own_node
from services.knowledge import memory_edits
from services.knowledge.feedback import apply_feedback
from services.knowledge.forgetting import forget
from services.views.memories import what_thea_knows
from services.views.sessions import last_answered
from services.views.trace import Trace, latest_impulse_id, load_own_trace, trace_json
from thea.api.models import FactEditResult, FactsOfRecordView, TraceView
from thea.errors import InputError, NotFoundError
from thea.llm.scheduler import foreground
from thea.memory.universal import UniversalMemory
from thea.models import Fact
from thea.runtime.app import ReflectionQueued, Runtime


@dataclass(frozen=True)
class ChatSession:
    """A conversation: its user and id. What it said last is read from the graph when a command
    needs it (never kept in the process), so every replica of the service sees the same."""

    user_id: str
    session_id: str

    def last_ids(self, memory: UniversalMemory) -> tuple[str | None, str | None]:
        """(impulse id, answer id) of the conversation's latest answered message, or Nones."""
        last = last_answered(memory.traces, self.user_id, self.session_id)
        return (last.impulse.id, last.response_id) if last is not None else (None, None)

    async def alast_ids(self, memory: UniversalMemory) -> tuple[str | None, str | None]:
        return await asyncio.to_thread(self.last_ids, memory)


@dataclass
class CommandOutcome:
    """What a ``!`` command did, in the runtime; the API answers with it as
    :class:`thea.api.models.CommandResult`."""

    text: str
    trace: Trace | None = None
    data: dict[str, Any] = field(default_factory=dict)
    quit: bool = False

    def trace_view(self) -> TraceView | None:
        return TraceView.model_validate(trace_json(self.trace)) if self.trace is not None else None


Handler = Callable[[Runtime, ChatSession, str], Awaitable[CommandOutcome]]

HELP = """Commands:
  !help              this list
  !trace [id]        the thought process behind the last answer (or an impulse id / prefix)
  !reflect           merge insights about the same concepts into stronger ones
  !fact <text>       remember a claim (confidence estimated from what thea already knows)
  !forget <id>       a fact (id or prefix): delete it for good, its words everywhere;
                     an insight or a message: archive it (kept in history, recall skips it)
  !memories          what thea knows about you: facts by subject, with their ids
  !memories correct <id> <text> | outdate <id> | forget <id>
                     correct a fact (history kept), mark it outdated, or delete it for good
  !good / !bad       feedback on the last answer: strengthens / weakens what it recalled
  !quit              leave the chat"""


async def _help(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    return CommandOutcome(HELP)


async def _quit(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    return CommandOutcome("bye", quit=True)


async def _trace(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    def load() -> Trace:
        key = arg or chat.last_ids(rt.memory)[0] or latest_impulse_id(rt.memory, chat.user_id) or ""
        if not key:
            raise NotFoundError("nothing to trace yet: say something first")
        return load_own_trace(rt.memory, key, chat.user_id)

    trace = await asyncio.to_thread(load)
    return CommandOutcome(f"trace of {trace.impulse.id}", trace=trace)


async def _reflect(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    done = await rt.reflect(chat.user_id)
    if isinstance(done, ReflectionQueued):
        return CommandOutcome(
            f"reflection queued as job {done.job_id}; no worker finished it yet", data=asdict(done)
        )
    return CommandOutcome(done.summary(), data=done.as_dict())


async def _fact(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    text = validate_impulse_text(arg, rt.settings.max_impulse_chars) if arg.strip() else ""
    if not text:
        raise InputError("usage: !fact <text>, e.g. !fact Redis streams keep messages after reading")
    last_impulse, _ = await chat.alast_ids(rt.memory)
    async with foreground(rt.gate):  # the user waits for the fact check: the model is theirs
        outcome = await rt.facts.add_fact(text, chat.user_id, chat.session_id, source_message_id=last_impulse)
    return CommandOutcome(
        outcome.summary(),
        data={
            "fact_id": outcome.fact.id,
            "confidence": outcome.fact.confidence,
            "agreed": outcome.agreed,
            "contradicted": outcome.contradicted,
            "superseded": outcome.superseded,
        },
    )


async def _forget(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    if not arg:
        raise InputError("usage: !forget <id or id prefix> (ids are shown by !trace and `thea insights`)")
    node = await asyncio.to_thread(own_node, rt.memory, arg, chat.user_id)
    if isinstance(node, Fact):  # what the user told: forgotten for good, as !memories forget
        result = await asyncio.to_thread(
            memory_edits.forget, rt.memory, node.id, chat.user_id, rt.orchestrator.context, rt.jobs
        )
        return CommandOutcome(result.summary, data=result.model_dump(mode="json"))
    outcome = await asyncio.to_thread(forget, rt.memory, node.id, chat.user_id)
    return CommandOutcome(outcome.summary(), data={"id": outcome.id, "kind": outcome.kind})


MEMORIES_USAGE = (
    "usage: !memories, !memories correct <id> <text>, !memories outdate <id>, !memories forget <id>"
    " (ids as !memories shows them)"
)


def memories_text(view: FactsOfRecordView) -> str:
    """The memory list as chat lines: the summary, then each subject's facts with short ids."""
    lines = [view.summary]
    for group in view.subjects:
        lines.append("")
        lines.append(f"{group.name}:")
        for fact in group.facts:
            line = f"  {fact.id[:8]}  {fact.text}  ({fact.source.label})"
            if fact.history:
                line += "; earlier: " + "; ".join(e.value or e.text for e in fact.history)
            lines.append(line)
    return "\n".join(lines)


async def _memories(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
    action, _, rest = arg.partition(" ")
    action = action.lower()
    if not action or action == "list":
        view = await asyncio.to_thread(what_thea_knows, rt.memory, chat.user_id)
        return CommandOutcome(memories_text(view), data=view.model_dump(mode="json"))
    fact_id, _, text = rest.strip().partition(" ")
    if not fact_id:
        raise InputError(MEMORIES_USAGE)
    result: FactEditResult
    if action == "correct":
        if not text.strip():
            raise InputError("usage: !memories correct <id> <what is true instead>, e.g. I live in York.")
        result = await asyncio.to_thread(memory_edits.correct, rt.memory, fact_id, text, chat.user_id)
    elif action == "outdate":
        result = await asyncio.to_thread(memory_edits.outdate, rt.memory, fact_id, chat.user_id)
    elif action == "forget":
        result = await asyncio.to_thread(
            memory_edits.forget, rt.memory, fact_id, chat.user_id, rt.orchestrator.context, rt.jobs
        )
    else:
        raise InputError(MEMORIES_USAGE)
    return CommandOutcome(result.summary, data=result.model_dump(mode="json"))


def _feedback(value: int) -> Handler:
    async def handler(rt: Runtime, chat: ChatSession, arg: str) -> CommandOutcome:
        _, response_id = await chat.alast_ids(rt.memory)
        if not response_id:
            raise NotFoundError("no answer to rate yet: ask something first")
        outcome = await asyncio.to_thread(apply_feedback, rt.memory, response_id, value)
        return CommandOutcome(outcome.summary(), data={"changed": outcome.changed})

    return handler


COMMANDS: dict[str, Handler] = {
    "help": _help,
    "quit": _quit,
    "exit": _quit,
    "trace": _trace,
    "reflect": _reflect,
    "fact": _fact,
    "forget": _forget,
    "memories": _memories,
    "good": _feedback(1),
    "bad": _feedback(-1),
}


def is_command(text: str) -> bool:
    return text.lstrip().startswith("!")


def command_name(text: str) -> str:
    return text.strip()[1:].partition(" ")[0].lower()


async def run_command(rt: Runtime, chat: ChatSession, text: str) -> CommandOutcome:
    name, _, arg = text.strip()[1:].partition(" ")
    handler = COMMANDS.get(name.lower())
    if handler is None:
        raise InputError(f"unknown command !{name}; type !help")
    return await handler(rt, chat, arg.strip())
