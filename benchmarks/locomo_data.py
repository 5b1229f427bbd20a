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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from services.plan_fallback import STOPWORDS

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_SESSION = re.compile(r"^session_(\d+)$")
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


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    unknown_evidence: int = 0

    @property
    def end_ms(self) -> int:
        return max(t.time_ms for t in self.turns)


def parse_session_time(text: str) -> int:
    """'1:56 pm on 8 May, 2023' -> epoch ms (UTC)."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%H:%M on %d %B, %Y"):
        try:
            moment = datetime.strptime(cleaned, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
        return int(moment.timestamp() * 1000)
    raise ValueError(f"unrecognised session time {text!r}")


def split_evidence(items: Sequence[Any]) -> list[str]:
    """Evidence ids, tolerating the odd 'D8:6; D9:17' entry of the published files."""
    out: list[str] = []
    for item in items:
        out += [part for part in _DIA_SPLIT.split(str(item)) if part]
    return list(dict.fromkeys(out))


def load_conversations(path: Path) -> list[Conversation]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    samples = raw if isinstance(raw, list) else [raw]
    conversations = []
    for index, sample in enumerate(samples):
        conv = sample["conversation"]
        turns: list[Turn] = []
        sessions = sorted(
            (int(m.group(1)), key)
            for key in conv
            if (m := _SESSION.match(key)) and isinstance(conv[key], list)
        )
        for number, key in sessions:
            when = parse_session_time(str(conv[f"{key}_date_time"]))
            for offset, item in enumerate(conv[key]):
                text = str(item.get("text", ""))
                caption = item.get("blip_caption")
                if caption:
                    text = f"{text} [shares a photo of {caption}]"
                # turns of one session keep their order: one second apart
                turns.append(
                    Turn(str(item["dia_id"]), str(item["speaker"]), text, number, when + offset * 1000)
                )
        known = {t.dia_id for t in turns}
        questions, unknown = [], 0
        for qa in sample.get("qa", []):
            evidence = split_evidence(qa.get("evidence", []))
            unknown += sum(1 for e in evidence if e not in known)
            evidence = [e for e in evidence if e in known]
            category = CATEGORIES.get(int(qa.get("category", 0)), f"category-{qa.get('category')}")
            questions.append(Question(str(qa["question"]), category, evidence))
        sample_id = str(sample.get("sample_id", f"sample-{index}"))
        conversations.append(Conversation(sample_id, turns, questions, unknown))
    return conversations


# -- methods ---------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]
