"""The conversations in this process (the embedded service): an LRU of sessions, thread-safe."""

from __future__ import annotations

import threading
from collections import OrderedDict

from services.common.exchange import Exchange
from services.common.tokens import estimate_tokens
from services.cycle.context import Conversation, ConversationCache, latest_fitting


class ContextCache(ConversationCache):
    """Conversation caches keyed by (user_id, session_id).

    ``max_sessions`` bounds memory: the least recently used session is dropped
    (its exchanges are returned for distillation too).
    """

    def __init__(self, context_window: int, share: float = 0.70, max_sessions: int = 1000) -> None:
        super().__init__(context_window, share)
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[tuple[str, str], Conversation] = OrderedDict()
        self._lock = threading.Lock()

    def exchanges(self, user_id: str, session_id: str) -> list[Exchange]:
        with self._lock:
            conv = self._sessions.get((user_id, session_id))
            return list(conv.exchanges) if conv else []

    def make_room(self, user_id: str, session_id: str, incoming: str) -> list[Exchange]:
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
        kept = latest_fitting(exchanges, self.budget)
        with self._lock:
            full = len(self._sessions) >= self.max_sessions  # (making room would drop another's)
            if not kept or full or (user_id, session_id) in self._sessions:
                return 0
            self._sessions[(user_id, session_id)] = Conversation(exchanges=kept)
        return len(kept)

    def clear(self, user_id: str, session_id: str) -> list[Exchange]:
        with self._lock:
            conv = self._sessions.pop((user_id, session_id), None)
            return conv.exchanges if conv else []
