"""A large import leaves its vectors to the background (issue 22: a 45,000-line import ran at the
embedding model's ~20 turns/s): the turns are stored and found by their words at once, `memory
check` counts their vectors as pending (not missing), and the service's catch-up computes them
with the store's own embedder while it yields to the user. Real embedded engines and MiniLM."""

from __future__ import annotations

import json
import time
from pathlib import Path

import thea
from services.knowledge.history_formats import parse_history_text
from services.knowledge.importer import import_history
from services.recall.cascade import RecallService
from services.recall.types import RecallQuery
from tests.processes import wait_for
from thea.config import load_settings
from thea.llm.scheduler import LocalForegroundGate
from thea.memory.consistency import check, repair
from thea.models import Collection
from thea.runtime import Runtime
from workers.vector_catch_up import VectorCatchUp

TRIPS = [
    "We took the night train to Ljubljana and missed the castle tour.",
    "My brother Tobias repairs vintage accordions in his garage.",
    "The bakery on Kestrel Road sells rye bread only on Thursdays.",
]


def history(count: int) -> str:
    lines = [
        {
            "speaker": "Ana" if i % 2 else "Ben",
            "text": TRIPS[i % 3] if i < 3 else f"Message {i} about trip {i}.",
        }
        for i in range(count)
    ]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def vectors(rt: Runtime) -> int:
    return rt.memory.vectors.count(Collection.EXPERIENCE)


def test_an_import_that_embeds_later_is_found_by_words_and_checked_as_pending(runtime: Runtime) -> None:
    conversations = parse_history_text(history(120), "trips.jsonl", "jsonl")
    result = import_history(runtime.memory, conversations, "ana", embed_later=True)
    assert (result.turns, result.vectors_pending) == (120, 120)
    assert vectors(runtime) == 0
    assert runtime.memory.stats()["graph"]["DialogueTurn"] == 120
    assert runtime.memory.stats()["chronicle"]["events"] >= 120

    # found by its words before any vector exists
    hits = RecallService(runtime.memory).recall_sync(
        RecallQuery(texts=["Who repairs accordions?"], user_id="ana")
    )
    top = runtime.memory.get([hits.hits[0].id])[0]
    assert "accordions" in top.content

    before = check(runtime.memory)
    assert before.ok, before.found
    assert before.pending_vectors >= 120  # the turns, and the concepts they made
    pending = runtime.memory.pending_vectors()
    assert pending == before.pending_vectors
    assert repair(runtime.memory).total_repaired == 0  # pending is left to the background

    while runtime.memory.embed_pending(50):
        pass
    assert runtime.memory.pending_vectors() == 0
    assert vectors(runtime) == 120
    after = check(runtime.memory)
    assert after.ok
    assert after.pending_vectors == 0
    # and now found by meaning too, with the vectors of the same embedder
    near = runtime.memory.search("accordion repair workshop", flt=None, limit=1)
    assert "accordions" in near[0].text


def test_the_catch_up_waits_while_a_cycle_holds_the_model_and_then_embeds_everything(
    runtime: Runtime,
) -> None:
    conversations = parse_history_text(history(80), "trips.jsonl", "jsonl")
    import_history(runtime.memory, conversations, "ana", embed_later=True)
    waiting = runtime.memory.pending_vectors()
    gate = LocalForegroundGate()
    gate.enter("a cycle")
    catch_up = VectorCatchUp(runtime.memory, gate, batch=16, idle_s=0.2).start()
    try:
        catch_up.wake()
        time.sleep(1.5)
        assert runtime.memory.pending_vectors() == waiting  # nothing while the user is answered
        gate.leave("a cycle")
        wait_for(lambda: runtime.memory.pending_vectors() == 0, 60, "the catch-up")
    finally:
        catch_up.stop()
    assert vectors(runtime) == 80
    assert catch_up.done == waiting


def test_a_large_import_through_the_service_returns_before_its_vectors_and_they_catch_up(
    tmp_path: Path,
) -> None:
    settings = load_settings(
        "embedded",
        data_dir=tmp_path / "data",
        llm={"provider": "fake"},
        embedding={"background_import_over": 50},
    )
    with thea.Client(settings=settings) as client:
        small = client.import_history(history(40), "jsonl", "small.jsonl")
        assert small.vectors_pending == 0  # a small import embeds as it writes
        assert client.memory_stats().vectors["experience"] == 40
        large = client.import_history(history(300), "jsonl", "large.jsonl")
        assert (large.turns, large.vectors_pending) == (300, 300)
        wait_for(lambda: client.status().vectors_pending == 0, 120, "the vectors to catch up")
        assert client.memory_stats().vectors["experience"] == 340
        client.stop_service()
