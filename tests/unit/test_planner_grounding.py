"""The planner keeps a small model's plan honest: no invented topics or time windows."""

from __future__ import annotations

import json

from services.cycle.planner import PlannerService, grounded
from services.cycle.steps import CycleState
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import UserImpulse


def state_for(text: str) -> CycleState:
    impulse = UserImpulse(content=text, user_id="ana", session_id="s")
    return CycleState(impulse=impulse, correlation_id=impulse.id, user_id="ana", session_id="s", history=[])


def planner_saying(plan: dict[str, object]) -> PlannerService:
    return PlannerService(FakeChatModel(handlers={PromptId.PLANNER: lambda _: json.dumps(plan)}), timeout_s=5)


def test_grounded_needs_every_word_in_the_text() -> None:
    assert grounded("Redis queues", "I work on redis QUEUES all day")
    assert not grounded("software development", "What do I work on?")
    assert not grounded("a", "a")


async def test_invented_concepts_and_time_windows_are_dropped() -> None:
    plan = {"queries": ["work"], "concepts": ["software development", "Redis"], "time_window": "today"}
    state = state_for("What do I do with Redis?")
    await planner_saying(plan).handle(state)
    assert state.plan is not None
    assert "software development" not in state.plan.concepts
    assert "Redis" in state.plan.concepts
    assert state.plan.time_from is None  # no time phrase in the message


async def test_a_time_phrase_in_the_text_keeps_a_window() -> None:
    plan = {"queries": ["meeting"], "concepts": [], "time_window": "yesterday"}
    state = state_for("What did we discuss yesterday?")
    await planner_saying(plan).handle(state)
    assert state.plan is not None
    assert state.plan.time_from is not None
    assert state.plan.time_to is not None


async def test_the_prompt_example_triple_never_leaks_into_a_plan() -> None:
    # the 0.5B model copied the prompt's example ("outages CAUSES outages") into unrelated plans
    plan = {
        "queries": ["job"],
        "concepts": [],
        "triple_subject": "outages",
        "triple_relation": "CAUSES",
        "triple_object": "outages",
    }
    state = state_for("I work as a marine biologist in Monterey.")
    await planner_saying(plan).handle(state)
    assert state.plan is not None
    assert state.plan.triple_pattern is None


async def test_a_triple_pattern_from_the_users_words_is_kept() -> None:
    plan = {
        "queries": ["x"],
        "concepts": [],
        "triple_subject": None,
        "triple_relation": "CAUSES",
        "triple_object": "outages",
    }
    state = state_for("What causes our outages?")
    await planner_saying(plan).handle(state)
    assert state.plan is not None
    assert state.plan.triple_pattern == [None, "CAUSES", "outages"]
