"""Claims: how well a model reads what users tell into claims (services/knowledge/claims).

The data (``benchmarks/claims_data/claims_set.json``, format "thea claims v1") holds user
statements with the claims a careful reader finds in them and their change kinds: at least half
from conversations nobody here wrote (user turns of the LoCoMo and BEAM development files in
``../shared/data``, referenced by id: their text is read from those files at run time, never
copied here), the rest groups of paraphrases of the same news. Each statement is read by the
product's own reader on what the product's claims job gives it (the statements of the message,
questions, requests and small talk left out: ``services.common.told.statements_of``), with
:class:`services.knowledge.claims.keeper.ClaimReader` (the extraction
prompt, JSON-schema output, then the check that drops a claim whose quote is not in the message
or whose value is not in its quote), with the chosen model, in this process.

Scored per source (public: LoCoMo + BEAM; paraphrase):

* **precision**: read claims that match a gold claim / read claims;
* **recall**: gold claims matched / gold claims;
* **kind accuracy**: matched pairs whose change kind (new, replaces, ends, corrects, adds) agrees;
* **empty right**: statements with no gold claim that were read as none;
* **seconds per statement** (median, p90) and the model process's resident memory.

A read claim matches a gold claim when both are about the user, or name the same other subject
(its name, or its relation: "my sister"), and the values share their words (all of the shorter
value's content words are in the longer one, or half of both).

``python -m benchmarks.claims [--model 0.5b|1.5b|openai] [--limit N] [--source public|paraphrase]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field
from rich.table import Table

from benchmarks.common import ROOT, console, machine, percentile, write_json
from services.common.told import statements_of
from services.knowledge.claims.keeper import ClaimReader
from services.knowledge.claims.verify import plain
from services.prompts.extract_claims import ClaimOut
from services.recall.lexical import stem
from thea.models import UserImpulse
from thea.words import STOPWORDS

NAME = "claims"
DATA = ROOT / "benchmarks" / "claims_data" / "claims_set.json"
SHARED = ROOT.parent / "shared" / "data"
PUBLIC = ("locomo", "beam")


class GoldClaim(BaseModel):
    subject: str
    relation: str = ""
    attribute: str = ""
    value: str
    when: str = ""
    kind: str = "new"


class Ref(BaseModel):
    file: str
    sample_id: str
    dia_id: str


class Item(BaseModel):
    id: str
    source: str
    ref: Ref | None = None
    text: str = ""
    speaker: str = ""
    context: list[str] = Field(default_factory=list)
    group: str = ""
    claims: list[GoldClaim] = Field(default_factory=list)


def load_items(path: Path = DATA, shared: Path = SHARED) -> list[Item]:
    """The statements, with the public ones' text read from their data files."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    items = [Item.model_validate(i) for i in raw["items"]]
    turns: dict[tuple[str, str, str], str] = {}
    for name in sorted({i.ref.file for i in items if i.ref}):
        for sample in json.loads((shared / name).read_text(encoding="utf-8")):
            convo = sample["conversation"]
            for key, value in convo.items():
                if key.startswith("session_") and isinstance(value, list):
                    for turn in value:
                        turns[(name, str(sample["sample_id"]), str(turn["dia_id"]))] = str(turn["text"])
    for item in items:
        if item.ref is not None:
            item.text = turns[(item.ref.file, item.ref.sample_id, item.ref.dia_id)]
    return items


def _stems(text: str) -> set[str]:
    return {stem(w) for w in plain(text).split() if w not in STOPWORDS}


def values_match(gold: str, read: str) -> bool:
    a, b = _stems(gold), _stems(read)
    if not a or not b:
        return plain(gold) == plain(read)
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return small <= large or len(a & b) >= 0.5 * max(len(a), len(b))


def subjects_match(gold: GoldClaim, read: ClaimOut) -> bool:
    gold_user = plain(gold.subject) in ("user", "i", "me") or plain(gold.relation) == "self"
    read_user = plain(read.subject) == "user"
    if gold_user or read_user:
        return gold_user and read_user
    names = {plain(gold.subject), plain(gold.relation)} - {""}
    said = {plain(read.subject), plain(read.relation)} - {""}
    return bool(names & said) or any(n in s or s in n for n in names for s in said)


def claim_matches(gold: GoldClaim, read: ClaimOut) -> bool:
    return subjects_match(gold, read) and values_match(gold.value, read.value)


@dataclass
class Scored:
    item: Item
    read: list[ClaimOut]
    seconds: float
    matched: list[tuple[GoldClaim, ClaimOut]] = field(default_factory=list)
    error: str = ""

    def __post_init__(self) -> None:
        free = list(self.read)
        for gold in self.item.claims:
            found = next((r for r in free if claim_matches(gold, r)), None)
            if found is not None:
                free.remove(found)
                self.matched.append((gold, found))

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.item.id,
            "source": self.item.source,
            "text": self.item.text if self.item.source == "paraphrase" else "",
            "gold": [g.model_dump() for g in self.item.claims],
            "read": [r.model_dump(mode="json") for r in self.read],
            "matched": len(self.matched),
            "kinds_right": sum(g.kind == r.kind.value for g, r in self.matched),
            "seconds": round(self.seconds, 2),
            "error": self.error,
        }


