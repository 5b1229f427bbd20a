"""Knowledge that can be trusted, with the real offline model (issue 13).

Slow (model load + CPU inference): run with ``python -m pytest -m slow``.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from services.cycle.reply import made_up
from services.reflection.crystallizer import crystal_id, stated_id
from services.reflection.grounding import SCHEMA_WORDS, Sources
from tests.graph_reads import asserted
from thea.models import KnowledgeCrystal, NodeType
from thea.runtime import Runtime

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: the words an acknowledgement may add to what the user said
TEMPLATE_WORDS = {"got", "it", "noted", "your", "you", "you're", "i'll", "remember", "that", "are", "were"}


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[\w']+", text)}


async def crystallize(rt: Runtime, impulse_id: str) -> KnowledgeCrystal | None:
    await asyncio.to_thread(rt.run_jobs)
    found = rt.memory.get([crystal_id(impulse_id)])
    return found[0] if found and isinstance(found[0], KnowledgeCrystal) else None


@pytest.mark.parametrize(
    "said",
    [
        "My name is Priya Ramanathan.",
        "I work as a marine biologist in Monterey and I maintain the Tidewatch app.",
    ],
)
async def test_a_statement_is_acknowledged_without_invented_facts(runtime: Runtime, said: str) -> None:
    result = await runtime.orchestrator.handle_impulse(said, "priya", "s1")
    # the acknowledgement, or the model's reaction: nothing in it the user did not say
    assert made_up(result.answer, said) == [] or words(result.answer) <= words(said) | TEMPLATE_WORDS, (
        result.answer
    )
    crystal = await crystallize(runtime, result.impulse_id)
    assert crystal is not None, "a telling statement is always crystallized"
    sources = Sources([(result.impulse_id, "UserImpulse", said)], frozenset({"priya"}))
    # whatever the model wrote, what is kept is the user's: concepts, relation ends and tags
    island = runtime.memory.neighbourhood(crystal.id, depth=1)
    concepts = [n.content for n in island.nodes if n.type is NodeType.CONCEPT]
    assert all(sources.grounds(c) for c in concepts), concepts
    relations = asserted(runtime.memory, crystal.id)
    assert all(sources.grounds(s) and sources.grounds(o) for s, _, o in relations), relations
    assert not set(crystal.tags) & SCHEMA_WORDS, crystal.tags
    # and an insight that adds to what was said is not recalled as knowledge
    assert crystal.evidence
    assert crystal.evidence[0].source_id == result.impulse_id
    if crystal.active:
        assert crystal.verification == "supported", crystal
    else:
        assert crystal.verification == "unverified"
        assert crystal.verification_reason
        # what the user said is still remembered, in their own words
        (stated,) = runtime.memory.get([stated_id(result.impulse_id)])
        assert isinstance(stated, KnowledgeCrystal)
        assert stated.active
        assert stated.verification == "supported"
        assert words(stated.content) <= words(said) | {"the", "user", "user's", "s", "works", "maintains"}


async def test_a_question_that_tells_nothing_new_yields_no_insight(runtime: Runtime) -> None:
    told = await runtime.orchestrator.handle_impulse("I maintain the Tidewatch app.", "sam", "s2")
    await crystallize(runtime, told.impulse_id)
    asked = await runtime.orchestrator.handle_impulse("What system do I maintain?", "sam", "s2")
    assert asked.answer.strip()
    assert await crystallize(runtime, asked.impulse_id) is None
