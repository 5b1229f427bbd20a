"""End-to-end answers on LoCoMo-format conversations: does thea's memory make answers better?

For each conversation: a fresh embedded thea memory; the turns go in through thea's
importer (``thea import``'s code: dated dialogue turns linked to their concepts). Every
question is then asked through thea's real cycle (``Orchestrator.handle_impulse``:
instinct, plan, recall, synthesis with the configured model; each question in its own
session, so no chat history carries over) and scored against the gold answer with the
LoCoMo paper's token F1 and exact match (benchmarks/qa_metrics.py), per category.

Baselines in the same run use the same model and the same answer prompt (thea's
synthesis prompt, memories in its reference block, dated the same way):

- no memory: an empty reference block;
- BM25 top-10 turns and dense (MiniLM cosine) top-10 turns, packed into the same token
  budget thea's synthesis gets;
- the whole conversation, the latest turns that fit the model's context window.

A question's own cycle writes its impulse and answer into memory; later questions are
kept from recalling those (they would recall earlier benchmark questions, not the
conversation), so each question sees the imported conversation only.

Data: LoCoMo, Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
Agents", ACL 2024 (snap-research/locomo). Run ``python benchmarks/locomo_qa.py --quick``
(see docs/benchmarks.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmarks.common import RESULTS_DIR, console, machine, stamp
from benchmarks.locomo_baselines import BM25Baseline, DenseBaseline
from benchmarks.locomo_data import CATEGORIES, Conversation, Question, Turn, default_data, load_conversations
from benchmarks.qa_judge import Judge, build_judge
from benchmarks.qa_metrics import score_answer
from benchmarks.qa_report import print_report, summarise, write_results
from services.common.llm_calls import ask_text
from services.common.tokens import cautious_tokens
from services.cycle.answer_inputs import reference_item
from services.cycle.budget import pack, recall_budget
from services.cycle.orchestrator import Orchestrator
from services.cycle.recall_step import Recaller, RecallStep
from services.knowledge.importer import import_history, turn_id
from services.prompts import ReferenceItem
from services.prompts import synthesis as answer_prompt
from services.recall.types import ALL_STAGES, RecallQuery, RecallResult, Stage
from thea.config import Settings, load_settings
from thea.llm.factory import build_chat_model
from thea.memory.factory import open_memory
from thea.runtime.assembly import build_orchestrator

DEFAULT_DATA = default_data()
METHODS = ("thea", "no memory", "BM25 top-10", "dense top-10", "full conversation")
TOP_K = 10
QUICK_PER_CATEGORY = 4


@dataclass
class Answer:
    sample_id: str
    question: str
    category: str
    gold: str
    method: str
    prediction: str
    f1: float
    em: float
    seconds: float
    #: share of the question's evidence turns that were in the prompt (None: no evidence)
    evidence_in_prompt: float | None
    judge: float | None = None
    error: str | None = None


@dataclass
class RunConfig:
    model: str = "local"
    methods: tuple[str, ...] = METHODS
    max_answer_tokens: int = 128
    #: per model call; generous, so a slow or busy machine still answers (the cycle's own default is 120 s)
    timeout_s: float = 600.0
    model_dir: Path = RESULTS_DIR / "model-cache"
    judge: Judge | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class KeepOut:
    """Recall that never returns the benchmark's own earlier questions and answers."""

    def __init__(self, inner: Recaller) -> None:
        self.inner = inner
        self.ids: set[str] = set()

    async def recall(self, query: RecallQuery, stages: frozenset[Stage] = ALL_STAGES) -> RecallResult:
        query = query.model_copy(update={"exclude_ids": [*query.exclude_ids, *self.ids]})
        return await self.inner.recall(query, stages)


def select_questions(
    conv: Conversation, per_category: int | None, limit: int | None, categories: Sequence[str] | None
) -> list[Question]:
    """Questions to ask: all, or ``per_category`` spread evenly over each category, then ``limit``."""
    chosen = [q for q in conv.questions if not categories or q.category in categories]
    if per_category:
        picked: list[Question] = []
        for name in CATEGORIES.values():
            group = [q for q in chosen if q.category == name]
            if group:
                step = len(group) / min(per_category, len(group))
                picked += [group[int(i * step)] for i in range(min(per_category, len(group)))]
        chosen = [q for q in conv.questions if any(q is p for p in picked)]
    return chosen[:limit] if limit else chosen


def model_settings(config: RunConfig, data_dir: Path) -> Settings:
    return load_settings(
        "embedded",
        data_dir=data_dir,
        llm={
            "provider": config.model,
            "max_output_tokens": config.max_answer_tokens,
            "timeout_s": config.timeout_s,
        },
    )


