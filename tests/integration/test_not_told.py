"""A question about the user that nothing remembered bears on gets "I don't know", not a guess
(issue 13, "nothing is invented"); real engines and the real embedder, scripted model."""

from __future__ import annotations

from thea.llm.fake import FakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime

TOLD = [
    "My name is Ana Lindqvist.",
    "I work as a nurse at St Olav hospital.",
    "I have a grey cat named Pepper.",
]


async def tell(runtime: Runtime) -> None:
    for said in TOLD:
        await runtime.orchestrator.handle_impulse(said, "ana", "tell")


async def test_a_question_about_something_never_said_is_not_answered_by_the_model(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    await tell(runtime)
    llm.calls.clear()
    result = await runtime.orchestrator.handle_impulse("Which car do I drive?", "ana", "ask")
    assert result.answer.startswith("I don't know: you haven't told me that.")
    assert "“car”" in result.answer
    assert llm.prompts_for(PromptId.SYNTHESIS) == []
    assert result.response_id is not None  # an answer like any other (feedback, trace)
    # asking again: the earlier question and thea's own answer are no evidence
    again = await runtime.orchestrator.handle_impulse("Which car do I drive?", "ana", "ask")
    assert again.answer.startswith("I don't know")


async def test_questions_answered_from_memory_and_general_questions_still_reach_the_model(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    await tell(runtime)
    # what was told reaches the model with the question (the statements, before the slow loop
    # read them into claims), never "I don't know"
    for question, told in (("What is my cat called?", "Pepper"), ("What is my job?", "nurse")):
        llm.calls.clear()
        result = await runtime.orchestrator.handle_impulse(question, "ana", "ask")
        assert not result.answer.startswith("I don't know"), question
        assert told in plain_text(llm.prompts_for(PromptId.SYNTHESIS)[-1][:1]), question
        assert result.recalled_ids, question  # the trace shows the memory it was given
    # the rest reaches the model
    for question in ("Does my cat like the snow, do you think?", "What is the capital of France?"):
        llm.calls.clear()
        result = await runtime.orchestrator.handle_impulse(question, "ana", "ask")
        assert result.answer == "Here is my answer.", question
        assert len(llm.prompts_for(PromptId.SYNTHESIS)) == 1, question
