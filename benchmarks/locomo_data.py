"""LoCoMo-format data: conversations, their turns with session times, and QA items.

The format (Maharana et al., ACL 2024; github.com/snap-research/locomo): each conversation has
``session_N`` lists of turns (``dia_id``, ``speaker``, ``text``), ``session_N_date_time`` strings,
and ``qa`` items with ``question``, ``answer``, ``category`` and ``evidence`` dia_ids.

Two development sets come in that shape (``../shared/data/README.md``): **LoCoMo**'s
(two people trading short messages) and **BEAM**'s (Tavakoli et al., "Beyond a Million Tokens";
user-assistant chats of its 500K tier: short user messages carrying the facts, long assistant
replies; categories 6-15 are BEAM's question kinds, evidence its ``source_chat_ids``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from services.knowledge.history_formats import HistoryConversation, parse_locomo
from thea.words import STOPWORDS, terms

ROOT = Path(__file__).resolve().parents[1]


class DataSet(StrEnum):
    """The development sets of LoCoMo shape (``--data locomo`` / ``--data beam``)."""

    LOCOMO = "locomo"
    BEAM = "beam"


CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: BEAM's question kinds as the converted file numbers them (its ``beam_type``)
BEAM_KINDS = {
    6: "information-extraction",
    7: "multi-session-reasoning",
    8: "temporal-reasoning",
    9: "knowledge-update",
    10: "contradiction-resolution",
    11: "event-ordering",
    12: "instruction-following",
    13: "preference-following",
    14: "summarization",
    15: "abstention",
}


_DAY_MS = 86_400_000


@dataclass(frozen=True)
class DataSource:
    """One development set: its file in ``shared/data``, whom to cite, how its categories read."""

    file: str
    label: str
    source: str
    categories: Mapping[int, str]
    #: --quick: conversations and questions per conversation
    quick_conversations: int = 1
    quick_questions: int = 100


DATA_SETS = {
    DataSet.LOCOMO: DataSource(
        "locomo_dev.json", "LoCoMo", "LoCoMo, Maharana et al. 2024 (snap-research/locomo)", CATEGORIES
    ),
    DataSet.BEAM: DataSource(
        "beam_dev.json",
        "BEAM",
        "BEAM 500K tier, Tavakoli et al. (mohammadtavakoli78/BEAM), converted to LoCoMo shape",
        BEAM_KINDS,
    ),
}


def default_data(data_set: DataSet = DataSet.LOCOMO) -> Path:
    """shared/data/<file> beside the checkout (or beside its parent, for worktrees)."""
    name = DATA_SETS[data_set].file
    candidates = [ROOT.parent / "shared" / "data" / name, ROOT.parent.parent / "shared" / "data" / name]
    return next((c for c in candidates if c.is_file()), candidates[0])


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

    @property
    def asked_at(self) -> int:
        """When its questions are asked: a day after the last session."""
        return self.end_ms + _DAY_MS


def split_evidence(items: Sequence[Any]) -> list[str]:
    """Evidence ids, tolerating the odd 'D8:6; D9:17' entry of the published files."""
    out: list[str] = []
    for item in items:
        out += [part for part in _DIA_SPLIT.split(str(item)) if part]
    return list(dict.fromkeys(out))


def load_conversations(path: Path, categories: Mapping[int, str] = CATEGORIES) -> list[Conversation]:
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
            category = categories.get(number, f"category-{qa.get('category')}")
            answer = qa.get("answer", qa.get("adversarial_answer", ""))
            questions.append(Question(str(qa["question"]), category, evidence, str(answer), number))
        conversations.append(Conversation(history.name, turns, questions, unknown, history))
    return conversations


def load_beam(path: Path) -> list[Conversation]:
    """BEAM chats converted to LoCoMo shape (``beam_dev.json``): categories are BEAM's kinds."""
    return load_conversations(path, BEAM_KINDS)


def load_data_set(path: Path, data_set: DataSet = DataSet.LOCOMO) -> list[Conversation]:
    return load_conversations(path, DATA_SETS[data_set].categories)


def resolve_data(value: str) -> tuple[Path, DataSet]:
    """``--data``: a set's name (``locomo``, ``beam``: its development file) or a path to a file
    of that shape (a BEAM file when its name says so)."""
    if value in {d.value for d in DataSet}:
        data_set = DataSet(value)
        return default_data(data_set), data_set
    path = Path(value)
    return path, DataSet.BEAM if "beam" in path.name.lower() else DataSet.LOCOMO


# -- methods ---------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    return [t for t in terms(text) if t not in STOPWORDS]
