"""Short-term context: the "Smart FIFO" conversation cache per user and session.

When the cache plus a new message would exceed a share of the model's context
window (default 70 %), the oldest question/answer pairs are evicted (whole pairs,
oldest first) and handed back to the caller, which sends them to distillation so
nothing said is lost.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from services.common.tokens import estimate_tokens


@dataclass
class Exchange:
    """One question/answer pair and the graph ids it came from."""

    question: str
    answer: str
    impulse_id: str
    response_id: str
    at: int = 0
    #: an exchange the model did not answer (a statement's acknowledgement, a fixed "I don't
    #: know"): kept for distillation, never shown to the model as history (it copies templates)
    templated: bool = False

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.question) + estimate_tokens(self.answer)


@dataclass
class Conversation:
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(e.tokens for e in self.exchanges)

    def history(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for e in self.exchanges:
            if not e.templated:
                out += [("user", e.question), ("assistant", e.answer)]
        return out


class ContextCache:
    """Conversation caches keyed by (user_id, session_id); thread-safe.

    ``max_sessions`` bounds memory: the least recently used session is dropped
    (its exchanges are returned for distillation too).
    """

    def __init__(self, context_window: int, share: float = 0.70, max_sessions: int = 1000) -> None:
        self.budget = int(context_window * share)
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[tuple[str, str], Conversation] = OrderedDict()
        self._lock = threading.Lock()

    def history(self, user_id: str, session_id: str) -> list[tuple[str, str]]:
        with self._lock:
            conv = self._sessions.get((user_id, session_id))
            return conv.history() if conv else []

    def exchanges(self, user_id: str, session_id: str) -> list[Exchange]:
        """Every exchange the cache holds for the session (templated ones too), oldest first."""
        with self._lock:
            conv = self._sessions.get((user_id, session_id))
            return list(conv.exchanges) if conv else []

    def make_room(self, user_id: str, session_id: str, incoming: str) -> list[Exchange]:
        """Evict oldest pairs until cache + ``incoming`` fit the budget; return them."""
        need = estimate_tokens(incoming)
        with self._lock:
            conv = self._sessions.get((user_id, session_id))
            if conv is None:
                return []
            evicted: list[Exchange] = []
            total = conv.tokens
            while conv.exchanges and total + need > self.budget:
                oldest = conv.exchanges.pop(0)
                total -= oldest.tokens
                evicted.append(oldest)
            return evicted

    def add(self, user_id: str, session_id: str, exchange: Exchange) -> list[Exchange]:
        """Append an exchange; returns exchanges of sessions dropped to bound memory."""
        key = (user_id, session_id)
        with self._lock:
            conv = self._sessions.pop(key, None) or Conversation()
            conv.exchanges.append(exchange)
            self._sessions[key] = conv
            dropped: list[Exchange] = []
            while len(self._sessions) > self.max_sessions:
                _, old = self._sessions.popitem(last=False)
                dropped.extend(old.exchanges)
            return dropped

    def holds(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            return (user_id, session_id) in self._sessions

    def restore(self, user_id: str, session_id: str, exchanges: list[Exchange]) -> int:
        """Fill an absent session's cache with its latest exchanges that fit the budget (a
        conversation reopened after a restart, or on another replica); nothing is evicted,
        nothing handed to distillation. Returns how many were kept."""
        kept: list[Exchange] = []
        total = 0
        for exchange in reversed(exchanges):
            if total + exchange.tokens > self.budget:
                break
            kept.insert(0, exchange)
            total += exchange.tokens
        with self._lock:
            full = len(self._sessions) >= self.max_sessions  # (making room would drop another's)
            if not kept or full or (user_id, session_id) in self._sessions:
                return 0
            self._sessions[(user_id, session_id)] = Conversation(exchanges=kept)
        return len(kept)

    def tokens(self, user_id: str, session_id: str) -> int:
        with self._lock:
            conv = self._sessions.get((user_id, session_id))
            return conv.tokens if conv else 0

    def clear(self, user_id: str, session_id: str) -> list[Exchange]:
        with self._lock:
            conv = self._sessions.pop((user_id, session_id), None)
            return conv.exchanges if conv else []
