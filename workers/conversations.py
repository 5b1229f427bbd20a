"""The conversations of the server profile in Redis: every replica sees every session.

The embedded service keeps each session's short-term conversation in its own memory
(:mod:`services.cycle.context_local`); two replicas doing that would each hold a different
part of a conversation whose turns alternate between them, and each would show the model
only its own turns. Here a session is a Redis list of its exchanges (JSON, oldest first, each
with its token count) in the queue's Redis, plus a marker that the session is held (a list
emptied by an eviction does not exist in Redis, and the session must not then be restored
from the graph). Eviction is one Lua script, so two replicas making room in one session at
once evict different exchanges and each hands its own to distillation, never one twice.

A session not used for ``ttl_s`` (default a day) expires; its next turn restores the latest
exchanges from the graph, as after a restart. Redis errors become
:class:`~thea.errors.QueueUnavailable`: the cycle then answers without the conversation.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

import redis

from services.common.exchange import Exchange
from services.common.tokens import estimate_tokens
from services.cycle.context import ConversationCache, latest_fitting
from thea.errors import QueueUnavailable

#: how long an unused session is kept (seconds)
TTL_S = 24 * 3600
PREFIX = "thea:conversation"

#: KEYS: the list, the held marker; ARGV: incoming tokens, budget, ttl. Pops the oldest
#: exchanges until the rest plus the incoming message fit; returns the popped ones.
_MAKE_ROOM = """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local need, budget = tonumber(ARGV[1]), tonumber(ARGV[2])
local total = 0
local sizes = {}
for i, raw in ipairs(items) do
  sizes[i] = tonumber(cjson.decode(raw)['tokens']) or 0
  total = total + sizes[i]
end
local evicted = {}
local n = 0
while n < #items and total + need > budget do
  n = n + 1
  total = total - sizes[n]
  evicted[n] = items[n]
end
if n > 0 then
  redis.call('LTRIM', KEYS[1], n, -1)
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
end
return evicted
"""

#: KEYS: the list, the held marker; ARGV: ttl, exchanges... Fills an absent session.
_RESTORE = """
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
redis.call('DEL', KEYS[1])
for i = 2, #ARGV do
  redis.call('RPUSH', KEYS[1], ARGV[i])
end
redis.call('SET', KEYS[2], '1', 'EX', tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return #ARGV - 1
"""


def _dumps(exchange: Exchange) -> str:
    return json.dumps({**asdict(exchange), "tokens": exchange.tokens}, ensure_ascii=False)


def _loads(raw: bytes | str) -> Exchange:
    data: dict[str, Any] = json.loads(raw)
    data.pop("tokens", None)
    return Exchange(**data)


class RedisConversationCache(ConversationCache):
    """Conversations in Redis, shared by every service replica on that Redis."""

    def __init__(
        self, connection: redis.Redis, context_window: int, share: float = 0.70, ttl_s: int = TTL_S
    ) -> None:
        super().__init__(context_window, share)
        self.connection = connection
        self.ttl_s = ttl_s
        self._make_room = connection.register_script(_MAKE_ROOM)
        self._restore = connection.register_script(_RESTORE)

    @staticmethod
    def keys(user_id: str, session_id: str) -> tuple[str, str]:
        """The session's list and its held marker."""
        digest = hashlib.sha256(f"{user_id}\x1f{session_id}".encode("utf-8", "replace")).hexdigest()[:32]
        return f"{PREFIX}:{digest}", f"{PREFIX}:{digest}:held"

    def exchanges(self, user_id: str, session_id: str) -> list[Exchange]:
        items, _ = self.keys(user_id, session_id)
        try:
            raw = self.connection.lrange(items, 0, -1)
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return [_loads(r) for r in raw]

    def holds(self, user_id: str, session_id: str) -> bool:
        _, held = self.keys(user_id, session_id)
        try:
            return bool(self.connection.exists(held))
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc

    def make_room(self, user_id: str, session_id: str, incoming: str) -> list[Exchange]:
        keys = self.keys(user_id, session_id)
        try:
            raw = self._make_room(keys=list(keys), args=[estimate_tokens(incoming), self.budget, self.ttl_s])
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return [_loads(r) for r in raw]

    def add(self, user_id: str, session_id: str, exchange: Exchange) -> list[Exchange]:
        items, held = self.keys(user_id, session_id)
        try:
            with self.connection.pipeline(transaction=True) as pipe:
                pipe.rpush(items, _dumps(exchange))
                pipe.set(held, "1", ex=self.ttl_s)
                pipe.expire(items, self.ttl_s)
                pipe.execute()
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return []  # sessions expire (ttl_s) instead of being dropped

    def restore(self, user_id: str, session_id: str, exchanges: list[Exchange]) -> int:
        kept = latest_fitting(exchanges, self.budget)
        if not kept:
            return 0
        keys = self.keys(user_id, session_id)
        try:
            added = self._restore(keys=list(keys), args=[self.ttl_s, *(_dumps(e) for e in kept)])
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return int(added)

    def clear(self, user_id: str, session_id: str) -> list[Exchange]:
        items, held = self.keys(user_id, session_id)
        try:
            with self.connection.pipeline(transaction=True) as pipe:
                pipe.lrange(items, 0, -1)
                pipe.delete(items, held)
                raw, _ = pipe.execute()
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return [_loads(r) for r in raw]
