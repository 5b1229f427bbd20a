"""The whole-conversation baseline of benchmarks/locomo_qa.py sends the latest turns that fit
the model's window, counted on the prompt as rendered (quoted, dated), not on the bare turns."""

from __future__ import annotations

from pathlib import Path

from benchmarks.locomo_data import Conversation, Turn
from benchmarks.locomo_qa import ConversationRun, RunConfig
from services.common.tokens import cautious_tokens
from services.prompts import synthesis as answer_prompt
from thea.config import load_settings
from thea.llm.fake import FakeChatModel


def long_conversation(turns: int = 1500) -> Conversation:
    lines = [
        "On 12 May 2023 I ran 5 km in 31:20, then met Ana at 7:45 p.m.; we said hi.",
        "Did you? Great! My sister's dog, Biscuit, turned 3 on 2023-05-09.",
        "I paint on Sundays. Last week I finished a sunset over the lake, 40x60 cm.",
    ]
    return Conversation(
        sample_id="conv-long",
        turns=[
            Turn(
                dia_id=f"D{i // 20 + 1}:{i % 20 + 1}",
                speaker="Caroline" if i % 2 else "Melanie",
                text=lines[i % 3],
                session=i // 20 + 1,
                time_ms=1_683_900_000_000 + i * 60_000,
            )
            for i in range(turns)
        ],
        questions=[],
    )


def test_the_whole_conversation_prompt_fits_the_window_as_rendered(tmp_path: Path) -> None:
    settings = load_settings("embedded", data_dir=tmp_path / "data", llm={"provider": "fake"})
    config = RunConfig(max_answer_tokens=128)
    conv = long_conversation()
    run = ConversationRun(conv, settings, FakeChatModel(), config)
    question = "When did Melanie run 5 km?"
    refs = run.whole_conversation(question)
    rendered = sum(cautious_tokens(str(m.content)) for m in answer_prompt.build(question, refs))
    room = settings.llm.context_window - config.max_answer_tokens - 64
    assert rendered <= room
    assert rendered > room * 0.8  # and it still uses most of the window
    assert refs[-1].source_id == run.item(conv.turns[-1]).source_id  # the latest turns, in order
    one_more = run.item(conv.turns[-len(refs) - 1])
    longer = answer_prompt.build(question, [one_more, *refs])
    assert sum(cautious_tokens(str(m.content)) for m in longer) > room
