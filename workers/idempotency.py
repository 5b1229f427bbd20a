"""The first result of each idempotent request, kept in the store per user (Redis).

A client sends every mutating request with an ``Idempotency-Key`` and sends the same key
again when it retries. The service keeps the first complete response (status, headers,
body) under the user and the key for :data:`TTL_S` (24 h) in the Redis the job queue uses
(the embedded FalkorDB server, or the server profile's Redis), so any replica sharing the
stores answers a retry with that response instead of writing again.

While the first request runs, its key is held by a :class:`~workers.locks.LeaseLock` (the
holder's process, a renewed lease): a concurrent duplicate waits for the result. A holder
that died (the service killed mid-request) is taken over at once on the same machine,
after its lease elsewhere, and the request runs again; the routes derive the ids of what
they write from the key, so that rerun writes the same nodes, not new ones.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from dataclasses import dataclass, field

import redis

from thea.errors import QueueUnavailable
from workers.locks import LeaseLock

log = logging.getLogger(__name__)

#: how long a first result is kept for retries
TTL_S = 24 * 3600
#: lease of a running request's key: how long a holder that died on another machine keeps it
LEASE_S = 30.0
#: larger responses are not kept (a retry runs the request again)
MAX_STORED_BYTES = 1024 * 1024


@dataclass(frozen=True)
class StoredResponse:
    """What the first request with a key answered, and which request that was."""

    fingerprint: str
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def dumps(self) -> str:
        return json.dumps(
            {
                "fingerprint": self.fingerprint,
                "status": self.status,
                "headers": self.headers,
                "body": base64.b64encode(self.body).decode("ascii"),
            }
        )

    @classmethod
    def loads(cls, raw: bytes | str) -> StoredResponse | None:
        try:
            data = json.loads(raw)
            return cls(
                fingerprint=str(data["fingerprint"]),
                status=int(data["status"]),
                headers=[(str(k), str(v)) for k, v in data["headers"]],
                body=base64.b64decode(data["body"]),
            )
        except (ValueError, KeyError, TypeError):
            return None


class IdempotencyStore:
    """Per-user request keys in Redis: the stored first response, and the lock of a running one."""

    def __init__(
        self,
        connection: redis.Redis,
        *,
        ttl_s: int = TTL_S,
        lease_s: float = LEASE_S,
        max_bytes: int = MAX_STORED_BYTES,
    ) -> None:
        self.connection = connection
        self.ttl_s = ttl_s
        self.lease_s = lease_s
        self.max_bytes = max_bytes

    @staticmethod
    def _name(part: str, user_id: str, key: str) -> str:
        user = hashlib.sha256(user_id.encode("utf-8", "replace")).hexdigest()[:24]
        return f"thea:idem:{part}:{user}:{key}"

    def stored(self, user_id: str, key: str) -> StoredResponse | None:
        """The first response to this user's request ``key``, if it completed."""
        try:
            raw = self.connection.get(self._name("done", user_id, key))
        except (redis.RedisError, OSError) as exc:
            raise QueueUnavailable(str(exc)) from exc
        return StoredResponse.loads(raw) if raw is not None else None

    def claim(self, user_id: str, key: str) -> LeaseLock | None:
        """The key's lock if nobody runs this request now (one attempt, no waiting); the holder
        must ``release()`` it. A holder whose process is gone loses it here."""
        lock = LeaseLock(self.connection, self._name("running", user_id, key), lease_s=self.lease_s, wait_s=0)
        return lock if lock.acquire() else None

    def save(self, user_id: str, key: str, response: StoredResponse) -> bool:
        """Keep ``response`` for retries; False (and nothing kept) when it is too large."""
        if len(response.body) > self.max_bytes:
            log.info("request key %s: response of %d bytes not kept for retries", key, len(response.body))
            return False
        try:
            self.connection.set(self._name("done", user_id, key), response.dumps(), ex=self.ttl_s)
        except (redis.RedisError, OSError) as exc:
            log.warning("request key %s: could not keep its response for retries: %s", key, exc)
            return False
        return True
