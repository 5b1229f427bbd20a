"""Redis chronicle (server profile): one temporal log shared by many app processes.

Layout under ``prefix``: a hash ``events`` (id -> JSON), a sorted set ``time``
(score = event time, member = id) and one per user ``user:<id>``, and a set per
correlation id. Events with equal time are ordered by id client-side. Appends go
in one MULTI pipeline per batch, guarded by HSETNX, so re-appending changes
nothing. Type filters are applied client-side on the time/user index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import redis

from thea.errors import ChronicleUnavailable
from thea.memory.chronicle.base import Chronicle
from thea.models import ChronicleEvent, HealthStatus

R = TypeVar("R")


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

    def range(
        self,
        start_ms: int,
        end_ms: int,
        *,
        user_id: str | None = None,
        types: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[ChronicleEvent]:
        ids = self._call(lambda: self.client.zrangebyscore(self._index(user_id), start_ms, f"({end_ms}"))
        events = sorted(self._load(ids), key=lambda e: (e.time, e.id))
        if types:
            events = [e for e in events if e.type in types]
        return events[:limit]

    def latest(
        self, n: int = 20, *, user_id: str | None = None, types: Sequence[str] | None = None
    ) -> list[ChronicleEvent]:
        fetch = n if not types else n * 10
        ids = self._call(lambda: self.client.zrevrange(self._index(user_id), 0, fetch - 1))
        events = sorted(self._load(ids), key=lambda e: (e.time, e.id), reverse=True)
        if types:
            events = [e for e in events if e.type in types]
        return events[:n]

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

    def count(self) -> int:
        return int(self._call(lambda: self.client.hlen(self._k("events"))))

    def health(self) -> HealthStatus:
        started = time.perf_counter()
        try:
            n = self.count()
        except Exception as exc:  # health never raises
            return HealthStatus(component="chronicle", backend=self.backend, ok=False, detail=str(exc))
        return HealthStatus(
            component="chronicle",
            backend=self.backend,
            ok=True,
            detail=f"{n} events",
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    def close(self) -> None:
        self.client.close()
