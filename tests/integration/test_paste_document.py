"""A large paste is stored as a document and cannot dominate later recall (issue 13, item 4).

Real engines and the real embedder, scripted model; a 200 KB paste of junk prose.
"""

from __future__ import annotations

import random

from langchain_core.messages import HumanMessage

from services.common.limits import DOCUMENT_CHUNK_CHARS, DOCUMENT_SUMMARY_CHARS, MAX_EMBEDDED_CHUNKS
from services.cycle.recall_step import RecallStep
from services.recall.types import RecallQuery
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.models import DocumentChunk, UserImpulse
from thea.runtime import Runtime

TOLD = [
    "My name is Ana Lindqvist.",
    "I work as a nurse at St Olav hospital in Trondheim.",
    "I have a grey cat named Pepper.",
    "I play the cello in a small orchestra on Thursdays.",
    "My husband Erik is a carpenter.",
    "I am building a wooden sailing boat called Sjobris.",
]
#: questions about what was told, none about the paste
UNRELATED = [
    "What is my cat called?",
    "Where do I work?",
    "What instrument do I play?",
    "What does my husband do?",
    "What boat am I building?",
]
#: the paste's words: nature junk, and some words the questions use (a worst case for keywords)
VOCABULARY = [
    "tideurchin",
    "corgi",
    "otter",
    "heron",
    "kelp",
    "tide",
    "shoal",
    "reef",
    "drift",
    "gull",
    "lantern",
    "moss",
    "fern",
    "basalt",
    "cat",
    "work",
    "play",
    "boat",
    "name",
    "husband",
    "instrument",
    "build",
    "orchestra",
    "nurse",
]
NOTE = "Field note: the tideurchin colony on Skarv island moved north in March after the storm."


def junk(chars: int = 200_000, seed: int = 13) -> str:
    rng = random.Random(seed)
    sentences: list[str] = []
    size = 0
    while size < chars:
        words = [rng.choice(VOCABULARY) for _ in range(rng.randint(6, 14))]
        sentence = " ".join(words).capitalize() + "."
        sentences.append(sentence)
        size += len(sentence) + 1
        if len(sentences) == 900:
            sentences.append(NOTE)
    text = " ".join(sentences)
    return text[: chars - 1] + "."


async def test_a_200_kb_paste_is_stored_as_a_document_and_acknowledged(
    runtime: Runtime, llm: FakeChatModel
) -> None:
    text = junk()
    assert len(text) == 200_000
    result = await runtime.orchestrator.handle_impulse(text, "ana", "s1")
    assert result.failed_steps == []
    assert result.answer.startswith("Stored your 200 KB paste as a document with ")
    assert len(result.answer) < 500  # an acknowledgement, not an echo
    assert llm.prompts_for(PromptId.SYNTHESIS) == []
    (impulse,) = runtime.memory.get([result.impulse_id])
    assert isinstance(impulse, UserImpulse)
    assert impulse.document_id is not None
    assert impulse.content.startswith("[pasted document ")
    assert len(impulse.content) < DOCUMENT_SUMMARY_CHARS + 120
    chunks = runtime.memory.document_chunks(impulse.document_id, "ana")
    assert f"with {len(chunks)} chunks" in result.answer
    assert "".join(c.content for c in chunks) == text  # stored verbatim, in its chunks
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert all(text[c.char_start : c.char_end] == c.content for c in chunks)
    assert all(len(c.content) <= DOCUMENT_CHUNK_CHARS for c in chunks)
    assert runtime.memory.document_chunks(impulse.document_id, "bob") == []  # never another user's
    # every prompt carried the summary, never the paste
    longest = max(
        (len(str(m.content)) for c in llm.calls for m in c.messages if isinstance(m, HumanMessage)), default=0
    )
    assert longest < 1_500
    assert runtime.orchestrator.context.exchanges("ana", "s1")[0].question == impulse.content
    # some chunks, evenly spread, are embedded (all are in the full-text index: recall test)
    embedded = [c for c in chunks if c.embedded]
    assert len(embedded) == min(MAX_EMBEDDED_CHUNKS, len(chunks))
    assert chunks[0].embedded
    assert chunks[-1].embedded
    found = runtime.memory.search(chunks[-1].content, limit=3)
    assert found[0].id == chunks[-1].id


async def test_a_paste_cannot_dominate_later_recall(runtime: Runtime) -> None:
    for said in TOLD:
        await runtime.orchestrator.handle_impulse(said, "ana", "tell")
    paste = await runtime.orchestrator.handle_impulse(junk(), "ana", "paste")
    step = runtime.orchestrator.steps[2]
    assert isinstance(step, RecallStep)

    async def top5(question: str) -> list[str]:
        result = await step.recaller.recall(RecallQuery(texts=[question], user_id="ana", limit=5))
        return [h.id for h in result.hits]

    (impulse,) = runtime.memory.get([paste.impulse_id])
    assert isinstance(impulse, UserImpulse)
    from_paste = {paste.impulse_id} | {
        c.id for c in runtime.memory.document_chunks(str(impulse.document_id), "ana")
    }
    for question in UNRELATED:
        top = await top5(question)
        assert top, question
        assert not from_paste & set(top), question
    # a question about the paste finds it, as one hit
    top = await top5("Where did the tideurchin colony on Skarv island move?")
    in_top = [runtime.memory.get([i])[0] for i in top if i in from_paste]
    assert len(in_top) == 1
    assert isinstance(in_top[0], DocumentChunk)
    assert "Skarv" in in_top[0].content
