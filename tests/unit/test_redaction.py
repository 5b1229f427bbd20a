"""What forgetting erases from a text, and what it leaves (thea/memory/redaction.py), and how an
interrupted rebuild of the embedded vector store ends (thea/memory/vector/qdrant_edge.py)."""

from __future__ import annotations

from pathlib import Path

from thea.memory.redaction import FORGOTTEN_MARK, Secret, redact_value
from thea.memory.vector.qdrant_edge import finish_compaction
from thea.models import Collection, Fact

SECRET = Secret(fact_id="f1", values=("Zanzibar7",), quote="my secret word is Zanzibar7")


def test_the_quote_and_the_value_go_whatever_the_case_and_spacing() -> None:
    pattern = SECRET.pattern(with_value=True)
    assert pattern is not None
    said = "Hi!  My SECRET word\nis zanzibar7 and I live in Leeds. Remember ZANZIBAR7?"
    assert (
        redact_value(said, pattern)
        == f"Hi!  {FORGOTTEN_MARK} and I live in Leeds. Remember {FORGOTTEN_MARK}?"
    )


def test_ids_and_longer_words_are_left_alone() -> None:
    pattern = Secret(fact_id="f1", values=("cafe",)).pattern(with_value=True)
    assert pattern is not None
    data = {
        "id": "cafe",
        "source_id": "cafe",
        "ids": ["cafe"],
        "output": {"impulse_id": "cafe", "text": "the cafe by the cafeteria", "items": ["cafe", 3]},
    }
    assert redact_value(data, pattern) == {
        "id": "cafe",
        "source_id": "cafe",
        "ids": ["cafe"],
        "output": {
            "impulse_id": "cafe",
            "text": f"the {FORGOTTEN_MARK} by the cafeteria",
            "items": [FORGOTTEN_MARK, 3],
        },
    }


def test_a_value_too_common_to_erase_is_not_erased_from_text() -> None:
    for value in ("no", "it", "a"):
        fact = Fact(id="f", content=f"x: {value}", value=value, quote=f"I said {value}", user_id="u")
        assert Secret.of(fact).values == ()
        assert Secret.of(fact).quote == f"I said {value}"  # the user's words still go


def _store(path: Path) -> None:
    for collection in Collection:
        (path / collection.value).mkdir(parents=True)
        (path / collection.value / "old").write_text("old")


def test_a_rebuild_cut_off_before_the_swap_keeps_the_old_collection(tmp_path: Path) -> None:
    _store(tmp_path)
    folder = tmp_path / Collection.EXPERIENCE.value
    fresh = tmp_path / f".{folder.name}.compacting"
    fresh.mkdir()
    (fresh / "half").write_text("half a copy")
    finish_compaction(tmp_path)
    assert (folder / "old").exists()
    assert not fresh.exists()


def test_a_rebuild_cut_off_in_the_swap_puts_the_complete_copy_in_place(tmp_path: Path) -> None:
    _store(tmp_path)
    folder = tmp_path / Collection.EXPERIENCE.value
    fresh, old = tmp_path / f".{folder.name}.compacting", tmp_path / f".{folder.name}.replaced"
    folder.rename(old)
    fresh.mkdir()
    (fresh / "new").write_text("the complete copy")
    finish_compaction(tmp_path)
    assert (folder / "new").exists()
    assert not old.exists()
    assert not fresh.exists()
