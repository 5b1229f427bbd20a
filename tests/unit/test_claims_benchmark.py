"""The claims benchmark scores what a model read against what a careful reader found."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.claims import DATA, GoldClaim, Item, Scored, load_items, subjects_match, summary, values_match
from tests.claims_support import said


def test_values_match_by_their_words_not_their_wording() -> None:
    assert values_match("Leeds General Infirmary", "leeds general infirmary")
    assert values_match("2019 Toyota Corolla", "Toyota Corolla")
    assert values_match("camping", "camping at Loch Lomond")
    assert not values_match("Leeds", "York")


def test_subjects_match_the_user_by_any_name_and_others_by_name_or_relation() -> None:
    user = GoldClaim(subject="user", relation="self", value="x")
    sister = GoldClaim(subject="my sister", relation="sister", value="x")
    assert subjects_match(user, said("q", "a", "x"))
    assert not subjects_match(user, said("q", "a", "x", subject="Ana", relation="sister"))
    assert subjects_match(sister, said("q", "a", "x", subject="Ana", relation="sister"))


def test_precision_recall_and_kinds_count_each_claim_once() -> None:
    item = Item(
        id="p1",
        source="paraphrase",
        text="sold the Golf, got a Skoda",
        claims=[
            GoldClaim(subject="user", attribute="car", value="Golf", kind="ends"),
            GoldClaim(subject="user", attribute="car", value="Skoda", kind="replaces"),
        ],
    )
    read = [
        said("sold the Golf", "car", "Golf"),
        said("got a Skoda", "car", "Skoda"),
        said("x", "mood", "happy"),
    ]
    scored = Scored(item, read, 1.0)
    empty = Scored(Item(id="p2", source="paraphrase", text="thanks!"), [], 0.5)
    figures = summary([scored, empty])
    assert (figures["precision"], figures["recall"]) == (round(2 / 3, 3), 1.0)
    assert figures["kind_accuracy"] == 0.0  # both read as "new"
    assert figures["empty_right"] == 1.0


def test_public_statements_are_read_from_their_data_files_by_reference(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    turn = {"speaker": "Cara", "dia_id": "D1:1", "text": "I adopted a cat named Oscar."}
    sample = {"sample_id": "s1", "conversation": {"speaker_a": "Cara", "session_1": [turn]}}
    (shared / "locomo_dev.json").write_text(json.dumps([sample]), encoding="utf-8")
    data = tmp_path / "set.json"
    ref = {"file": "locomo_dev.json", "sample_id": "s1", "dia_id": "D1:1"}
    data.write_text(json.dumps({"items": [{"id": "l1", "source": "locomo", "ref": ref, "claims": []}]}))
    (item,) = load_items(data, shared)
    assert item.text == "I adopted a cat named Oscar."


def test_the_claims_set_holds_enough_statements_half_from_conversations_nobody_here_wrote() -> None:
    items = json.loads(DATA.read_text(encoding="utf-8"))["items"]
    public = [i for i in items if i["source"] in ("locomo", "beam")]
    assert len(items) >= 300
    assert len(public) >= len(items) / 2
    assert all("text" not in i or not i["text"] for i in public)  # referenced, never copied
