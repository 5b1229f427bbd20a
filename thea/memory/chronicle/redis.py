"""Redis chronicle (server profile): one temporal log shared by many app processes.

Layout under ``prefix``: a hash ``events`` (id -> JSON), a sorted set ``time``
(score = event time, member = id) and one per user ``user:<id>``, and a set per
correlation id. Sorted sets order equal times by member, so reads come back in
(time, id) order. Appends go in one MULTI pipeline per batch, guarded by HSETNX, so
re-appending changes nothing. Type filters are applied client-side while paging
through the time/user index, so an old event of a rare type is still found.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import redis

from thea.errors import ChronicleUnavailable
from thea.memory.chronicle.base import Chronicle
from thea.memory.redis_files import rewrite_files
from thea.models import ChronicleEvent, HealthStatus

R = TypeVar("R")

_PAGE = 500


class RedisChronicle(Chronicle):
    backend = "redis"

    def __init__(self, client: redis.Redis, key_prefix: str = "thea:chronicle") -> None:
        self.client = client
        self.prefix = key_prefix

    def _k(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def _call(self, fn: Callable[[], R]) -> R:
        try:
            return fn()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise ChronicleUnavailable(f"Redis: {exc}") from exc

    def append(self, events: Sequence[ChronicleEvent]) -> int:
        if not events:
            return 0

        def run() -> int:
            new_flags = self.client.pipeline(transaction=True)
            for e in events:
                new_flags.hsetnx(self._k("events"), e.id, e.model_dump_json())
            created = new_flags.execute()
            pipe = self.client.pipeline(transaction=True)
            for e, is_new in zip(events, created, strict=True):
                if not is_new:
                    continue
                pipe.zadd(self._k("time"), {e.id: e.time})
                if e.user_id is not None:
                    pipe.zadd(self._k("user", e.user_id), {e.id: e.time})
                if e.correlation_id is not None:
                    pipe.zadd(self._k("cycle", e.correlation_id), {e.id: e.time})
            pipe.execute()
            return sum(1 for flag in created if flag)

        return self._call(run)

    def _load(self, ids: Sequence[Any]) -> list[ChronicleEvent]:
        if not ids:
            return []
        raw = self._call(lambda: self.client.hmget(self._k("events"), list(ids)))
        return [ChronicleEvent.model_validate_json(r) for r in raw if r is not None]

    def _index(self, user_id: str | None) -> str:
        return self._k("user", user_id) if user_id is not None else self._k("time")

    def _scan(
        self, fetch: Callable[[int, int], list[Any]], n: int, types: Sequence[str] | None
    ) -> list[ChronicleEvent]:
        """Walk an index in pages (already in (time, id) order) until n events match ``types``."""
        wanted = set(types) if types else None
        page = n if wanted is None else max(n * 10, _PAGE)
        out: list[ChronicleEvent] = []
        offset = 0
        while len(out) < n:
            ids = self._call(functools.partial(fetch, offset, page))
            out.extend(e for e in self._load(ids) if wanted is None or e.type in wanted)
            if len(ids) < page:
                break
            offset += page
        return out[:n]

    def range(
        self,
        start_ms: int,
        end_ms: int,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ChronicleEvent]:
        index = self._index(user_id)

        def fetch(offset: int, num: int) -> list[Any]:
            return list(self.client.zrangebyscore(index, start_ms, f"({end_ms}", start=offset, num=num))

        return self._scan(fetch, limit, types)

    def latest(
        self, n: int = 20, *, user_id: str | None = None, types: Sequence[str] | None = None
    ) -> list[ChronicleEvent]:
        index = self._index(user_id)

        def fetch(offset: int, num: int) -> list[Any]:
            return list(self.client.zrevrange(index, offset, offset + num - 1))

        return self._scan(fetch, n, types)

    def by_correlation(self, correlation_id: str) -> list[ChronicleEvent]:
        ids = self._call(lambda: self.client.zrange(self._k("cycle", correlation_id), 0, -1))
        return sorted(self._load(ids), key=lambda e: (e.time, e.id))

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        pipe = self.client.pipeline(transaction=False)
        for i in ids:
            pipe.hexists(self._k("events"), i)
        flags = self._call(pipe.execute)
        return {i for i, flag in zip(ids, flags, strict=True) if flag}

    def scan_ids(self, cursor: str | None = None, limit: int = 500) -> tuple[list[str], str | None]:
        # HSCAN: every event present for the whole scan is returned at least once.
        next_cursor, page = self._call(
            lambda: self.client.hscan(self._k("events"), int(cursor or 0), count=limit)
        )
        ids = [k.decode() if isinstance(k, bytes) else str(k) for k in page]
        return ids, (str(next_cursor) if int(next_cursor) != 0 else None)

    def delete(self, ids: Sequence[str]) -> int:
        events = self._load(list(ids))
        if not events:
            return 0

        def run() -> int:
            pipe = self.client.pipeline(transaction=True)
            for e in events:
                pipe.hdel(self._k("events"), e.id)
                pipe.zrem(self._k("time"), e.id)
                if e.user_id is not None:
                    pipe.zrem(self._k("user", e.user_id), e.id)
                if e.correlation_id is not None:
                    pipe.zrem(self._k("cycle", e.correlation_id), e.id)
            pipe.execute()
            return len(events)

        return self._call(run)

    def compact(self) -> bool:
        """Ask the Redis server to rewrite its append-only file and snapshot (forgetting)."""
        return rewrite_files(self.client)

    def count(self) -> int:
        return int(self._call(lambda: self.client.hlen(self._k("events"))))

    def health(self) -> HealthStatus:
        def count() -> str:
            n = self.count()
            return f"{n} events"

        return HealthStatus.probe("chronicle", self.backend, count)

    def close(self) -> None:
        self.client.close()