class ConversationRun:
    """One conversation: its memory, its baselines, every method on every chosen question."""

    def __init__(self, conv: Conversation, settings: Settings, llm: BaseChatModel, config: RunConfig) -> None:
        self.conv = conv
        self.settings = settings
        self.llm = llm
        self.config = config
        self.user_id = f"locomo:{conv.sample_id}"
        self.budget = recall_budget(
            settings.llm.context_window, settings.context.recall_share, settings.context.recall_cap_tokens
        )
        self.by_dia = {t.dia_id: t for t in conv.turns}

    def item(self, turn: Turn) -> ReferenceItem:
        node_id = turn_id(self.user_id, self.conv.sample_id, turn.dia_id)
        return reference_item(node_id, "DialogueTurn", turn.document, turn.time_ms)

    def top_k_items(self, ranked: list[str]) -> list[ReferenceItem]:
        items = [self.item(self.by_dia[d]) for d in ranked[:TOP_K]]
        return pack(items, [i.text for i in items], self.budget)

    def whole_conversation(self, question: str) -> list[ReferenceItem]:
        """The latest turns whose *rendered* prompt fits the context window beside the answer.

        Counted on the prompt as the model gets it (each turn quoted sentence by sentence, with
        its date), cautiously (services.common.tokens.cautious_tokens over-counts prose ~1.3x): counting
        the turns' bare text let a ~6k-token prompt through to a 4,096-token window."""
        room = self.settings.llm.context_window - self.config.max_answer_tokens - 64
        items = [self.item(t) for t in self.conv.turns]

        def fits(count: int) -> bool:
            messages = answer_prompt.build(question, items[len(items) - count :])
            return sum(cautious_tokens(str(m.content)) for m in messages) <= room

        low, high = 0, len(items)  # fits(low) holds; find the largest count that fits
        while low < high:
            middle = (low + high + 1) // 2
            if fits(middle):
                low = middle
            else:
                high = middle - 1
        return items[len(items) - low :] if low else []

    async def ask(self, question: str, refs: list[ReferenceItem]) -> str:
        messages = answer_prompt.build(question, refs)
        text, _ = await ask_text(
            self.llm, messages, answer_prompt.PROMPT, timeout_s=self.settings.llm.timeout_s
        )
        return text.strip()

    def evidence_share(self, question: Question, dia_ids: set[str]) -> float | None:
        if not question.evidence:
            return None
        return sum(1 for e in question.evidence if e in dia_ids) / len(question.evidence)

    async def run(self, questions: list[Question], progress: Progress, task: Any) -> list[Answer]:
        memory = open_memory(self.settings)
        try:
            assert self.conv.history is not None
            import_history(memory, [self.conv.history], self.user_id)
            node_to_dia = {turn_id(self.user_id, self.conv.sample_id, d): d for d in self.by_dia}
            orchestrator = build_orchestrator(self.settings, memory, self.llm)
            keep_out = self._keep_out(orchestrator)
            bm25 = BM25Baseline(self.conv.turns) if "BM25 top-10" in self.config.methods else None
            dense = DenseBaseline(self.conv.turns) if "dense top-10" in self.config.methods else None
            answers: list[Answer] = []
            # method by method: consecutive whole-conversation prompts share their prefix (llama.cpp
            # reuses its cache), which keeps that baseline affordable on a CPU
            for method in self.config.methods:
                for index, question in enumerate(questions):
                    progress.update(task, description=f"{self.conv.sample_id}: {method}")
                    started = time.perf_counter()
                    error = None
                    seen: set[str] = set()
                    try:
                        if method == "thea":
                            result = await orchestrator.handle_impulse(
                                question.question, self.user_id, f"qa-{index}"
                            )
                            keep_out.ids.update(
                                i for i in (result.impulse_id, result.response_id) if i is not None
                            )
                            prediction = result.answer
                            seen = {node_to_dia[i] for i in result.recalled_ids if i in node_to_dia}
                            if result.failed_steps:
                                error = f"failed steps: {', '.join(result.failed_steps)}"
                        else:
                            refs = self._references(method, question.question, bm25, dense)
                            prediction = await self.ask(question.question, refs)
                            seen = {self._dia_of(r.source_id, node_to_dia) for r in refs}
                    except Exception as exc:  # one failed answer must not end the run
                        prediction, error = "", f"{type(exc).__name__}: {exc}"
                    scores = score_answer(prediction, question.answer, question.category_id)
                    answer = Answer(
                        sample_id=self.conv.sample_id,
                        question=question.question,
                        category=question.category,
                        gold=question.answer,
                        method=method,
                        prediction=prediction,
                        f1=scores["f1"],
                        em=scores["em"],
                        seconds=time.perf_counter() - started,
                        evidence_in_prompt=self.evidence_share(question, seen),
                        error=error,
                    )
                    if self.config.judge is not None:
                        answer.judge = await self.config.judge.grade(question, prediction)
                    answers.append(answer)
                    progress.advance(task)
                    if not progress.console.is_terminal:  # a log file gets one line per answer
                        progress.console.print(
                            f"{self.conv.sample_id} {method} [{question.category}] f1={answer.f1:.2f} "
                            f"{answer.seconds:.1f}s: {prediction[:80]!r}",
                            markup=False,
                        )
            return answers
        finally:
            memory.close()

    @staticmethod
    def _dia_of(node_id: str, node_to_dia: dict[str, str]) -> str:
        return node_to_dia.get(node_id, node_id)

    @staticmethod
    def _keep_out(orchestrator: Orchestrator) -> KeepOut:
        step = next(s for s in orchestrator.steps if isinstance(s, RecallStep))
        keep_out = KeepOut(step.recaller)
        step.recaller = keep_out
        return keep_out

    def _references(
        self, method: str, question: str, bm25: BM25Baseline | None, dense: DenseBaseline | None
    ) -> list[ReferenceItem]:
        if method == "no memory":
            return []
        if method == "BM25 top-10" and bm25 is not None:
            return self.top_k_items(bm25.rank(question))
        if method == "dense top-10" and dense is not None:
            return self.top_k_items(dense.rank(question))
        if method == "full conversation":
            return self.whole_conversation(question)
        raise ValueError(f"unknown method {method!r}")


