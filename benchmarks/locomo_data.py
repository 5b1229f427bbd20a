"""LoCoMo-format data: conversations, their turns with session times, and QA items.

The format (Maharana et al., ACL 2024; github.com/snap-research/locomo): each conversation has
``session_N`` lists of turns (``dia_id``, ``speaker``, ``text``), ``session_N_date_time`` strings,
and ``qa`` items with ``question``, ``answer``, ``category`` and ``evidence`` dia_ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.common.text import STOPWORDS
from services.knowledge.history_formats import HistoryConversation, parse_locomo

ROOT = Path(__file__).resolve().parents[1]


def default_data() -> Path:
    """shared/data/locomo_dev.json beside the checkout (or beside its parent, for worktrees)."""
    candidates = [ROOT.parent / "shared" / "data" / "locomo_dev.json"]
    candidates.append(ROOT.parent.parent / "shared" / "data" / "locomo_dev.json")
    return next((c for c in candidates if c.is_file()), candidates[0])


CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_DIA_SPLIT = re.compile(r"[;,\s]+")


# -- data ------------------------------------------------------------------------------


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    time_ms: int

    @property
    def document(self) -> str:
        """The text every method indexes: speaker and words (and a shared photo's caption)."""
        return f"{self.speaker}: {self.text}"


@dataclass
class Question:
    question: str
    category: str
    evidence: list[str]
    #: the gold answer (for adversarial questions the answer the question tempts one to give)
    answer: str = ""
    category_id: int = 0


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    unknown_evidence: int = 0
    history: HistoryConversation | None = None

    @property
    def end_ms(self) -> int:
        return max(t.time_ms for t in self.turns)


def split_evidence(items: Sequence[Any]) -> list[str]:
    """Evidence ids, tolerating the odd 'D8:6; D9:17' entry of the published files."""
    out: list[str] = []
    for item in items:
        out += [part for part in _DIA_SPLIT.split(str(item)) if part]
    return list(dict.fromkeys(out))


def load_conversations(path: Path) -> list[Conversation]:
    """Conversations (turns parsed by thea's importer, so benchmarks ingest what users import)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    samples = raw if isinstance(raw, list) else [raw]
    conversations = []
    for sample, history in zip(samples, parse_locomo(samples, path.name), strict=True):
        turns = [
            Turn(t.key, t.speaker, t.text, int(t.session), t.time_ms or 0)
            for t in history.turns
            if t.text.strip()
        ]
        known = {t.dia_id for t in turns}
        questions, unknown = [], 0
        for qa in sample.get("qa", []):
            evidence = split_evidence(qa.get("evidence", []))
            unknown += sum(1 for e in evidence if e not in known)
            evidence = [e for e in evidence if e in known]
            number = int(qa.get("category", 0))
            category = CATEGORIES.get(number, f"category-{qa.get('category')}")
            answer = qa.get("answer", qa.get("adversarial_answer", ""))
            questions.append(Question(str(qa["question"]), category, evidence, str(answer), number))
        conversations.append(Conversation(history.name, turns, questions, unknown, history))
    return conversations


# -- methods ---------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]
