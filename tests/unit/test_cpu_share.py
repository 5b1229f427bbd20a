"""The local model runs on the cores other processes leave free (issue 16: graceful under a
busy CPU). Deterministic: /proc readings and the clock are injected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from thea.llm.cpu_share import _TICKS, CoreWatch, _busy_seconds, pick_level, thread_levels
from thea.llm.local import LocalChatModel


class Readings:
    """Scripted CPU-time readings: machine-wide busy seconds, this process's own, the clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.busy = 0.0
        self.own = 0.0

    def advance(self, seconds: float, *, others: float, own: float) -> None:
        self.now += seconds
        self.own += own * seconds
        self.busy += (others + own) * seconds


def watch(readings: Readings, cores: int = 2) -> CoreWatch:
    return CoreWatch(
        set(range(cores)),
        busy_seconds=lambda _cpus: readings.busy,
        own_seconds=lambda: readings.own,
        clock=lambda: readings.now,
    )


def test_a_busy_loop_elsewhere_takes_a_core_but_our_own_work_does_not() -> None:
    readings = Readings()
    w = watch(readings)
    w.sample()
    for _ in range(4):
        readings.advance(0.25, others=0.0, own=2.0)  # the model itself on both cores
        w.sample()
    assert w.free_cores() == 2
    for _ in range(4):
        readings.advance(0.25, others=1.0, own=1.0)  # a competitor takes one core
        w.sample()
    assert round(w.busy_elsewhere(), 2) == 1.0
    assert w.free_cores() == 1


def test_the_estimate_forgets_a_competitor_that_stopped() -> None:
    readings = Readings()
    w = watch(readings)
    w.sample()
    for _ in range(4):
        readings.advance(0.25, others=1.0, own=0.0)
        w.sample()
    assert w.free_cores() == 1
    for _ in range(5):
        readings.advance(0.25, others=0.0, own=0.0)
        w.sample()
    assert w.free_cores() == 2


def test_every_core_busy_elsewhere_still_leaves_one_thread() -> None:
    readings = Readings()
    w = watch(readings)
    w.sample()
    readings.advance(1.0, others=2.0, own=0.0)
    w.sample()
    assert w.free_cores() == 1


def test_proc_stat_counts_only_the_cores_this_process_may_use(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  300 0 100 1000 0 0 0 0 0 0\n"
        "cpu0 100 0 0 500 0 0 0 0 0 0\n"
        "cpu1 200 0 100 500 50 0 0 0 0 0\n"
        "intr 1 2 3\n"
    )
    ticks = _busy_seconds({1}, stat) or 0.0
    assert round(ticks * _TICKS) == 300  # cpu1: user 200 + system 100; iowait counts as idle
    assert _busy_seconds({0}, stat) < ticks  # type: ignore[operator]
    assert _busy_seconds(set(), tmp_path / "missing") is None


def test_thread_levels_halve_down_to_one() -> None:
    assert thread_levels(2) == [2, 1]
    assert thread_levels(8) == [8, 4, 2, 1]
    assert thread_levels(1) == [1]
    assert pick_level([2, 1], 2) == 2
    assert pick_level([8, 4, 2, 1], 3) == 2
    assert pick_level([8, 4], 1) == 4


class Server:
    def __init__(self, name: str) -> None:
        self.name = name


class Watch:
    def __init__(self, free: int) -> None:
        self.free = free

    def free_cores(self) -> int:
        return self.free

    def busy_elsewhere(self) -> float:
        return 2.0 - self.free


def test_the_model_answers_on_the_one_thread_context_while_a_core_is_taken(monkeypatch: Any) -> None:
    monkeypatch.setattr("thea.llm.local.usable_threads", lambda wanted: 2)
    model = LocalChatModel(model_path="unused.gguf", threads=2)
    model._server = Server("two threads")
    model._reduced = {1: Server("one thread")}
    model._watch = Watch(free=1)  # type: ignore[assignment]
    assert model._pick_server().name == "one thread"
    model._watch = Watch(free=2)  # type: ignore[assignment]
    assert model._pick_server().name == "two threads"
    model.adapt_threads = False
    model._watch = None
    assert model._pick_server().name == "two threads"


def test_json_calls_are_never_penalised_for_repeating_tokens() -> None:
    model = LocalChatModel(model_path="unused.gguf", repeat_penalty=1.1)
    free_text = model._request([], None, {})
    structured = model._request([], None, {"response_format": {"type": "json_object"}})
    assert free_text["repeat_penalty"] == 1.1
    assert "repeat_penalty" not in structured
