"""Short-term context: the "Smart FIFO" conversation of each user and session (the port).

When the conversation plus a new message would exceed a share of the model's context window
(default 70 %), the oldest question/answer pairs are evicted (whole pairs, oldest first) and
handed back to the caller, which sends them to distillation so nothing said is lost.

Two adapters: :class:`services.cycle.context_local.ContextCache` keeps the conversations in
the process (the embedded service: one process answers every request), and
:class:`workers.conversations.RedisConversationCache` keeps them in the queue's Redis, so the
replicas of the server profile share them: a conversation whose turns alternate between two
services is one conversation on both.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.common.exchange import Exchange
from services.common.statements import without_acknowledgement


@dataclass
class Conversation:
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(e.tokens for e in self.exchanges)

    def history(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for e in self.exchanges:
            answer = without_acknowledgement(e.answer)  # a template the model must not copy
            if not e.templated and answer.strip():
                out += [("user", e.question), ("assistant", answer)]
        return out


def latest_fitting(exchanges: Sequence[Exchange], budget: int) -> list[Exchange]:
    """The latest of ``exchanges`` (oldest first) whose tokens fit ``budget`` together."""
    kept: list[Exchange] = []
    total = 0
    for exchange in reversed(exchanges):
        if total + exchange.tokens > budget:
            break
        kept.insert(0, exchange)
        total += exchange.tokens
    return kept


class ConversationCache(abc.ABC):
    """The conversations of (user_id, session_id) pairs, each within ``budget`` tokens.

    An adapter may raise :class:`thea.errors.TheaError` when its store is unreachable; the
    cycle then answers without the conversation (it never fails for it)."""

    def __init__(self, context_window: int, share: float = 0.70) -> None:
        self.budget = int(context_window * share)

    @abc.abstractmethod
    def exchanges(self, user_id: str, session_id: str) -> list[Exchange]:
        """Every exchange held for the session (templated ones too), oldest first."""

    @abc.abstractmethod
    def holds(self, user_id: str, session_id: str) -> bool:
        """Whether the session is held (possibly with no exchange left after an eviction)."""

    @abc.abstractmethod
    def make_room(self, user_id: str, session_id: str, incoming: str) -> list[Exchange]:
        """Evict the oldest pairs until the conversation plus ``incoming`` fit the budget; return
        them (each evicted exchange is returned to exactly one caller)."""

    @abc.abstractmethod
    def add(self, user_id: str, session_id: str, exchange: Exchange) -> list[Exchange]:
        """Append an exchange; returns exchanges of sessions dropped to bound memory."""

    @abc.abstractmethod
    def restore(self, user_id: str, session_id: str, exchanges: list[Exchange]) -> int:
        """Fill an absent session with its latest exchanges that fit the budget (a conversation
        reopened after a restart, or after it expired); nothing is evicted, nothing handed to
        distillation. Returns how many were kept (0 when the session is held already)."""

    @abc.abstractmethod
    def clear(self, user_id: str, session_id: str) -> list[Exchange]:
        """Forget the session; returns its exchanges."""

    def history(self, user_id: str, session_id: str) -> list[tuple[str, str]]:
        """The conversation as (role, text) pairs for a prompt (templated exchanges left out)."""
        return Conversation(self.exchanges(user_id, session_id)).history()

    def tokens(self, user_id: str, session_id: str) -> int:
        return Conversation(self.exchanges(user_id, session_id)).tokens