def run_qa(
    data: Path,
    out_dir: Path = RESULTS_DIR,
    *,
    config: RunConfig | None = None,
    quick: bool = False,
    per_category: int | None = None,
    limit: int | None = None,
    limit_conversations: int | None = None,
    categories: Sequence[str] | None = None,
) -> dict[str, Any]:
    config = config or RunConfig()
    if not data.is_file():
        raise SystemExit(f"LoCoMo data file not found: {data} (pass --data PATH)")
    started = time.perf_counter()
    conversations = load_conversations(data)
    if quick:
        limit_conversations = limit_conversations or 1
        per_category = per_category or QUICK_PER_CATEGORY
    conversations = conversations[:limit_conversations] if limit_conversations else conversations
    plan = [(c, select_questions(c, per_category, limit, categories)) for c in conversations]
    console.print(f"loading the {config.model} model ...")
    llm = build_chat_model(model_settings(config, config.model_dir), progress=False)
    total = sum(len(qs) for _, qs in plan) * len(config.methods)
    answers: list[Answer] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("LoCoMo QA", total=total)
        for conv, questions in plan:
            with tempfile.TemporaryDirectory(prefix="thea-locomo-qa-") as tmp:
                settings = model_settings(config, Path(tmp) / "data")
                run = ConversationRun(conv, settings, llm, config)
                answers += asyncio.run(run.run(questions, progress, task))
    elapsed = time.perf_counter() - started
    summary = summarise([asdict(a) for a in answers], config.methods)
    result: dict[str, Any] = {
        "name": "locomo_qa",
        "quick": quick,
        "timestamp": stamp(),
        "data": {"file": str(data), "source": "LoCoMo, Maharana et al. 2024 (snap-research/locomo)"},
        "model": config.model,
        "max_answer_tokens": config.max_answer_tokens,
        "judge": config.judge.name if config.judge else None,
        "machine": machine(),
        "elapsed_s": round(elapsed, 1),
        "questions": sum(len(qs) for _, qs in plan),
        "methods": summary,
        "rows": [
            {"metric": f"{name} F1", "ours": m["overall"]["f1"], "raw": None, "unit": ""}
            for name, m in summary.items()
        ],
        **config.extra,
    }
    write_results(result, [asdict(a) for a in answers], out_dir)
    print_report(result)
    return result


def run(quick: bool) -> dict[str, Any]:
    """Registry entry (python -m benchmarks locomo_qa)."""
    return run_qa(DEFAULT_DATA, quick=quick)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="thea's answers vs four baselines on LoCoMo questions")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON file")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for results")
    parser.add_argument("--model", default="local", choices=["local", "fake", "openai", "ollama"])
    parser.add_argument(
        "--quick", action="store_true", help=f"1 conversation, {QUICK_PER_CATEGORY} per category"
    )
    parser.add_argument(
        "--per-category", type=int, default=None, help="questions per category per conversation"
    )
    parser.add_argument("--limit", type=int, default=None, help="at most N questions per conversation")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--categories", nargs="*", choices=list(CATEGORIES.values()), default=None)
    parser.add_argument("--methods", nargs="*", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--max-answer-tokens", type=int, default=128)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model call")
    parser.add_argument("--model-dir", type=Path, default=RESULTS_DIR / "model-cache", help="model cache")
    parser.add_argument("--judge-url", default=None, help="OpenAI-compatible endpoint for an LLM judge")
    parser.add_argument("--judge-model", default=None, help="model name at --judge-url")
    parser.add_argument("--judge-key-env", default="OPENAI_API_KEY", help="env var holding the judge's key")
    args = parser.parse_args(argv)
    config = RunConfig(
        model=args.model,
        methods=tuple(args.methods),
        max_answer_tokens=args.max_answer_tokens,
        timeout_s=args.timeout,
        model_dir=args.model_dir,
        judge=build_judge(args.judge_url, args.judge_model, args.judge_key_env),
    )
    run_qa(
        args.data,
        args.out,
        config=config,
        quick=args.quick,
        per_category=args.per_category,
        limit=args.limit,
        limit_conversations=args.limit_conversations,
        categories=args.categories,
    )


if __name__ == "__main__":
    main()
