"""A question about the present day or week still recalls what was told before it.

First contact set 31: "i want cook something from your idea tonight, what i must not eat?" was
planned with a time window of today ("tonight"), and recall let through only what was said that
day: a gout and its foods told on an earlier day would not have been read at all. A period still
going on (today, tonight, this week, this month) is one a plan or a constraint told before it is
about; only a period that is over (yesterday, last week) limits recall to what happened in it.
"""

from __future__ import annotations

import pytest

from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import UserImpulse
from thea.models.nodes import now_ms
from thea.runtime import Runtime

DAY = 86_400_000


@pytest.mark.parametrize(
    "asked",
    [
        "i want cook something from your idea tonight, what i must not eat?",
        "what food must I not eat today?",
        "what should I make for dinner this week, any ideas?",
        "what can i have for breakfast this morning",
    ],
)
async def test_a_question_about_the_present_recalls_what_was_told_before_it(
    runtime: Runtime, llm: FakeChatModel, asked: str
) -> None:
    told = UserImpulse(
        content="the doctor says I have gout, so no beer, no liver and not much red meat for me",
        user_id="ana",
        created_at=now_ms() - 10 * DAY,
    )
    runtime.memory.record([told])
    await runtime.orchestrator.handle_impulse(asked, "ana", "s1")
    prompts = [*llm.prompts_for(PromptId.SYNTHESIS), *llm.prompts_for(PromptId.ANSWER_FROM_TOLD)]
    shown = "\n".join(str(m.content) for prompt in prompts for m in prompt)
    assert "gout" in shown


async def test_a_question_about_a_day_that_is_over_recalls_only_that_day(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    told = now_ms() - 30 * DAY
    old = UserImpulse(content="I ate ramen in Tokyo with Kenji.", user_id="ana", created_at=told)
    runtime.memory.record([old])
    await runtime.orchestrator.handle_impulse("where did I eat ramen yesterday?", "ana", "s1")
    prompts = [*llm.prompts_for(PromptId.SYNTHESIS), *llm.prompts_for(PromptId.ANSWER_FROM_TOLD)]
    assert "Tokyo" not in "\n".join(str(m.content) for prompt in prompts for m in prompt)
