"""The explanation of one answer, read from its cycle's Reports: what recall found (text, type,
every stage's score), which of it reached the prompt, the facts of record used, and the prompt.

Pure: it reads only the Reports' recorded output (and the texts of facts looked up beforehand),
so it works on synthetic data and tolerates traces recorded before a field existed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

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
from thea.models.step_outputs import (
    PlanOutput,
    RecallOutput,
    SaidFact,
    StepOutputModel,
    SynthesisOutput,
)

Out = TypeVar("Out", bound=StepOutputModel)

#: the answer's mode when the model wrote it (the synthesis report names no mode then)
MODEL = "model"


def _last(reports: Iterable[Report], step: Step) -> Report | None:
    found = [r for r in reports if r.step == step]
    return found[-1] if found else None


def _output(reports: Iterable[Report], step: type[Out], name: Step) -> Out:
    """The last report of the step ``name``, read as its typed output (empty when none)."""
    report = _last(reports, name)
    return step.of(report.output if report is not None else None)


def recalled(recall: Report | None, in_prompt: set[str]) -> list[RecalledMemoryView]:
    """The recall report's hits in recall order, each marked whether it reached the prompt."""
    hits = RecallOutput.of(recall.output).hits if recall is not None else []
    return [
        RecalledMemoryView(
            id=hit.id,
            type=hit.type,
            text=hit.text,
            score=hit.score,
            stages=hit.stages,
            stage_scores=hit.stage_scores,
            in_prompt=hit.id in in_prompt,
        )
        for hit in hits
        if hit.id
    ]


def prompt_used(synthesis: Report | None, with_messages: bool) -> PromptUsedView | None:
    """The prompt synthesis sent (its id, version, and its messages when asked for); from the
    report's prompt fields when the trace predates the recorded prompt."""
    if synthesis is None:
        return None
    record = SynthesisOutput.of(synthesis.output).prompt
    if record is not None and record.id:
        messages = [PromptMessageView(role=m.role, content=m.content) for m in record.messages]
        return PromptUsedView(
            id=record.id,
            version=record.version,
            message_count=len(messages),
            messages=messages if with_messages else None,
        )
    if synthesis.prompt_name and synthesis.llm_calls:
        return PromptUsedView(id=synthesis.prompt_name, version=synthesis.prompt_version or "")
    return None


def answer_mode(synthesis: Report | None) -> str | None:
    if synthesis is None or synthesis.status is not TaskStatus.SUCCESS:
        return None
    return SynthesisOutput.of(synthesis.output).mode or MODEL


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
    recall, synthesis = _last(reports, Step.RECALL), _last(reports, Step.SYNTHESIS)
    plan_out = _output(reports, PlanOutput, Step.PLAN)
    synth_out = SynthesisOutput.of(synthesis.output if synthesis is not None else None)
    # a recalled memory reaches the prompt as a reference, or as a fact of record
    memories = recalled(recall, {*(r for r in synth_out.references if r), *synth_out.fact_ids})
    facts_recorded = [
        FactRecordedView(id=f.id, subject=f.subject, attribute=f.attribute, value=f.value, text=f.text)
        for f in plan_out.facts_recorded
        if f.id
    ]
    superseded = [
        SupersededView(id=s.id, text=s.text, by=s.by, reason=s.reason) for s in plan_out.superseded if s.id
    ]
    texts = {m.id: m.text for m in memories} | {f.id: f.text for f in facts_recorded}
    texts |= dict(fact_texts or {})
    texts |= {f.id: f.text for f in synth_out.facts if isinstance(f, SaidFact) and f.text}
    fact_used = dict.fromkeys(synth_out.fact_ids)
    reasons = synth_out.facts_why
    return TraceExplanation(
        act=plan_out.act or None,
        recalled=memories,
        facts=[FactUsedView(id=i, text=texts.get(i, ""), why=reasons.get(i, "")) for i in fact_used],
        facts_recorded=facts_recorded,
        superseded=superseded,
        mode=answer_mode(synthesis),
        prompt=prompt_used(synthesis, prompts),
    )


def fact_ids(reports: Iterable[Report]) -> list[str]:
    """The ids of the facts of record the answering prompt held (to look their texts up)."""
    return _output(reports, SynthesisOutput, Step.SYNTHESIS).fact_ids
