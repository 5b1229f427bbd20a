"""The real claims model reads whether an end that names someone is of them or of one of their
things (services/prompts/still_theirs.py). Live, "Pepper ate a sock again" read as an end of
Pepper's "activity: sock" closed the claim naming Pepper; the pair judge said "replaces" for all
ten such pairs tried. Slow: the 1.5B reads each pair."""

from __future__ import annotations

import pytest

from services.common.llm_calls import ask_structured
from services.prompts import still_theirs as still_prompt
from thea.runtime import Runtime

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

#: (name, relation, the end's words): the subject itself left the user's life
GONE = (
    ("Rex", "dog", "Rex died last night"),
    ("Bruno", "dog", "we had to put Bruno down on Monday"),
    ("Sam", "partner", "Sam and I broke up"),
    ("Joe", "grandad", "grandad Joe passed away on Sunday"),
    ("Nibbles", "hamster", "our hamster Nibbles didn't make it through the winter"),
    ("Priya", "partner", "Priya moved out, we're not together anymore"),
    ("Daisy", "dog", "we lost Daisy on Friday, 14 good years"),
    ("Jake", "boyfriend", "Jake dumped me last night"),
)

#: an end of one of the subject's things: they are still in the user's life
STILL = (
    ("Pepper", "dog", "Pepper ate a sock again"),
    ("Luna", "daughter", "Luna has given up gymnastics"),
    ("Ewa", "sister", "Ewa quit her job at the bank"),
    ("Biscuit", "cat", "Biscuit has stopped eating his dry food"),
    ("Tom", "son", "Tom finished his exams today"),
    ("Ana", "friend", "Ana moved out of her flat in Lisbon"),
    ("Ted", "grandpa", "Grandpa Ted is in hospital with pneumonia"),
    ("Dev", "husband", "Dev is leaving the ambulance service, he's retraining as a nurse"),
    ("Leo", "son", "my son Leo quit football"),
    ("Rosa", "daughter", "Rosa dropped out of uni"),
)


async def _still(runtime: Runtime, name: str, relation: str, said: str) -> bool:
    model = runtime.claims_model or runtime.llm
    read, _usage = await ask_structured(
        model,
        still_prompt.StillTheirs,
        still_prompt.build(still_prompt.pair_text(name, relation, said)),
        still_prompt.PROMPT,
        timeout_s=120,
        max_tokens=still_prompt.MAX_TOKENS,
    )
    return read.still


async def test_an_end_of_someone_is_told_from_an_end_of_one_of_their_things(runtime: Runtime) -> None:
    wrong = [said for name, relation, said in GONE if await _still(runtime, name, relation, said)]
    wrong += [said for name, relation, said in STILL if not await _still(runtime, name, relation, said)]
    assert len(wrong) <= 1, wrong  # measured: 18 of 18 (v1)
