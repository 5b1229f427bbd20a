"""The explanation of an answer, read from synthetic Reports: which recalled memories reached the
prompt, each stage's score, the facts of record, the prompt, and traces missing any of it."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from services.views.explain import explain, fact_ids
from thea.api.models import TraceStepView, TraceView
from thea.cli.render import print_prompt, stage_scores, trace_tree
from thea.models import Report, Task, TaskStatus, UserImpulse

PROMPT = {
    "id": "synthesis",
    "version": "3",
    "messages": [
        {"role": "system", "content": "You are thea.\n<<<REFERENCE MEMORY>>>\n[aaaa] I work on Redis."},
        {"role": "human", "content": "What do I work on?"},
    ],
}


def report(step: str, output: dict[str, Any], **kw: Any) -> Report:
    kw.setdefault("status", TaskStatus.SUCCESS)
    return Report(step=step, task_id=f"task-{step}", output=output, correlation_id="c1", **kw)


def cycle_reports(**synthesis: Any) -> list[Report]:
    hits = [
        {
            "id": "aaaa-1",
            "type": "UserImpulse",
            "score": 100.0,
            "stages": ["keywords", "vectors"],
            "stage_scores": {"vectors": 0.61, "keywords": 7.2},
            "text": "I work on Redis queues.",
        },
        {
            "id": "bbbb-2",
            "type": "KnowledgeCrystal",
            "score": 12.5,
            "stages": ["vectors"],
            "stage_scores": {"vectors": 0.31},
            "text": "The user likes hiking.",
        },
    ]
    plan = {
        "queries": ["What do I work on?"],
        "act": "question",
        "facts_recorded": [
            {
                "id": "fact-new",
                "subject": "user",
                "attribute": "employer",
                "value": "Acme",
                "text": "I work at Acme.",
            }
        ],
        "superseded": [{"id": "fact-old", "text": "I work at Initech.", "by": "fact-new", "reason": "newer"}],
    }
    output = {"references": ["aaaa-1"], "facts": ["fact-new", "fact-9"], "prompt": PROMPT} | synthesis
    return [
        report("plan", plan),
        report("recall", {"hits": hits, "stage_counts": {"vectors": 2, "keywords": 1}}),
        report("synthesis", output, prompt_name="synthesis", prompt_version="3", llm_calls=1),
    ]


def test_recalled_memories_keep_recall_order_stage_scores_and_whether_they_reached_the_prompt() -> None:
    explained = explain(cycle_reports())
    assert [(m.id, m.in_prompt) for m in explained.recalled] == [("aaaa-1", True), ("bbbb-2", False)]
    first = explained.recalled[0]
    assert first.type == "UserImpulse"
    assert first.text == "I work on Redis queues."
    assert first.score == 100.0
    assert first.stage_scores == {"vectors": 0.61, "keywords": 7.2}
    assert explained.mode == "model"
    assert explained.act == "question"


def test_a_recalled_fact_of_record_in_the_prompt_counts_as_in_the_prompt() -> None:
    hit = {"id": "fact-9", "type": "Fact", "score": 9.0, "stages": ["keywords"], "text": "I work on Redis."}
    reports = [
        report("recall", {"hits": [hit]}),
        report("synthesis", {"references": [], "facts": ["fact-9"]}),
    ]
    explained = explain(reports)
    assert [(m.id, m.in_prompt) for m in explained.recalled] == [("fact-9", True)]
    assert [(f.id, f.text) for f in explained.facts] == [("fact-9", "I work on Redis.")]  # text from recall


def test_facts_of_record_get_their_text_from_this_message_or_a_lookup() -> None:
    reports = cycle_reports()
    assert fact_ids(reports) == ["fact-new", "fact-9"]
    explained = explain(reports, {"fact-9": "Ana's PIN is 1234."})
    assert [(f.id, f.text) for f in explained.facts] == [
        ("fact-new", "I work at Acme."),
        ("fact-9", "Ana's PIN is 1234."),
    ]
    (recorded,) = explained.facts_recorded
    assert (recorded.subject, recorded.attribute, recorded.value) == ("user", "employer", "Acme")
    (old,) = explained.superseded
    assert (old.id, old.by, old.reason) == ("fact-old", "fact-new", "newer")


def test_the_prompt_messages_only_on_request() -> None:
    without = explain(cycle_reports()).prompt
    assert without is not None
    assert (without.id, without.version, without.message_count) == ("synthesis", "3", 2)
    assert without.messages is None
    shown = explain(cycle_reports(), prompts=True).prompt
    assert shown is not None
    assert shown.messages is not None
    assert [m.role for m in shown.messages] == ["system", "human"]
    assert shown.messages[1].content == "What do I work on?"


def test_missing_fields_are_tolerated() -> None:
    # a trace recorded before texts, stage scores, facts and the prompt were kept
    old = [
        report("plan", {"queries": ["hi"]}),
        report(
            "recall", {"hits": [{"id": "aaaa-1", "type": "UserImpulse", "score": 3, "stages": ["keywords"]}]}
        ),
        report(
            "synthesis", {"references": ["aaaa-1"]}, prompt_name="synthesis", prompt_version="2", llm_calls=1
        ),
    ]
    explained = explain(old, prompts=True)
    (memory,) = explained.recalled
    assert (memory.text, memory.stage_scores, memory.in_prompt) == ("", {}, True)
    assert explained.facts == explained.facts_recorded == explained.superseded == []
    assert explained.act is None
    assert explained.prompt is not None
    assert (explained.prompt.id, explained.prompt.version, explained.prompt.messages) == (
        "synthesis",
        "2",
        None,
    )
    # no reports at all, garbage where lists belong, a failed synthesis
    assert explain([]).recalled == []
    assert explain([]).mode is None
    assert explain([]).prompt is None
    broken = [report("recall", {"hits": "nonsense"}), report("synthesis", {}, status=TaskStatus.FAILURE)]
    assert explain(broken).recalled == []
    assert explain(broken).mode is None


def test_an_answer_no_model_wrote_names_its_mode_and_has_no_prompt() -> None:
    reports = [
        report("recall", {"hits": []}),
        report("synthesis", {"references": [], "mode": "acknowledgement"}),
    ]
    explained = explain(reports)
    assert explained.mode == "acknowledgement"
    assert explained.prompt is None


def steps_of(reports: list[Report]) -> list[TraceStepView]:
    return [
        TraceStepView(
            step=r.step,
            status=r.status,
            duration_ms=1.0,
            error=None,
            task=Task(step=r.step, service=r.step, content=r.step, correlation_id="c1"),
            report=r,
        )
        for r in reports
    ]


def rendered(prompts: bool) -> str:
    impulse = UserImpulse(content="What do I work on?", user_id="ana", correlation_id="c1")
    steps = steps_of(cycle_reports())
    trace = TraceView(
        impulse=impulse, complete=True, steps=steps, explanation=explain(cycle_reports(), prompts=prompts)
    )
    console = Console(width=200, record=True)
    console.print(trace_tree(trace))
    if prompts:
        print_prompt(console, trace)
    return console.export_text()


def test_the_tree_marks_each_recalled_memory_and_names_the_prompt_and_facts() -> None:
    assert stage_scores({"vectors": 0.61, "keywords": 7.2}) == "vectors 0.61 · keywords 7.2"
    out = rendered(prompts=False)
    lines = out.splitlines()
    (used,) = [ln for ln in lines if "I work on Redis queues." in ln]
    assert "→ prompt" in used
    assert "UserImpulse 100" in used
    assert "vectors 0.61 · keywords 7.2" in used
    (only,) = [ln for ln in lines if "The user likes hiking." in ln]
    assert "recalled" in only
    assert "→ prompt" not in only
    assert "vectors 0.31" in only
    assert "2 memories recalled, 1 reached the prompt" in out
    assert "prompt synthesis v3, 2 messages" in out
    assert "facts of record used (2)" in out
    assert "I work at Acme." in out
    assert "act: question" in out
    assert "superseded fact-old I work at Initech. (by fact-new; newer)" in out
    assert "You are thea." not in out
    full = rendered(prompts=True)
    assert "message 1 of 2 · system" in full
    assert "<<<REFERENCE MEMORY>>>\n[aaaa] I work on Redis." in full
    assert "message 2 of 2 · human" in full


def test_a_said_back_answer_keeps_why_each_fact_answers() -> None:
    reports = [
        report("recall", {"hits": []}),
        report(
            "synthesis",
            {
                "references": [],
                "mode": "facts of record",
                "facts": [{"id": "f1", "text": "I bought a Ridley."}],
                "facts_why": {"f1": "about you; speaks of bike"},
            },
        ),
    ]
    explained = explain(reports)
    (fact,) = explained.facts
    assert (fact.text, fact.why) == ("I bought a Ridley.", "about you; speaks of bike")
    impulse = UserImpulse(content="What bike do I ride?", user_id="ana", correlation_id="c1")
    steps = steps_of(reports)
    trace = TraceView(impulse=impulse, complete=True, steps=steps, explanation=explained)
    console = Console(width=200, record=True)
    console.print(trace_tree(trace))
    assert "I bought a Ridley.  (about you; speaks of bike)" in console.export_text()
