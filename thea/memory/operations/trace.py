"""Trace reads: the nodes of one cognitive cycle, the latest cycle of a user, and a user's
conversations (sessions) with their messages and answers."""

from __future__ import annotations

import abc
from dataclasses import dataclass

from thea.models import Node, UserImpulse


@dataclass(frozen=True)
class ChatSessionRow:
    """One of a user's conversations: when it began and last spoke, and its first message."""

    session_id: str
    first_text: str
    started_at: int
    last_at: int
    messages: int


@dataclass(frozen=True)
class ExchangeRow:
    """A message of a conversation and thea's answer to it (None: it gave none)."""

    impulse: UserImpulse
    response_id: str | None
    answer: str | None
    answered_at: int | None


class TraceReads(abc.ABC):
    """What the trace view (``thea trace``, the web inspector) and the web chat's history read
    from the graph."""

    @abc.abstractmethod
    def cycle_nodes(self, correlation_id: str) -> list[Node]:
        """Every node of one cycle (and of the jobs that followed it), oldest first."""

    @abc.abstractmethod
    def latest_impulse_id(self, user_id: str | None = None) -> str | None:
        """The newest impulse (of ``user_id``, or of anyone), or None."""

    @abc.abstractmethod
    def chat_sessions(self, user_id: str, limit: int) -> list[ChatSessionRow]:
        """The user's conversations (of live chat messages), the latest first."""

    @abc.abstractmethod
    def session_exchanges(self, user_id: str, session_id: str, limit: int) -> list[ExchangeRow]:
        """The last ``limit`` messages of one of the user's conversations with their answers,
        oldest first (none for another user's or an unknown session)."""