def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    read = sum(len(s.read) for s in scored)
    gold = sum(len(s.item.claims) for s in scored)
    matched = sum(len(s.matched) for s in scored)
    kinds = sum(g.kind == r.kind.value for s in scored for g, r in s.matched)
    empty = [s for s in scored if not s.item.claims]
    seconds = [s.seconds for s in scored]
    return {
        "statements": len(scored),
        "gold_claims": gold,
        "read_claims": read,
        "precision": round(matched / read, 3) if read else None,
        "recall": round(matched / gold, 3) if gold else None,
        "kind_accuracy": round(kinds / matched, 3) if matched else None,
        "empty_right": round(sum(not s.read for s in empty) / len(empty), 3) if empty else None,
        "seconds_median": round(statistics.median(seconds), 2) if seconds else None,
        "seconds_p90": round(percentile(seconds, 90), 2) if seconds else None,
        "errors": sum(bool(s.error) for s in scored),
    }


def first_of_each(items: Sequence[Item], limit: int) -> list[Item]:
    """The first ``limit`` statements of each source."""
    seen: dict[str, int] = {}
    out: list[Item] = []
    for item in items:
        seen[item.source] = seen.get(item.source, 0) + 1
        if seen[item.source] <= limit:
            out.append(item)
    return out


def build_model(name: str) -> BaseChatModel:
    """The model to measure: the offline 0.5B or 1.5B, or an OpenAI-compatible endpoint
    (``OPENAI_BASE_URL``, ``THEA_BENCH_MODEL``)."""
    from thea.config import default_cache_dir

    if name in ("0.5b", "1.5b"):
        from thea.llm.assets import QWEN_05B, QWEN_15B, ensure_local_model
        from thea.llm.local import LocalChatModel

        asset = QWEN_05B if name == "0.5b" else QWEN_15B
        path = ensure_local_model(default_cache_dir(), asset=asset, progress=False)
        return LocalChatModel(
            model_path=str(path), model_name=asset.name, temperature=0.0, adapt_threads=False
        )
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=os.environ.get("THEA_BENCH_MODEL", "model"),
        base_url=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1"),
        api_key="not-needed",
        temperature=0.0,
    )


async def score_all(reader: ClaimReader, items: Sequence[Item], trail: Path | None = None) -> list[Scored]:
    """Every statement read and scored, in order (each also appended to ``trail`` as it is done)."""
    out: list[Scored] = []
    for index, item in enumerate(items, 1):
        started = time.perf_counter()
        try:
            # what the product's claims job reads: the message's statements, questions, requests
            # and small talk left out (a message that told nothing is not read at all)
            told = statements_of(UserImpulse(content=item.text))
            checked = (await reader.read(told)).kept if told else []
            read = [c.claim for c in checked]
            error = ""
        except Exception as exc:  # a model failure is a statement read as nothing, and counted
            read, error = [], f"{type(exc).__name__}: {exc}"
        scored = Scored(item, read, time.perf_counter() - started, error=error)
        out.append(scored)
        if trail is not None:
            with trail.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({**scored.as_dict(), "text": item.text}, ensure_ascii=False) + "\n")
        if index % 20 == 0:
            console.print(f"  {index}/{len(items)} read ({summary(out)['precision']} precision so far)")
            console.file.flush()
    return out


def report(results: dict[str, dict[str, Any]], model: str) -> Table:
    table = Table(title=f"claims read by {model}")
    for column in (
        "source",
        "statements",
        "precision",
        "recall",
        "kind acc.",
        "empty right",
        "s median",
        "s p90",
    ):
        table.add_column(column, justify="right" if column != "source" else "left")
    for source, figures in results.items():
        table.add_row(
            source,
            str(figures["statements"]),
            str(figures["precision"]),
            str(figures["recall"]),
            str(figures["kind_accuracy"]),
            str(figures["empty_right"]),
            str(figures["seconds_median"]),
            str(figures["seconds_p90"]),
        )
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--model", default="1.5b", help="0.5b, 1.5b or openai (an OpenAI-compatible endpoint)"
    )
    parser.add_argument(
        "--limit", type=int, default=0, help="read only the first N statements of each source"
    )
    parser.add_argument("--source", choices=["all", "public", "paraphrase"], default="all")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--trail", type=Path, default=None, help="append each scored statement to this JSONL")
    args = parser.parse_args(argv)
    items = load_items(args.data, args.shared)
    if args.source != "all":
        items = [i for i in items if (i.source in PUBLIC) == (args.source == "public")]
    if args.limit:
        items = first_of_each(items, args.limit)
    model = build_model(args.model)
    reader = ClaimReader(model, timeout_s=300)
    started = time.perf_counter()
    scored = asyncio.run(score_all(reader, items, args.trail))
    results = {
        "public": summary([s for s in scored if s.item.source in PUBLIC]),
        "paraphrase": summary([s for s in scored if s.item.source == "paraphrase"]),
        "all": summary(scored),
    }
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    console.print(report(results, args.model))
    console.print(
        f"model process peak memory {rss_mb:,.0f} MB; {time.perf_counter() - started:,.0f} s in all"
    )
    path = write_json(
        {
            "name": NAME,
            "model": args.model,
            "reader": reader.name,
            "machine": machine(),
            "results": results,
            "peak_rss_mb": round(rss_mb),
            "statements": [s.as_dict() for s in scored],
        },
        NAME,
    )
    console.print(f"written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
