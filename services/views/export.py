"""Golden dataset export: one JSON object per completed cycle, streamed page by page.

The schema is :class:`ExportRecord` (documented in docs/export.md; JSON Schema in
docs/export.schema.json, printed by ``thea export --schema``). Memory use is constant:
impulses are read with keyset pagination and each page's cycles are loaded with one
batched query (and its pasted documents' texts with one more: a paste is exported whole, as the
user sent it, not as the summary its impulse keeps).
"""

from __future__ import annotations

from collections.abc import Iterator

from thea.api.export import ExportedMemory, ExportedPlan, ExportRecord, export_schema
from thea.memory.ports import ExportSource
from thea.models import FinalResponse, InstinctiveResponse, Node, Report, SearchPlan, UserImpulse

__all__ = ["ExportRecord", "count_impulses", "export_schema", "iter_export"]


def _record(
    impulse: UserImpulse, nodes: list[Node], texts: dict[str, Node], pasted: dict[str, str]
) -> ExportRecord | None:
    final = next((n for n in nodes if isinstance(n, FinalResponse)), None)
    if final is None:
        return None  # not a completed cycle
    instinct = next((n for n in nodes if isinstance(n, InstinctiveResponse)), None)
    plan = next((n for n in nodes if isinstance(n, SearchPlan)), None)
    failed = sorted({n.step for n in nodes if isinstance(n, Report) and n.status.value == "FAILURE"})
    recalled = [
        ExportedMemory(id=i, type=texts[i].type.value, text=texts[i].content)
        for i in final.recalled_ids
        if i in texts
    ]
    return ExportRecord(
        impulse_id=impulse.id,
        user_id=impulse.user_id,
        session_id=impulse.session_id,
        created_at=impulse.created_at,
        # a paste's impulse holds a summary; the export gives the message as it was sent
        impulse=pasted.get(impulse.document_id or "", impulse.content),
        instinct=instinct.content if instinct else None,
        plan=ExportedPlan(
            queries=plan.queries,
            concepts=plan.concepts,
            time_from=plan.time_from,
            time_to=plan.time_to,
            triple_pattern=plan.triple_pattern,
        )
        if plan
        else None,
        recalled=recalled,
        final_response=final.content,
        response_id=final.id,
        feedback=final.feedback,
        failed_steps=failed,
    )


def iter_export(
    memory: ExportSource, *, since_ms: int = 0, user_id: str | None = None, page_size: int = 200
) -> Iterator[ExportRecord]:
    after_time, after_id = since_ms - 1, ""
    while True:
        impulses = memory.exchange.impulses_page(after_time, after_id, user_id, page_size)
        if not impulses:
            return
        by_cycle = memory.exchange.cycles_nodes([i.id for i in impulses])
        recalled_ids = {
            rid
            for nodes in by_cycle.values()
            for n in nodes
            if isinstance(n, FinalResponse)
            for rid in n.recalled_ids
        }
        texts = {n.id: n for n in memory.get(list(recalled_ids))}
        pasted = memory.exchange.documents_texts([i.document_id for i in impulses if i.document_id])
        for impulse in impulses:
            record = _record(impulse, by_cycle[impulse.id], texts, pasted)
            if record is not None:
                yield record
        after_time, after_id = impulses[-1].created_at, impulses[-1].id
        if len(impulses) < page_size:
            return


def count_impulses(memory: ExportSource) -> int:
    """All impulses stored (an upper bound for the number of exported cycles)."""
    return memory.node_counts().get("UserImpulse", 0)
