"""Answers that loop are stopped; answers cut by the length limit say they were cut."""

from __future__ import annotations

import json

from services.cycle.hygiene import LENGTH_NOTE, LOOP_NOTE, loop_cut, tidy
from services.cycle.steps import CycleState
from services.cycle.synthesis import SynthesisService
from thea.llm.fake import StreamingFakeChatModel
from thea.models import UserImpulse


def test_a_repeated_unit_at_the_end_is_a_loop() -> None:
    text = "Corgis are small dogs. A corgi, a corgi, a corgi, a corgi,"
    cut = loop_cut(text)
    assert cut is not None
    assert text[:cut] == "Corgis are small dogs. A corgi,"
    assert loop_cut("The tideurchin corgi corgi otter corgi corgi otter corgi corgi otter") is not None


def test_ordinary_text_is_no_loop() -> None:
    for text in ("She said no no no.", "I like tea. I like coffee.", "one two three", ""):
        assert loop_cut(text) is None


def test_an_answer_that_used_its_whole_allowance_mid_sentence_says_it_was_cut() -> None:
    assert tidy("The bay is home to a", 384, 384) == ("The bay is home to a" + LENGTH_NOTE, LENGTH_NOTE)
    assert tidy("The bay is home to otters.", 384, 384) == ("The bay is home to otters.", "")
    assert tidy("Short and unfinished", 12, 384) == ("Short and unfinished", "")  # not at the limit


def state_for(text: str, sink: list[str]) -> CycleState:
    impulse = UserImpulse(content=text, user_id="ana", session_id="s")
    return CycleState(
        impulse=impulse, correlation_id=impulse.id, user_id="ana", session_id="s", on_token=sink.append
    )


async def test_a_looping_answer_stops_streaming_and_says_so() -> None:
    loop = "Otters live in kelp. " + "A corgi, " * 200

    model = StreamingFakeChatModel(reply=loop)
    streamed: list[str] = []
    state = state_for("Which animals live in the bay?", streamed)
    outcome = await SynthesisService(model, timeout_s=10, budget_tokens=100, max_tokens=384).handle(state)
    assert state.answer == "Otters live in kelp. A corgi," + LOOP_NOTE
    assert len("".join(streamed)) < 100  # stopped early, not after 200 corgis
    assert "".join(streamed).endswith(LOOP_NOTE)
    assert outcome.output is not None
    assert "repeating" in json.dumps(outcome.output.wire())
