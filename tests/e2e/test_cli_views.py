"""``thea trace``, ``thea insights`` and ``thea export`` on a seeded embedded data dir.

The data dir holds two cycles (the latest with a FAILED instinct step) and three
insights with merge lineage; every command runs through typer's CliRunner with the
same environment a user would set (THEA_DATA_DIR, THEA_LLM__PROVIDER=fake).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from services.views.export import export_schema
from tests import processes
from tests.processes import ROOT
from tests.recalling import recalled_told
from tests.service_support import stop_services_under
from thea.cli import trace_cmd
from thea.cli.main import app
from thea.config import load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.memory.factory import embedded_server
from thea.models import Claim, Evidence, KnowledgeCrystal
from thea.runtime import build_runtime
from thea.testing.seed import SeededInsights, seed_insights

SCHEMA_FILE = ROOT / "docs" / "export.schema.json"


@dataclass
class Seeded:
    env: dict[str, str]
    ok_id: str
    failed_id: str
    insights: SeededInsights
    unverified_id: str


@pytest.fixture(scope="module")
def seeded() -> Iterator[Seeded]:
    # own temp dir: a concurrent pytest run prunes old /tmp/pytest-of-* folders
    tmp = Path(tempfile.mkdtemp(prefix="thea-cli-"))
    data = tmp / "data"
    # the instinct's own model call (first_look="combined"): a step that can fail
    settings = load_settings(
        "embedded", data_dir=data, llm={"provider": "fake"}, cycle={"first_look": "combined"}
    )
    # keep one embedded FalkorDB up for the module: each command attaches instead of starting one
    server = embedded_server(settings).start()
    llm = FakeChatModel()
    runtime = build_runtime(settings, llm=llm)
    try:
        insights = seed_insights(runtime.memory, user_id="ana", concept="Redis")
        handle = runtime.orchestrator.handle_impulse
        ok = asyncio.run(handle("I work on Redis queues.", "ana", "s1"))
        llm.fail = {PromptId.FIRST_LOOK}
        failed = asyncio.run(handle("Which of my queues gets most traffic, do you think?", "ana", "s1"))
        assert failed.failed_steps == ["instinct"]
        claims = [
            Claim(
                text="Ana works on Redis queues.",
                support=1.0,
                evidence=[
                    Evidence(source_id=ok.impulse_id, kind="UserImpulse", quote="I work on Redis queues.")
                ],
            ),
            Claim(
                text="Ana is a renowned Redis core developer.",
                status="unsupported",
                support=0.5,
                reason="not in its evidence: core, developer, renowned",
            ),
        ]
        unverified = KnowledgeCrystal(
            content="Ana works on Redis queues. Ana is a renowned Redis core developer.",
            claims=claims,
            active=False,
            verification="unverified",
            support=0.5,
            verification_reason="not in its evidence: core, developer, renowned",
            evidence=[Evidence(source_id=ok.impulse_id, kind="UserImpulse", quote="I work on Redis queues.")],
            proofs=1,
            strength=1.0,
            user_id="ana",
        )
        runtime.memory.record([unverified])
    except BaseException:
        server.stop()
        raise
    finally:
        runtime.close()
    env = {
        "THEA_PROFILE": "embedded",
        "THEA_DATA_DIR": str(data),
        "THEA_LLM__PROVIDER": "fake",
        "THEA_USER_ID": "ana",  # the local user of this data dir: the CLI's default user
        "THEA_SERVICE__WORKERS": "0",  # the seeded insights only: no crystallization meanwhile
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    try:
        yield Seeded(
            env=env,
            ok_id=ok.impulse_id,
            failed_id=failed.impulse_id,
            insights=insights,
            unverified_id=unverified.id,
        )
    finally:
        stop_services_under(tmp)  # the service the commands started
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def thea(seeded: Seeded, *args: str) -> Result:
    result = CliRunner().invoke(app, list(args), env=seeded.env, catch_exceptions=False)
    return result


def ok(seeded: Seeded, *args: str) -> str:
    result = thea(seeded, *args)
    assert result.exit_code == 0, result.output
    return result.output


def test_trace_last_shows_every_step_with_durations_and_the_failure(seeded: Seeded) -> None:
    out = ok(seeded, "trace", "last")
    assert f"impulse {seeded.failed_id[:8]}" in out
    assert "Which of my queues gets most traffic, do you think?" in out
    lines = out.splitlines()
    for step in ("instinct", "plan", "recall", "synthesis"):
        (line,) = [ln for ln in lines if re.search(rf"\b{step} [✓✗]", ln)]
        assert re.search(r"(SUCCESS|FAILURE) \d+ ms", line), line
    (instinct,) = [ln for ln in lines if "instinct ✗" in ln]
    assert "FAILURE" in instinct
    assert "scripted failure in first_look" in out
    assert "1 failed: instinct" in out
    assert "synthesis ✓ SUCCESS" in out
    assert "FinalResponse" in out


def test_trace_marks_the_failure_in_red_on_a_colour_terminal(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    colour = Console(force_terminal=True, color_system="standard", width=200)
    monkeypatch.setattr(trace_cmd, "console", colour)
    out = ok(seeded, "trace", seeded.failed_id[:8])
    failure = re.search(r"\x1b\[([0-9;]*)m✗ FAILURE", out)
    assert failure is not None, out
    assert "31" in failure.group(1).split(";")  # red
    assert re.search(r"\x1b\[([0-9;]*)m✓ SUCCESS", out).group(1).split(";")[-1] == "32"  # type: ignore[union-attr]


def test_trace_json_holds_every_task_and_report(seeded: Seeded) -> None:
    data = json.loads(ok(seeded, "trace", seeded.failed_id, "--format", "json"))
    assert data["impulse"]["id"] == seeded.failed_id
    steps = data["steps"]
    assert [s["task"]["step"] for s in steps] == ["instinct", "plan", "recall", "synthesis"]
    assert all(s["task"]["type"] == "Task" and s["report"]["type"] == "Report" for s in steps)
    assert all(s["report"]["task_id"] == s["task"]["id"] for s in steps)
    assert [s["report"]["status"] for s in steps] == ["FAILURE", "SUCCESS", "SUCCESS", "SUCCESS"]
    assert "scripted failure" in steps[0]["report"]["error"]
    assert data["failed_steps"] == ["instinct"]
    assert data["complete"] is True


def test_trace_mermaid_is_a_sequence_diagram(seeded: Seeded) -> None:
    out = ok(seeded, "trace", seeded.ok_id[:6], "--format", "mermaid")
    assert out.startswith("sequenceDiagram")
    assert "User->>O: I work on Redis queues." in out
    assert out.count("-->>O: SUCCESS") == 4
    failed = ok(seeded, "trace", "last", "-f", "mermaid")
    assert "S_instinct--xO: FAILURE" in failed


def test_trace_accepts_id_prefixes_and_explains_bad_ones(seeded: Seeded) -> None:
    assert "I work on Redis queues." in ok(seeded, "trace", seeded.ok_id[:8])
    missing = thea(seeded, "trace", "zzzz")
    assert missing.exit_code != 0
    assert "no memory with id starting 'zzzz'" in missing.output
    empty = thea(seeded, "trace", "")
    assert empty.exit_code == 2
    assert "give an impulse (an id or an id prefix)" in empty.output


def thea_process(seeded: Seeded, *args: str) -> str:
    """``thea ARGS`` as a real process, as a user runs it."""
    env = {k: v for k, v in seeded.env.items() if k != "THEA_DATA_DIR"}
    run = processes.thea(list(args), Path(seeded.env["THEA_DATA_DIR"]), **env)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_trace_explains_each_recalled_memory_and_shows_the_prompt_on_request(seeded: Seeded) -> None:
    out = thea_process(seeded, "trace", "last", "--prompts")
    lines = out.splitlines()
    # the statement recalled for the question (the message, or the fact of record it became):
    # in the prompt, its type, fused score, each stage's score and its text
    told = [ln for ln in lines if re.search(r"(UserImpulse|Fact) [\d.]+  .*I work on Redis queues\.$", ln)]
    assert told, out
    assert "→ prompt" in told[0], told
    assert re.search(r"(UserImpulse|Fact) [\d.]+  .*keywords [\d.]+", told[0]), told
    assert re.search(r"\d+ memories recalled, \d+ reached the prompt", out)
    assert re.search(r"prompt synthesis v\d+, \d+ messages \(below\)", out)
    # the exact prompt: each message under its role, the recalled memory quoted in the system one
    roles = re.findall(r"^prompt synthesis v\d+ · message \d+ of \d+ · (\w+)", out, flags=re.M)
    assert roles[0] == "system"
    assert roles[-1] == "human"
    assert "You are thea" in out
    assert "<<<REFERENCE MEMORY" in out
    assert lines[-1] == "Which of my queues gets most traffic, do you think?"  # the last message, in full

    brief = thea_process(seeded, "trace", "last")
    assert "You are thea" not in brief
    assert "(--prompts shows them)" in brief
    data = json.loads(thea_process(seeded, "trace", "last", "--prompts", "--format", "json"))
    messages = data["explanation"]["prompt"]["messages"]
    assert messages[0]["role"] == "system"
    assert messages[-1] == {"role": "human", "content": "Which of my queues gets most traffic, do you think?"}
    statement = json.loads(thea_process(seeded, "trace", seeded.ok_id[:8], "--format", "json"))
    assert statement["explanation"]["mode"] == "acknowledgement"  # the (fake) model's reaction was empty
    assert statement["explanation"]["prompt"]["id"] == "reply"  # the prompt it was asked


def _ids(out: str) -> list[str]:
    return [row["id"] for row in json.loads(out)]


def test_insights_filter_by_state_concept_and_strength(seeded: Seeded) -> None:
    s = seeded.insights
    table = ok(seeded, "insights")
    assert s.merged.content in table
    assert s.weak.content in table
    assert s.first.content not in table  # archived ones are hidden by default
    assert table.index(s.merged.content) < table.index(s.weak.content)  # strongest first
    assert _ids(ok(seeded, "insights", "--json")) == [s.merged.id, s.weak.id]
    assert set(_ids(ok(seeded, "insights", "--state", "archived", "--json"))) == {s.first.id, s.second.id}
    assert _ids(ok(seeded, "insights", "--concept", "GARDENING", "--json")) == [s.weak.id]
    everything = ok(seeded, "insights", "--state", "all", "--min-strength", "1.2", "--json")
    assert _ids(everything) == [s.merged.id, s.second.id]
    assert _ids(ok(seeded, "insights", "--state", "all", "--limit", "1", "--json")) == [s.merged.id]
    rows = json.loads(ok(seeded, "insights", "--json"))
    assert rows[0]["concepts"] == ["Redis"]
    assert rows[0]["strength"] == 2.5
    assert "archived" in ok(seeded, "insights", "--state", "archived")
    assert thea(seeded, "insights", "--state", "nonsense").exit_code != 0


def test_insights_show_gives_lineage_both_ways(seeded: Seeded) -> None:
    s = seeded.insights
    merged = ok(seeded, "insights", "show", s.merged.id[:8])
    assert s.merged.content in merged
    assert "strength 2.5" in merged
    assert "active" in merged
    assert "merged from (2)" in merged
    assert re.search(rf"{s.first.id[:8]}\s+1\s+archived\s+{re.escape(s.first.content)}", merged), merged
    assert re.search(rf"{s.second.id[:8]}\s+1.5\s+archived\s+{re.escape(s.second.content)}", merged)
    assert "merged into: -" in merged

    source = ok(seeded, "insights", "show", s.first.id)
    assert "strength 1  archived" in source
    assert re.search(rf"merged into \(1\)\n.*{s.merged.id[:8]}\s+2.5\s+active", source), source
    assert "I use Redis streams for my job queue." in source  # its source impulse
    assert "concepts: Redis" in source


def test_an_unverified_insight_shows_its_evidence_and_why(seeded: Seeded) -> None:
    assert _ids(ok(seeded, "insights", "--state", "unverified", "--json")) == [seeded.unverified_id]
    assert seeded.unverified_id not in _ids(ok(seeded, "insights", "--state", "archived", "--json"))
    listed = ok(seeded, "insights", "--state", "unverified")
    assert "unverified" in listed
    shown = ok(seeded, "insights", "show", seeded.unverified_id[:8])
    assert "unverified" in shown
    assert "support 0.5, 1 proof(s) (not in its evidence: core, developer, renowned)" in shown
    assert "evidence (1)\n" in shown
    assert f"{seeded.ok_id[:8]} UserImpulse: \u201cI work on Redis queues.\u201d" in shown
    # each claim with its own status, its reason and its evidence
    assert re.search(
        r"claims \(2\)\n.*supported 1  Ana works on Redis queues\.\n.*\u201cI work on Redis", shown
    )
    assert re.search(
        r"unsupported 0.5  Ana is a renowned Redis core developer\.\n.*why: not in its evidence", shown
    )


def test_export_lines_validate_against_the_documented_schema(seeded: Seeded, tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema == export_schema(), "docs/export.schema.json is stale: thea export --schema > it"
    assert json.loads(ok(seeded, "export", "--schema")) == schema

    out = tmp_path / "golden.jsonl"
    assert "wrote 2 cycles" in ok(seeded, "export", "--out", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        jsonschema.validate(record, schema)
    assert [r["impulse_id"] for r in records] == [seeded.ok_id, seeded.failed_id]  # oldest first
    first, second = records
    assert first["impulse"] == "I work on Redis queues."
    assert first["final_response"] == "Got it, I'll remember that."
    assert first["plan"]["concepts"] == ["Redis"]
    assert first["failed_steps"] == []
    assert second["failed_steps"] == ["instinct"]
    assert second["instinct"] is None
    assert recalled_told(seeded.ok_id, {m["id"] for m in second["recalled"]})

    only_bob = tmp_path / "bob.jsonl"
    assert "wrote 0 cycles" in ok(seeded, "export", "--out", str(only_bob), "--user", "bob")
    assert only_bob.read_text() == ""
    assert "wrote 0 cycles" in ok(seeded, "export", "--out", str(only_bob), "--since", "2999-01-01")
    assert thea(seeded, "export").exit_code != 0  # --out is required
