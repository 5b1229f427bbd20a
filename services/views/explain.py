"""The explanation of one answer, read from its cycle's Reports: what recall found (text, type,
every stage's score), which of it reached the prompt, the facts of record used, and the prompt.

Pure: it reads only the Reports' recorded output (and the texts of facts looked up beforehand),
so it works on synthetic data and tolerates traces recorded before a field existed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from thea.api.models import (
    FactRecordedView,
    FactUsedView,
    PromptMessageView,
    PromptUsedView,
    RecalledMemoryView,
    SupersededView,
    TraceExplanation,
)
from thea.models import Report, Step, TaskStatus

#: the answer's mode when the model wrote it (the synthesis report names no mode then)
MODEL = "model"


def _dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _ids(value: object) -> list[str]:
    """Ids from a list of ids or of ``{"id": ...}`` records."""
    if not isinstance(value, list):
        return []
    out = [v if isinstance(v, str) else v.get("id") if isinstance(v, dict) else None for v in value]
    return [i for i in out if isinstance(i, str) and i]


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _last(reports: Iterable[Report], step: Step) -> Report | None:
    found = [r for r in reports if r.step == step]
    return found[-1] if found else None


def recalled(recall: Report | None, in_prompt: set[str]) -> list[RecalledMemoryView]:
    """The recall report's hits in recall order, each marked whether it reached the prompt."""
    hits = _dicts(recall.output.get("hits")) if recall is not None else []
    out = []
    for hit in hits:
        hit_id = _text(hit.get("id"))
        if not hit_id:
            continue
        raw_scores = hit.get("stage_scores")
        scores = raw_scores if isinstance(raw_scores, dict) else {}
        stages = hit.get("stages")
        out.append(
            RecalledMemoryView(
                id=hit_id,
                type=_text(hit.get("type")),
                text=_text(hit.get("text")),
                score=_number(hit.get("score")),
                stages=[_text(s) for s in stages] if isinstance(stages, list) else [],
                stage_scores={_text(k): _number(v) for k, v in scores.items()},
                in_prompt=hit_id in in_prompt,
            )
        )
    return out


def prompt_used(synthesis: Report | None, with_messages: bool) -> PromptUsedView | None:
    """The prompt synthesis sent (its id, version, and its messages when asked for); from the
    report's prompt fields when the trace predates the recorded prompt."""
    if synthesis is None:
        return None
    record = synthesis.output.get("prompt")
    if isinstance(record, dict) and record.get("id"):
        messages = [
            PromptMessageView(role=_text(m.get("role")), content=_text(m.get("content")))
            for m in _dicts(record.get("messages"))
        ]
        return PromptUsedView(
            id=_text(record.get("id")),
            version=_text(record.get("version")),
            message_count=len(messages),
            messages=messages if with_messages else None,
        )
    if synthesis.prompt_name and synthesis.llm_calls:
        return PromptUsedView(id=synthesis.prompt_name, version=synthesis.prompt_version or "")
    return None


def answer_mode(synthesis: Report | None) -> str | None:
    if synthesis is None or synthesis.status is not TaskStatus.SUCCESS:
        return None
    mode = synthesis.output.get("mode")
    return mode if isinstance(mode, str) and mode else MODEL


def explain(
    reports: Iterable[Report],
    fact_texts: Mapping[str, str] | None = None,
    prompts: bool = False,
) -> TraceExplanation:
    """The explanation of a cycle from its Reports.

    ``fact_texts`` gives the text of facts of record by id (looked up by the caller); facts this
    very message recorded and recalled facts need none. ``prompts`` includes the prompt's
    messages (large: left out by default)."""
    reports = list(reports)
    plan, recall, synthesis = (_last(reports, s) for s in (Step.PLAN, Step.RECALL, Step.SYNTHESIS))
    plan_out = plan.output if plan is not None else {}
    synth_out = synthesis.output if synthesis is not None else {}
    # a recalled memory reaches the prompt as a reference, or as a fact of record
    memories = recalled(recall, {*_ids(synth_out.get("references")), *_ids(synth_out.get("facts"))})
    facts_recorded = [
        FactRecordedView(
            id=_text(f.get("id")),
            subject=_text(f.get("subject")),
            attribute=_text(f.get("attribute")),
            value=_text(f.get("value")),
            text=_text(f.get("text")),
        )
        for f in _dicts(plan_out.get("facts_recorded"))
        if f.get("id")
    ]
    superseded = [
        SupersededView(
            id=_text(s.get("id")),
            text=_text(s.get("text")),
            by=_text(s.get("by")),
            reason=_text(s.get("reason")),
        )
        for s in _dicts(plan_out.get("superseded"))
        if s.get("id")
    ]
    used = _dicts(synth_out.get("facts"))
    texts = {m.id: m.text for m in memories} | {f.id: f.text for f in facts_recorded}
    texts |= dict(fact_texts or {})
    texts |= {_text(f.get("id")): _text(f.get("text")) for f in used if f.get("text")}
    fact_used = dict.fromkeys(_ids(synth_out.get("facts")))
    why = synth_out.get("facts_why")
    reasons = {_text(k): _text(v) for k, v in why.items()} if isinstance(why, dict) else {}
    act = plan_out.get("act")
    return TraceExplanation(
        act=act if isinstance(act, str) and act else None,
        recalled=memories,
        facts=[FactUsedView(id=i, text=texts.get(i, ""), why=reasons.get(i, "")) for i in fact_used],
        facts_recorded=facts_recorded,
        superseded=superseded,
        mode=answer_mode(synthesis),
        prompt=prompt_used(synthesis, prompts),
    )


def fact_ids(reports: Iterable[Report]) -> list[str]:
    """The ids of the facts of record the answering prompt held (to look their texts up)."""
    synthesis = _last(reports, Step.SYNTHESIS)
    return _ids(synthesis.output.get("facts")) if synthesis is not None else []
