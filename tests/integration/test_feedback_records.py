"""``!good`` / ``!bad`` act on every recalled memory, turns and impulses too (issue 13, item 5)."""

from __future__ import annotations

from services.knowledge.feedback import apply_feedback
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery
from thea.models import DialogueTurn, FinalResponse, UserImpulse
from thea.runtime import Runtime


async def test_a_bad_answer_lowers_the_recalled_turn_in_the_next_recall(runtime: Runtime) -> None:
    turns = [
        DialogueTurn(content="We hiked to the blue lake on Sunday with Ana.", user_id="bo", speaker="bo"),
        DialogueTurn(content="We hiked to the blue lake on Sunday with Kai.", user_id="bo", speaker="bo"),
    ]
    runtime.memory.record(turns)
    recall = RecallService(runtime.memory)
    query = RecallQuery(texts=["Who did we hike to the blue lake with on Sunday?"], user_id="bo")
    before = [h.id for h in (await recall.recall(query)).hits]
    top, second = before[0], before[1]
    assert {top, second} == {t.id for t in turns}
    answer = FinalResponse(content="You hiked with them.", user_id="bo", recalled_ids=[top])
    runtime.memory.record([answer])

    outcome = apply_feedback(runtime.memory, answer.id, -1)
    assert outcome.changed == [top]
    assert outcome.summary() == f"marked bad: turn {top[:8]} rating 0 -> -1"
    (rated,) = runtime.memory.get([top])
    assert isinstance(rated, DialogueTurn)
    assert rated.rating == -1
    after = [h.id for h in (await recall.recall(query)).hits]
    assert after[:2] == [second, top]

    # switching to good moves it back up, past its equal
    assert (
        apply_feedback(runtime.memory, answer.id, 1).summary()
        == f"marked good: turn {top[:8]} rating -1 -> 1"
    )
    assert [h.id for h in (await recall.recall(query)).hits][:2] == [top, second]


async def test_feedback_reports_the_change_of_every_kind_of_recalled_memory(runtime: Runtime) -> None:
    result = await runtime.orchestrator.handle_impulse("I keep my bicycle in the red shed.", "ana", "s1")
    (impulse,) = runtime.memory.get([result.impulse_id])
    assert isinstance(impulse, UserImpulse)
    answer = FinalResponse(content="In the red shed.", user_id="ana", recalled_ids=[impulse.id, "gone-id"])
    runtime.memory.record([answer])
    text = apply_feedback(runtime.memory, answer.id, 1).summary()
    assert text == f"marked good: impulse {impulse.id[:8]} rating 0 -> 1; 1 recalled memory no longer stored"
