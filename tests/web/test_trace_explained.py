"""The trace explains the answer (issue 21, requirement 6), through the service's API: each
recalled memory with its text, type, scores and whether it reached the prompt; the prompt's id
and version, and its exact messages only when asked for (``prompts=true``)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.service_support import chat, done_of
from thea.api import PREFIX
from thea.api.models import TraceView
from thea.client import specs
from thea.llm.fake import StreamingFakeChatModel
from thea.llm.prompt_ids import PromptId


def test_a_question_after_a_statement_is_explained_and_its_prompt_shown_on_request(
    client: TestClient, llm: StreamingFakeChatModel
) -> None:
    told = done_of(chat(client, "I work on Redis queues.", session="explain"))
    # (not "What do I work on?": the fact itself answers that, no model and no prompt)
    asked = done_of(chat(client, "Which of my queues gets most traffic, do you think?", session="explain"))

    statement = client.get(f"{PREFIX}/traces/{told['impulse_id']}").json()
    assert statement["explanation"]["mode"] == "acknowledgement"  # the (fake) model's reaction was empty
    assert statement["explanation"]["prompt"]["id"] == "reply"  # the prompt it was asked

    plain = client.get(f"{PREFIX}/traces/{asked['impulse_id']}")
    assert plain.status_code == 200, plain.text
    trace = TraceView.model_validate(plain.json())
    explained = trace.explanation
    assert explained is not None
    # what was told comes back as the message itself or as the fact of record it became
    told_memory = next(m for m in explained.recalled if m.text == "I work on Redis queues.")
    assert told_memory.type in {"UserImpulse", "Fact"}
    assert told_memory.in_prompt is True
    assert told_memory.score > 0
    assert told_memory.stage_scores  # every stage that found it, with its own score
    assert set(told_memory.stage_scores) == set(told_memory.stages)
    synthesis = next(s.report for s in trace.steps if s.step == "synthesis")
    assert synthesis is not None
    in_prompt = {m.id for m in explained.recalled if m.in_prompt}
    assert in_prompt == set(synthesis.output["references"]) | set(synthesis.output.get("facts", []))
    assert explained.mode == "model"
    assert explained.prompt is not None
    assert (explained.prompt.id, explained.prompt.version) == ("synthesis", synthesis.prompt_version)
    assert explained.prompt.message_count >= 2
    # without the flag the prompt's messages are nowhere in the answer: not in the report either
    assert explained.prompt.messages is None
    assert "messages" not in synthesis.output["prompt"]
    assert "REFERENCE MEMORY" not in plain.text

    full = client.get(f"{PREFIX}/traces/{asked['impulse_id']}", params={"prompts": "true"})
    assert full.status_code == 200, full.text
    shown = TraceView.model_validate(full.json()).explanation
    assert shown is not None
    assert shown.prompt is not None
    messages = shown.prompt.messages
    assert messages is not None
    assert len(messages) == shown.prompt.message_count
    # exactly what the model was sent
    (sent,) = llm.prompts_for(PromptId.SYNTHESIS)[-1:]
    assert [(m.role, m.content) for m in messages] == [(m.type, str(m.content)) for m in sent]
    assert messages[0].role == "system"
    assert "REFERENCE MEMORY" in messages[0].content  # the recalled memory, quoted
    assert "Redis^queues" in messages[0].content or "Redis queues" in messages[0].content
    assert messages[-1].content == "Which of my queues gets most traffic, do you think?"
    # 'last' of the conversation, with the flag, gives the same
    last = client.get(f"{PREFIX}/traces/last", params={"session_id": "explain", "prompts": "true"}).json()
    assert last["explanation"]["prompt"]["messages"] == [m.model_dump() for m in messages]


def test_the_client_asks_for_prompts_only_when_told() -> None:
    assert "prompts" not in specs.trace("last", None).params
    assert specs.trace("last", None, prompts=True).params == {"prompts": "true"}
