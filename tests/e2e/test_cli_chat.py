"""`thea chat` and `thea ask` as a user runs them: a real process, stdin/stdout."""

from __future__ import annotations

import json
from pathlib import Path

from tests.processes import thea


def test_chat_answers_runs_commands_and_exits_cleanly(tmp_path: Path) -> None:
    session = (
        "I work on Redis queues.\nWhat do I work on?\nAny tips for my queues?\n!help\n!trace\n!reflect\n"
        "!fact Redis::database\n!nonsense\n!quit\n"
    )
    done = thea(["chat", "--user", "ana"], tmp_path / "data", stdin=session)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "thea ready" in out
    assert "Got it, I'll remember that." in out  # a statement is acknowledged
    assert "(fake model) I heard you." in out  # the streamed answer to the request
    assert "!forget <id>" in out  # help
    assert "synthesis" in out  # the trace tree of the last answer
    assert "reflection:" in out  # the reflection report
    assert "noted fact" in out
    assert "unknown command !nonsense" in out + done.stderr


def test_ask_json_prints_answer_and_impulse_id(tmp_path: Path) -> None:
    done = thea(["ask", "--json", "What does the team work on?"], tmp_path / "data")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["answer"] == "(fake model) I heard you."
    assert len(payload["impulse_id"]) >= 32
    trace = thea(["trace", payload["impulse_id"][:8], "--format", "json"], tmp_path / "data")
    assert trace.returncode == 0, trace.stderr
    assert json.loads(trace.stdout)["impulse"]["id"] == payload["impulse_id"]


def test_empty_question_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    done = thea(["ask", "   "], tmp_path / "data")
    assert done.returncode == 2
    assert "the message is empty" in done.stderr
    assert "Traceback" not in done.stderr
