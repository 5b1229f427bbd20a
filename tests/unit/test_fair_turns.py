"""Users take turns: one user's burst of messages cannot make another user wait behind all of it."""

from __future__ import annotations

import asyncio

import pytest

from services.cycle.turns import FairTurns
from thea.errors import TooManyWaiting


async def _run(turns: FairTurns, user: str, label: str, order: list[str], gate: asyncio.Event) -> None:
    async with turns.turn(user):
        order.append(label)
        await gate.wait()


async def _step(gates: dict[str, asyncio.Event], label: str) -> None:
    gates[label].set()
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_a_second_user_is_served_before_the_rest_of_a_first_users_burst() -> None:
    turns = FairTurns(slots=1, max_waiting=50)
    order: list[str] = []
    labels = [f"a{i}" for i in range(6)] + ["b0", "c0"]
    gates = {label: asyncio.Event() for label in labels}
    tasks = [asyncio.create_task(_run(turns, "ann", f"a{i}", order, gates[f"a{i}"])) for i in range(6)]
    await asyncio.sleep(0)
    tasks.append(asyncio.create_task(_run(turns, "bob", "b0", order, gates["b0"])))
    tasks.append(asyncio.create_task(_run(turns, "cat", "c0", order, gates["c0"])))
    await asyncio.sleep(0)
    for label in ["a0", "b0", "a1", "c0", "a2", "a3", "a4", "a5"]:
        await _step(gates, label)
    await asyncio.gather(*tasks)
    # bob and cat each wait for one of ann's messages at most, not for all six
    assert order.index("b0") <= 2
    assert order.index("c0") <= 4
    assert [x for x in order if x.startswith("a")] == [f"a{i}" for i in range(6)]  # ann's in order
    assert turns.running == 0
    assert turns.waiting() == 0


@pytest.mark.asyncio
async def test_one_user_runs_one_cycle_at_a_time_while_another_user_takes_the_free_slot() -> None:
    turns = FairTurns(slots=2, max_waiting=10)
    order: list[str] = []
    gates = {label: asyncio.Event() for label in ("a0", "a1", "b0")}
    first = asyncio.create_task(_run(turns, "ann", "a0", order, gates["a0"]))
    second = asyncio.create_task(_run(turns, "ann", "a1", order, gates["a1"]))
    await asyncio.sleep(0)
    other = asyncio.create_task(_run(turns, "bob", "b0", order, gates["b0"]))
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["a0", "b0"]  # ann's second message waits for her first; bob is not held up
    assert turns.waiting("ann") == 1
    await _step(gates, "a0")
    assert order == ["a0", "b0", "a1"]
    await _step(gates, "a1")
    await _step(gates, "b0")
    await asyncio.gather(first, second, other)


@pytest.mark.asyncio
async def test_too_many_waiting_messages_of_one_user_are_refused_at_once_and_others_still_run() -> None:
    turns = FairTurns(slots=1, max_waiting=2)
    order: list[str] = []
    gates = {label: asyncio.Event() for label in ("a0", "a1", "a2", "a3", "b0")}
    tasks = [asyncio.create_task(_run(turns, "ann", f"a{i}", order, gates[f"a{i}"])) for i in range(3)]
    await asyncio.sleep(0)
    with pytest.raises(TooManyWaiting, match="already waiting"):
        await _run(turns, "ann", "a3", order, gates["a3"])
    tasks.append(asyncio.create_task(_run(turns, "bob", "b0", order, gates["b0"])))
    for label in ("a0", "b0", "a1", "a2"):
        await _step(gates, label)
    await asyncio.gather(*tasks)
    assert "a3" not in order
    assert "b0" in order
    assert turns.running == 0
    assert turns.waiting() == 0


@pytest.mark.asyncio
async def test_a_cancelled_waiting_message_gives_up_its_place_and_the_next_turn_still_comes() -> None:
    turns = FairTurns(slots=1, max_waiting=10)
    order: list[str] = []
    gates = {label: asyncio.Event() for label in ("a0", "b0", "c0")}
    running = asyncio.create_task(_run(turns, "ann", "a0", order, gates["a0"]))
    await asyncio.sleep(0)
    gone = asyncio.create_task(_run(turns, "bob", "b0", order, gates["b0"]))
    later = asyncio.create_task(_run(turns, "cat", "c0", order, gates["c0"]))
    await asyncio.sleep(0)
    gone.cancel()  # the client hung up while waiting (Ctrl-C)
    with pytest.raises(asyncio.CancelledError):
        await gone
    await _step(gates, "a0")
    await _step(gates, "c0")
    await asyncio.gather(running, later)
    assert order == ["a0", "c0"]
    assert turns.running == 0
    assert turns.waiting() == 0
