"""What a TCP connection may cost the service before it has said who it is.

uvicorn (h11) bounds a request's headers in size (``h11_max_incomplete_event_size``) but not
in time: a client sending its headers a byte every few seconds holds its connection forever
(uvicorn's keep-alive timer is cancelled by any byte received). :func:`guarded_protocol`
makes uvicorn's h11 protocol

* close a connection that has not sent a whole request head within ``header_timeout_s`` of
  connecting, or of the first byte of its next request on a kept-alive connection;
* keep at most ``max_pending`` connections that are still sending headers (none of them is
  authenticated yet: the token is in the headers); one more closes the oldest (once the loop
  has read what had already arrived, so a burst of whole requests is answered), so a flood
  of half-open connections costs a bounded amount of memory and never locks out a client
  that sends its request at once.

The token itself is checked from the headers, before any body is read
(:class:`~thea.service.middleware.TokenGate`); a body that stalls is cut by
:class:`~thea.service.middleware.BodyLimit`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

#: request heads over this many bytes are refused (uvicorn's default, stated here)
MAX_HEAD_BYTES = 16 * 1024
#: seconds an idle kept-alive connection stays open
KEEP_ALIVE_S = 5
#: over the cap of pending heads, the oldest are closed this long later (after the reads
#: already waiting): a burst of whole requests is answered, only unfinished heads go
TRIM_AFTER_S = 0.05


class _Pending:
    """The connections of one listener that are still sending a request head, oldest first.

    Over the limit, the oldest are closed only after the loop has read what has already
    arrived (:data:`TRIM_AFTER_S`): a burst accepted while the loop was busy is accepted
    whole before any of it is read, and a client whose whole request is already waiting
    must be answered, not taken for a slow one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.waiting: dict[int, GuardedH11Protocol] = {}
        self.evicted = 0
        self._trim: asyncio.TimerHandle | None = None

    def add(self, protocol: GuardedH11Protocol) -> None:
        self.waiting[id(protocol)] = protocol
        if len(self.waiting) > self.limit and self._trim is None:
            self._trim = protocol.loop.call_later(TRIM_AFTER_S, self.trim)

    def trim(self) -> None:
        self._trim = None
        while len(self.waiting) > self.limit:
            oldest = next(iter(self.waiting.values()))
            self.evicted += 1
            oldest.close_waiting("too many connections are still sending headers")

    def remove(self, protocol: GuardedH11Protocol) -> None:
        self.waiting.pop(id(protocol), None)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for request heads and a cap on pending ones."""

    header_timeout_s: float = 10.0
    pending: _Pending = _Pending(256)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._cycle_seen: object | None = None

    # -- uvicorn's protocol interface ---------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and self.cycle is not None and self.cycle.response_complete:
            self._await_head()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self.cycle is not None and self.cycle is not self._cycle_seen:
            self._cycle_seen = self.cycle  # a whole request head arrived
            self._head_done()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)

    # -- the head deadline ---------------------------------------------------------------

    def _await_head(self) -> None:
        if self._head_timer is None and not self.transport.is_closing():
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_late)
            self.pending.add(self)

    def _head_done(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self.pending.remove(self)

    def _head_late(self) -> None:
        self._head_timer = None
        self.close_waiting(f"no request head within {self.header_timeout_s:g} s")

    def close_waiting(self, why: str) -> None:
        self._head_done()
        if not self.transport.is_closing():
            log.debug("closing a connection from %s: %s", self.client, why)
            self.transport.close()


def guarded_protocol(header_timeout_s: float, max_pending: int) -> type[GuardedH11Protocol]:
    """A protocol class for one listener (its own pending set)."""
    return type(
        "ListenerH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout_s": header_timeout_s, "pending": _Pending(max_pending)},
    )
