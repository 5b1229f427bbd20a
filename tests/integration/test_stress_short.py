"""A short form of the stress command: concurrent users lose and duplicate nothing."""

from __future__ import annotations

from pathlib import Path

from benchmarks.stress import stress


def test_concurrent_users_lose_nothing_and_layers_stay_consistent(tmp_path: Path) -> None:
    s = stress(users=8, seconds=4.0, data_dir=tmp_path / "data")
    assert s["errors"] == 0, s["error_examples"]
    assert s["impulses"] >= 8
    assert s["stored_impulses"] == s["impulses"]  # every acknowledged impulse is in the graph
    assert s["lost"] == []  # each has its final response and, after draining, its crystal
    assert s["duplicated"] == []
    assert s["failed_jobs"] == 0
    assert s["consistent"], s["consistency"]
