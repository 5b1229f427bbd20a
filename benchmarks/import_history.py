"""Import speed: a generated JSONL of chat messages through thea's importer, in turns per second.

``python -m benchmarks import --full`` writes a 45,000-line JSONL (about 10 MB: a message of one
to three sentences per line, ~220 bytes, as in issue 22's attack; generated here, never stored),
parses and validates it as ``thea import`` does, and imports it into a fresh embedded memory
with the default embedder (offline MiniLM), through ``services.knowledge.importer.import_history``:
the path the service's ``/api/v1/import`` runs, with its checkpoint after every batch. ``--quick``
(the default) uses 3,000 lines. ``python -m benchmarks.import_history --lines N`` picks any size.

What the service does for an import of more than ``embedding.background_import_over`` turns is
measured: the turns are written with their vectors left to the background (``embed_later``);
then the catch-up (``workers.vector_catch_up.catch_up_window``, what the service's background
thread runs: windows of 512 waiting memories, shortest first, 32 at a time) is timed until no
vector waits: the time until the import is recallable by
meaning too. ``--inline`` measures the import that embeds as it writes instead (small imports).

Raw baseline: the embedding model alone, on the same texts the importer embeds (a turn and the
turn it replies to), for a sample of 2,000 of them, measured in the same run: the floor of any
import that embeds each turn. The ratio of the catch-up to it is what the graph reads and writes
around the embedding add.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from benchmarks import synthetic
from benchmarks.common import console, fresh_stack, result_table, row, shared_embedder, write_json
from services.knowledge.history_formats import parse_history_text
from services.knowledge.import_checkpoints import file_checkpoint
from services.knowledge.importer import import_history, turn_nodes
from workers.vector_catch_up import catch_up_window

QUICK_LINES = 3_000
FULL_LINES = 45_000
RAW_SAMPLE = 2_000
SPEAKERS = ("user", "assistant")


def history_jsonl(lines: int, *, seed: int = 5) -> str:
    """``lines`` messages of two speakers, one a minute, sessions of 40 messages."""
    rng = random.Random(seed)
    pool = synthetic.sentences(5_000, seed=seed)
    start = 1_700_000_000
    out = []
    for i in range(lines):
        text = " ".join(rng.choice(pool) for _ in range(rng.choice((1, 1, 2, 2, 3))))
        row_ = {"role": SPEAKERS[i % 2], "content": text, "time": start + 60 * i, "session": f"s{i // 40}"}
        out.append(json.dumps(row_))
    return "\n".join(out) + "\n"


def measure(lines: int, *, inline: bool = False) -> dict[str, Any]:
    text = history_jsonl(lines)
    embedder = shared_embedder()
    with fresh_stack(prefix="thea-bench-import-") as (settings, memory):
        started = time.perf_counter()
        conversations = parse_history_text(text, "history.jsonl", "jsonl")
        parse_s = time.perf_counter() - started
        checkpoint = file_checkpoint(settings.data_dir, "bench", text, "jsonl", "history.jsonl")
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if now - last[0] >= 30 or done == total:
                last[0] = now
                rate = done / max(now - started, 1e-9)
                console.print(f"  {done:,} / {total:,} turns, {rate:,.0f} turns/s so far")

        result = import_history(
            memory, conversations, "bench", progress=progress, checkpoint=checkpoint, embed_later=not inline
        )
        total_s = time.perf_counter() - started
        waiting = memory.pending_vectors()
        caught_started = time.perf_counter()
        while catch_up_window(memory):
            pass
        catch_up_s = time.perf_counter() - caught_started
        stats = memory.stats()
        sample = [t.node.embedding_text() or "" for t in turn_nodes(conversations[0], "bench")]
        sample = sample[:RAW_SAMPLE]
        raw_started = time.perf_counter()
        embedder.embed_documents(sample)
        raw_per_turn = (time.perf_counter() - raw_started) / len(sample)
    ours_per_turn = total_s / result.turns
    how = "vectors inline" if inline else "vectors in the background"
    rows = [
        row(
            f"import of a {lines:,}-line JSONL ({len(text.encode()) / 1e6:.1f} MB), {how}",
            ours_per_turn * 1000,
            raw_per_turn * 1000,
            "ms/turn",
            f"{1 / ours_per_turn:,.0f} turns/s; embedding alone {1 / raw_per_turn:,.0f} turns/s",
        )
    ]
    if waiting:
        per_turn = catch_up_s / result.turns
        rows.append(
            row(
                f"background catch-up: {waiting:,} vectors (turns and their concepts)",
                per_turn * 1000,
                raw_per_turn * 1000,
                "ms/turn",
                f"{1 / per_turn:,.0f} turns/s; {catch_up_s:,.0f} s until every vector is in",
            )
        )
    return {
        "name": "import",
        "params": {"lines": lines, "bytes": len(text.encode()), "raw_sample": len(sample), "inline": inline},
        "turns": result.turns,
        "parse_s": round(parse_s, 2),
        "total_s": round(total_s, 1),
        "catch_up_s": round(catch_up_s, 1),
        "pending_after_import": waiting,
        "stored": {
            "turns": stats["graph"].get("DialogueTurn", 0),
            "vectors": stats["vectors"]["experience"],
            "events": stats["chronicle"]["events"],
        },
        "rows": rows,
    }


def run(quick: bool) -> dict[str, Any]:
    return measure(QUICK_LINES if quick else FULL_LINES)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=FULL_LINES, help="lines of the generated JSONL")
    parser.add_argument("--inline", action="store_true", help="embed as the import writes (small imports)")
    args = parser.parse_args(argv)
    result = measure(args.lines, inline=args.inline)
    console.print(result_table(result))
    console.print(f"results: {write_json(result, 'import')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
