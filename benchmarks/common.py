"""Shared helpers of the benchmarks: fresh memories in temp dirs, timing, result files, tables."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from rich.console import Console
from rich.table import Table

from services.knowledge import importer
from thea.config import Settings, load_settings
from thea.memory.factory import open_memory
from thea.memory.universal import UniversalMemory
from thea.models import Node

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "benchmarks" / "results"
console = Console(width=None if sys.stdout.isatty() else 140)

_shared_embedder: Embeddings | None = None


def shared_embedder() -> Embeddings:
    """One offline MiniLM for the whole process (loaded once, shared by every memory)."""
    global _shared_embedder
    if _shared_embedder is None:
        from thea.memory.embeddings import MiniLMEmbeddings

        _shared_embedder = MiniLMEmbeddings()
        _shared_embedder.embed_query("warm up")
    return _shared_embedder


def use_embed_cache(folder: Path) -> None:
    """From now on the shared embedder takes document vectors from a disk cache in ``folder``
    (benchmarks/embed_cache.py): a rerun does not embed the same texts again."""
    global _shared_embedder
    from benchmarks.embed_cache import CachedEmbeddings

    inner = shared_embedder()
    if not isinstance(inner, CachedEmbeddings):
        _shared_embedder = CachedEmbeddings(inner, folder, "minilm")


def embedding_saved_s(embedder: Embeddings | None = None) -> float:
    """Seconds of embedding a cached embedder saved since the last call (0 without a cache):
    added to an index time so that it reads as if every vector had been computed."""
    from benchmarks.embed_cache import CachedEmbeddings

    target = embedder if embedder is not None else _shared_embedder
    return target.take_saved() if isinstance(target, CachedEmbeddings) else 0.0


def bench_settings(data_dir: Path, dimension: int | None = None) -> Settings:
    """Embedded settings with the fake LLM; ``dimension``: the vector size of another embedder
    than MiniLM's 384 (the vector collections are created with it)."""
    if dimension is None:
        return load_settings("embedded", data_dir=data_dir, llm={"provider": "fake"})
    return load_settings(
        "embedded", data_dir=data_dir, llm={"provider": "fake"}, embedding={"dimension": dimension}
    )


@contextmanager
def fresh_stack(
    prefix: str = "thea-bench-", dimension: int | None = None
) -> Iterator[tuple[Settings, UniversalMemory]]:
    """Settings and a new embedded thea memory (own FalkorDB child, Qdrant Edge, SQLite) in a
    temp dir, sharing the process's MiniLM. The FalkorDB child is stopped and the folder
    removed on exit, even on error."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        settings = bench_settings(Path(tmp) / "data", dimension)
        memory = open_memory(settings)
        try:
            embedder = shared_embedder()
            memory.embedder = embedder
            chunk = getattr(embedder, "chunk_text", None)
            if chunk is not None:
                memory.chunker = chunk
            yield settings, memory
        finally:
            memory.close()


@contextmanager
def fresh_memory(prefix: str = "thea-bench-", dimension: int | None = None) -> Iterator[UniversalMemory]:
    """A new embedded thea memory in a temp dir (see :func:`fresh_stack`); ``dimension``: of
    the embedder that will replace the shared MiniLM, when it is not 384."""
    with fresh_stack(prefix, dimension) as (_, memory):
        yield memory


def record_with_concepts(
    memory: UniversalMemory, nodes: Sequence[Node], texts: Sequence[str] | None = None, batch: int = 200
) -> None:
    """memory.record in batches, each node linked to the concepts of its text (the importer's path)."""
    importer.record_with_concepts(memory, nodes, texts, batch=batch)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    if q <= 0:
        return float(min(values))
    if q >= 100:
        return float(max(values))
    return float(cuts[int(q) - 1])


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }


def stamp() -> str:
    return datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")


def write_json(data: dict[str, Any], name: str, out_dir: Path | None = None, when: str | None = None) -> Path:
    folder = out_dir or RESULTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{when or stamp()}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


def ratio(ours: float | None, raw: float | None) -> float | None:
    if ours is None or raw is None or raw == 0:
        return None
    return ours / raw


def row(metric: str, ours: float, raw: float | None, unit: str, note: str = "") -> dict[str, Any]:
    """One result line: our figure, the raw baseline measured in the same run, their ratio."""
    return {"metric": metric, "ours": ours, "raw": raw, "ratio": ratio(ours, raw), "unit": unit, "note": note}


def fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def result_table(result: dict[str, Any]) -> Table:
    table = Table(title=f"{result['name']} ({'quick' if result.get('quick') else 'full'})")
    for header, justify in (
        ("metric", "left"),
        ("thea", "right"),
        ("raw baseline", "right"),
        ("ratio", "right"),
        ("unit", "left"),
        ("note", "left"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for line in result.get("rows", []):
        r = line.get("ratio")
        table.add_row(
            line["metric"],
            fmt(line["ours"]),
            fmt(line.get("raw")),
            f"{r:.2f}x" if r is not None else "-",
            line.get("unit", ""),
            line.get("note", ""),
        )
    return table


def standalone_main(
    name: str, run: Callable[[bool], dict[str, Any]], doc: str | None, full_help: str
) -> None:
    """The ``python -m benchmarks.<name> [--full]`` entry of one benchmark module."""
    import argparse

    parser = argparse.ArgumentParser(description=(doc or name).splitlines()[0])
    parser.add_argument("--full", action="store_true", help=full_help)
    args = parser.parse_args()
    result = run(not args.full)
    console.print(result_table(result))
    console.print(f"results: {write_json(result, name)}")
