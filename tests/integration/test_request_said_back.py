"""A request the answering model only says back is no answer (live: "another favour pls: lunch
box ideas for my two kids this week, cheap, nothing with nuts" -> "Got it, I'll remember that.
Lunch box ideas for your two kids this week, cheap, nothing with nuts."). The reading model is
asked instead; nothing of the said-back words is shown, streamed or not."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from services.cycle.orchestrator import Orchestrator
from thea.config import Settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime, build_runtime

USER = "lina"

REQUESTS = [
    pytest.param(
        "another favour pls: lunch box ideas for my two kids this week, cheap, nothing with nuts",
        "lunch box ideas for my two kids this week, cheap, nothing with nuts",
        "Lunch box ideas for your two kids this week, cheap, nothing with nuts.",
        id="noun-phrase-in-news",
    ),
    pytest.param(
        "Can you give me some ideas for a cheap birthday party for my son?",
        "",
        "Some ideas for a cheap birthday party for your son.",
        id="question-form",
    ),
    pytest.param(
        "help me plan a weekend in Porto with my partner, we like food and walking",
        "",
        "A weekend in Porto with your partner: food and walking!",
        id="imperative",
    ),
]


@pytest.fixture
def reader() -> FakeChatModel:
    return FakeChatModel()


@pytest.fixture
def with_reader(settings: Settings, llm: FakeChatModel, reader: FakeChatModel) -> Iterator[Orchestrator]:
    from thea.runtime.assembly import build_orchestrator

    rt: Runtime = build_runtime(settings, llm=llm)
    try:
        yield build_orchestrator(settings, rt.memory, llm, jobs=None, picker=reader)
    finally:
        rt.close()


def _asks(model: FakeChatModel, asked: str) -> None:
    if asked:
        model.answer(PromptId.ASKED_BESIDE_NEWS, json.dumps({"asked": asked, "asks": "help"}))


async def _shown_when_said_back(
    orchestrator: Orchestrator,
    llm: FakeChatModel,
    reader: FakeChatModel,
    request: tuple[str, str, str],
    reader_says: str,
) -> tuple[str, str]:
    """The answer and what was streamed of it, when the answering model says the request back
    and the reading model says ``reader_says``."""
    message, asked, echo = request
    _asks(llm, asked)
    _asks(reader, asked)
    llm.answer(PromptId.SYNTHESIS, echo)
    reader.answer(PromptId.SYNTHESIS, reader_says)
    streamed: list[str] = []
    result = await orchestrator.handle_impulse(message, USER, "s1", on_token=streamed.append)
    return result.answer, "".join(streamed)


@pytest.mark.parametrize(("message", "asked", "echo"), REQUESTS)
async def test_a_request_said_back_is_answered_by_the_reading_model(
    with_reader: Orchestrator, llm: FakeChatModel, reader: FakeChatModel, message: str, asked: str, echo: str
) -> None:
    ideas = "1. Wraps with hummus and cucumber\n2. Pasta salad with sweetcorn\n3. Cheese and crackers"
    answer, streamed = await _shown_when_said_back(with_reader, llm, reader, (message, asked, echo), ideas)
    assert "Pasta salad with sweetcorn" in answer, answer
    for shown in (answer, streamed):
        assert echo.rstrip(".!") not in shown, shown
    assert reader.prompts_for(PromptId.SYNTHESIS)


@pytest.mark.parametrize(("message", "asked", "echo"), REQUESTS)
async def test_a_request_both_models_say_back_shows_no_answer_rather_than_the_request(
    with_reader: Orchestrator, llm: FakeChatModel, reader: FakeChatModel, message: str, asked: str, echo: str
) -> None:
    answer, streamed = await _shown_when_said_back(with_reader, llm, reader, (message, asked, echo), echo)
    for shown in (answer, streamed):
        assert echo.rstrip(".!") not in shown, shown
    assert "no answer" in answer, answer


async def test_an_answer_that_opens_on_the_requests_words_is_shown_whole(
    with_reader: Orchestrator, llm: FakeChatModel, reader: FakeChatModel
) -> None:
    answer = "Some ideas for a cheap birthday party for your son: a picnic in the park, a film night."
    llm.answer(PromptId.SYNTHESIS, answer)
    streamed: list[str] = []
    result = await with_reader.handle_impulse(
        "Can you give me some ideas for a cheap birthday party for my son?",
        USER,
        "s1",
        on_token=streamed.append,
    )
    assert result.answer == answer
    assert "".join(streamed) == answer
    assert not reader.prompts_for(PromptId.SYNTHESIS)


@pytest.mark.parametrize(("message", "asked", "echo"), REQUESTS)
async def test_a_request_said_back_by_the_one_model_there_is_shows_no_answer(
    runtime: Runtime, llm: FakeChatModel, message: str, asked: str, echo: str
) -> None:
    """With one model (an endpoint serving one), nothing else can be asked: the request said
    back is still not shown."""
    _asks(llm, asked)
    llm.answer(PromptId.SYNTHESIS, echo)
    result = await runtime.orchestrator.handle_impulse(message, USER, "s1")
    assert echo.rstrip(".!") not in result.answer, result.answer
    assert "no answer" in result.answer, result.answer
    assert len(llm.prompts_for(PromptId.SYNTHESIS)) == 1
