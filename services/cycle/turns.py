"""Fair turns: which waiting cycle runs next, so one user's burst cannot starve another user.

A service has one model and a few cores. Without a rule, cycles run in the order their requests
arrived: a user who sends twenty messages at once makes everyone else wait behind all twenty.
The rule here:

* at most ``slots`` cycles run at once (the model serialises its calls anyway; a second slot lets
  one cycle's recall overlap another's generation);
* one user runs **one cycle at a time** (their messages are answered in the order they were sent);
* when a slot frees, the next turn goes to the user who has waited longest for *their next* turn:
  users take turns round robin, whatever the length of their queues;
* a user may have at most ``max_waiting`` cycles waiting: one more is refused at once with
  :class:`~thea.errors.TooManyWaiting` (a clear error, nothing recorded) instead of queueing
  unbounded work.

Per process: the server profile's replicas each keep their own turns (a load balancer spreads
users over them).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from thea.errors import TooManyWaiting

#: cycles that may run at once (one generating, one recalling)
DEFAULT_SLOTS = 2
#: cycles one user may have waiting for their turn
DEFAULT_MAX_WAITING = 16


@dataclass
class _Queue:
    """One user's waiting cycles, oldest first."""

    waiting: deque[asyncio.Future[None]] = field(default_factory=deque)
    running: int = 0


class FairTurns:
    """Round-robin turns per user over a few slots (asyncio; one event loop)."""

    def __init__(self, slots: int = DEFAULT_SLOTS, max_waiting: int = DEFAULT_MAX_WAITING) -> None:
        if slots < 1 or max_waiting < 0:
            raise ValueError("slots must be >= 1 and max_waiting >= 0")
        self.slots = slots
        self.max_waiting = max_waiting
        self._running = 0
        self._users: dict[str, _Queue] = {}
        #: users with a cycle waiting, in the order their next turn comes
        self._order: deque[str] = deque()

    @property
    def running(self) -> int:
        return self._running

    def waiting(self, user_id: str | None = None) -> int:
        """Cycles waiting for a turn (of one user, or of everyone)."""
        if user_id is not None:
            queue = self._users.get(user_id)
            return len(queue.waiting) if queue else 0
        return sum(len(q.waiting) for q in self._users.values())

    @contextlib.asynccontextmanager
    async def turn(self, user_id: str) -> AsyncIterator[None]:
        """Hold a turn for ``user_id`` while the body runs."""
        await self._acquire(user_id)
        try:
            yield
        finally:
            self._release(user_id)

    async def _acquire(self, user_id: str) -> None:
        queue = self._users.setdefault(user_id, _Queue())
        if queue.running == 0 and not queue.waiting and self._running < self.slots:
            self._start(queue)
            return
        if len(queue.waiting) >= self.max_waiting:
            self._drop_if_idle(user_id)
            raise TooManyWaiting(
                f"{len(queue.waiting)} of your messages are already waiting for an answer; "
                "send this one again when they are answered"
            )
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.waiting.append(ticket)
        if user_id not in self._order:
            self._order.append(user_id)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():  # the turn was given just as it was cancelled
                self._release(user_id)
            else:
                self._forget(user_id, ticket)
            raise

    def _start(self, queue: _Queue) -> None:
        queue.running += 1
        self._running += 1

    def _release(self, user_id: str) -> None:
        queue = self._users.get(user_id)
        if queue is not None and queue.running > 0:
            queue.running -= 1
            self._running -= 1
        self._drop_if_idle(user_id)
        self._hand_on()

    def _hand_on(self) -> None:
        """Give free slots to the next users in turn whose own cycle is not running."""
        skipped: list[str] = []
        while self._running < self.slots and self._order:
            user_id = self._order.popleft()
            queue = self._users.get(user_id)
            if queue is None or not queue.waiting:
                continue
            if queue.running > 0:  # this user's previous message is still being answered
                skipped.append(user_id)
                continue
            ticket = queue.waiting.popleft()
            self._start(queue)
            ticket.set_result(None)
            if queue.waiting:
                self._order.append(user_id)
        # users passed over keep their place at the front
        self._order.extendleft(reversed(skipped))

    def _forget(self, user_id: str, ticket: asyncio.Future[None]) -> None:
        queue = self._users.get(user_id)
        if queue is not None:
            with contextlib.suppress(ValueError):
                queue.waiting.remove(ticket)
            if not queue.waiting:
                with contextlib.suppress(ValueError):
                    self._order.remove(user_id)
        self._drop_if_idle(user_id)

    def _drop_if_idle(self, user_id: str) -> None:
        queue = self._users.get(user_id)
        if queue is not None and queue.running == 0 and not queue.waiting:
            del self._users[user_id]
            with contextlib.suppress(ValueError):
                self._order.remove(user_id)
