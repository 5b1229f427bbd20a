"""The retrieval benchmark reads both development shapes: LoCoMo's conversations and BEAM's
user-assistant chats in LoCoMo shape (``--data beam``), with BEAM's question kinds as categories."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.locomo_data import DataSet, load_beam, load_data_set, resolve_data


def beam_chat() -> dict[str, object]:
    reply = "Sure. " + "Here is a long explanation of the deployment options. " * 80
    return {
        "sample_id": "beam500K-x",
        "conversation": {
            "speaker_a": "User",
            "speaker_b": "Assistant",
            "session_1_date_time": "10:00 am on 5 January, 2024",
            "session_1": [
                {"speaker": "User", "dia_id": "D1:0", "text": "I moved my API to Flask 2.3 last week."},
                {"speaker": "Assistant", "dia_id": "D1:1", "text": reply},
            ],
        },
        "qa": [
            {
                "question": "Which Flask version did I move my API to?",
                "answer": "2.3",
                "category": 6,
                "evidence": ["D1:0"],
                "beam_type": "information_extraction",
            },
            {
                "question": "Did I change my answer about Flask?",
                "answer": "no",
                "category": 9,
                "evidence": ["D1:0", "D9:9"],
                "beam_type": "knowledge_update",
            },
        ],
    }


def test_a_beam_file_loads_with_its_question_kinds(tmp_path: Path) -> None:
    path = tmp_path / "beam_dev.json"
    path.write_text(json.dumps([beam_chat()]), encoding="utf-8")
    (conv,) = load_beam(path)
    assert [t.speaker for t in conv.turns] == ["User", "Assistant"]
    assert len(conv.turns[1].text) > 4_000  # long replies are kept whole
    assert [q.category for q in conv.questions] == ["information-extraction", "knowledge-update"]
    assert conv.questions[1].evidence == ["D1:0"]  # an id the chat does not have is counted, not kept
    assert conv.unknown_evidence == 1
    assert resolve_data(str(path)) == (path, DataSet.BEAM)  # a BEAM file by its name
    (as_locomo,) = load_data_set(path, DataSet.LOCOMO)
    assert as_locomo.questions[0].category == "category-6"


def test_the_data_flag_takes_a_set_name_or_a_path(tmp_path: Path) -> None:
    path, data_set = resolve_data("beam")
    assert (path.name, data_set) == ("beam_dev.json", DataSet.BEAM)
    path, data_set = resolve_data("locomo")
    assert (path.name, data_set) == ("locomo_dev.json", DataSet.LOCOMO)
    other = tmp_path / "held_out.json"
    assert resolve_data(str(other)) == (other, DataSet.LOCOMO)
