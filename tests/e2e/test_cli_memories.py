"""``thea memories`` as a user runs it (real ``thea`` processes and service, fake model): tell three
facts, list them, correct one, forget one, then ask about both in new conversations: the answer's
prompt (from ``thea trace --prompts``) holds the correction and not the old value, and the deleted
fact is recalled nowhere."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from tests import processes

TOLD = ["I live in Leeds.", "My partner Sam is a carpenter.", "I'm allergic to peanuts."]


def thea(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return processes.thea(list(args), data, timeout=180)


def ok_json(data: Path, *args: str) -> Any:
    done = thea(data, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def wait_for_jobs(data: Path, timeout_s: float = 120) -> None:
    """Until the slow loop has crystallized every message (nothing queued or running)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        queues = ok_json(data, "jobs", "--json")["queues"]
        if all(q["queued"] + q["started"] + q["scheduled"] == 0 for q in queues):
            return
        time.sleep(0.5)
    raise AssertionError("the slow loop did not finish")


def fact_with(view: dict[str, Any], words: str) -> dict[str, Any]:
    return next(f for group in view["subjects"] for f in group["facts"] if words in f["text"])


def test_memories_list_show_correct_forget_through_the_cli(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for text in TOLD:
        ok_json(data, "ask", "--json", "--session", "tell", text)
    wait_for_jobs(data)

    view = ok_json(data, "memories", "--json")
    assert [g["name"] for g in view["subjects"]] == ["You"]  # the stand-in model reads notes about you
    leeds, peanuts = fact_with(view, "Leeds"), fact_with(view, "peanuts")
    table = thea(data, "memories")
    assert table.returncode == 0, table.stderr
    for words in ("What thea knows about you", "I live in Leeds", "Sam", leeds["id"][:8], "you said on"):
        assert words in table.stdout
    # the help says "list, show, correct, ...": ``thea memories list`` lists too (was: No such command)
    assert ok_json(data, "memories", "list", "--json") == view

    corrected = ok_json(data, "memories", "correct", leeds["id"][:8], "I live in York.", "--json")
    assert corrected["action"] == "correct"
    (york,) = corrected["facts"]
    assert york["text"] == "You told me: \u201cI live in York.\u201d"
    shown = thea(data, "memories", "show", york["id"][:8])
    assert shown.returncode == 0, shown.stderr
    assert "earlier values (1)" in shown.stdout
    assert "I live in Leeds" in shown.stdout

    forgot = ok_json(data, "memories", "forget", peanuts["id"][:8], "--json")
    assert forgot["action"] == "forget"
    missing = thea(data, "memories", "show", peanuts["id"][:8])
    assert missing.returncode != 0
    assert "no memory with id starting" in missing.stderr
    after = ok_json(data, "memories", "--json")
    texts = [f["text"] for g in after["subjects"] for f in g["facts"]]
    assert york["text"] in texts
    assert not any("Leeds" in t or "peanut" in t for t in texts)
    assert "peanut" not in after["summary"]

    cafe = "Do you know a good cafe near where I live?"  # no plain answer: the model, with the fact
    near = ok_json(data, "ask", "--json", "--session", "later-1", cafe)
    trace = ok_json(data, "trace", near["impulse_id"], "--prompts", "--format", "json")
    prompt = "\n".join(m["content"] for m in trace["explanation"]["prompt"]["messages"])
    assert "I live in York" in prompt
    assert "Leeds" not in prompt.split("EARLIER", 1)[0]  # the old value only as an earlier one

    allergy = ok_json(data, "ask", "--json", "--session", "later-2", "What am I allergic to?")
    assert "peanut" not in allergy["answer"].lower()
    trace = ok_json(data, "trace", allergy["impulse_id"], "--prompts", "--format", "json")
    explained = trace["explanation"]
    assert peanuts["id"] not in {m["id"] for m in explained["recalled"]}
    assert not any("peanut" in m["text"].lower() for m in explained["recalled"])
    if explained["prompt"] is not None:  # a rule may answer without the model
        assert "peanut" not in json.dumps(explained["prompt"]["messages"]).lower()

    done = thea(data, "memories", "outdate", york["id"][:8])
    assert done.returncode == 0, done.stderr
    assert "outdated" in done.stdout
    assert not any(
        "York" in f["text"] for g in ok_json(data, "memories", "--json")["subjects"] for f in g["facts"]
    )

    # everything about a subject, then the whole conversation, for good; bad combinations refused
    about = thea(data, "memories", "forget", "--about", "Sam")
    assert about.returncode == 0, about.stderr
    assert "forgot everything about 'Sam'" in about.stdout
    assert "Sam" not in json.dumps(ok_json(data, "memories", "--json"))
    both = thea(data, "memories", "forget", "--about", "Sam", "--conversation", "tell")
    assert both.returncode != 0
    assert "give one of" in both.stderr
    unsure = thea(data, "memories", "forget", "--everything")
    assert unsure.returncode != 0
    assert "--yes" in unsure.stderr
    gone = ok_json(data, "memories", "forget", "--conversation", "tell", "--json")
    assert gone["action"] == "conversation"
    assert gone["erased"] > 0
    assert ok_json(data, "memories", "--json")["count"] == 0  # every fact was told in it
