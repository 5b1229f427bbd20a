"""The one word reader (thea/words.py): what a word is, for recall, grounding, concepts, the
planner, merge and the knowledge record alike."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from tests.processes import ROOT
from thea.words import (
    STOPWORDS,
    WORD,
    first_word,
    is_content,
    iter_words,
    lower_words,
    pieces,
    terms,
    without_possessive,
    words,
)

SENTENCES = [
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "I don't think O'Brien's well-known café in São Paulo opens before 9:30.",
    "Zo\u00eb\u2019s 3rd-grade teacher, Mr. Okafor, moved to Malmö — she loves it!",
    "foo_bar and snake_case are two words each; e-mail me at priya@example.com",
    "Node.js 3.5, U.S.A. and e.g. are one word; 'quoted' words and students' books too...",
    "   leading spaces, trailing ones   \n and a line break\ttab",
    "",
    "!!! ??? ---",
    "日本語のテキスト and Ελληνικά words, ٣ digits",
]


def test_apostrophes_join_a_word() -> None:
    assert words("I don't know O'Brien") == ["I", "don't", "know", "O'Brien"]
    assert words("O\u2019Brien\u2019s cat") == ["O\u2019Brien\u2019s", "cat"]
    assert words("the students' books") == ["the", "students", "books"]
    assert words("'quoted'") == ["quoted"]


def test_hyphens_and_full_stops_join_a_word_but_end_none() -> None:
    assert words("a well-known Node.js trick") == ["a", "well-known", "Node.js", "trick"]
    assert words("It ends here. Next one-") == ["It", "ends", "here", "Next", "one"]
    assert words("well--known wait...what") == ["well", "known", "wait", "what"]


def test_digits_are_word_characters() -> None:
    assert words("7 May 2023, 3.5 kg, 3rd") == ["7", "May", "2023", "3.5", "kg", "3rd"]


def test_accented_and_other_letters() -> None:
    assert words("café Zoë Malmö São") == ["café", "Zoë", "Malmö", "São"]
    assert words("Ελληνικά ٣") == ["Ελληνικά", "٣"]


def test_underscore_is_no_word_character() -> None:
    assert words("foo_bar _x_") == ["foo", "bar", "x"]


def test_a_word_is_whole() -> None:
    assert all(words(w) == [w] for w in ("don't", "3.5", "Zoë", "O'Brien", "well-known"))
    assert [words(p) for p in ("don't go", "-", "", "_")] == [["don't", "go"], [], [], []]


def test_first_word() -> None:
    assert first_word("  -- Hello, world") == "Hello"
    assert first_word("...") == ""


@pytest.mark.parametrize("text", SENTENCES)
def test_pieces_give_the_text_back(text: str) -> None:
    parts = pieces(text)
    assert "".join(parts) == text
    assert [p for p in parts if p[0].isalnum()] == words(text)
    # words and what lies between them alternate
    assert all(p[0].isalnum() != q[0].isalnum() for p, q in pairwise(parts))


@pytest.mark.parametrize("text", SENTENCES)
def test_terms_are_the_old_recall_tokens(text: str) -> None:
    """Recall's keyword stage indexed ``[^\\W_]+`` of the lower-cased text: terms() is that, so
    recall's tokens did not change with the word reader."""
    assert terms(text) == re.findall(r"[^\W_]+", text.lower())


def test_terms_split_a_word_at_its_joiners() -> None:
    assert terms("Don't O\u2019Brien well-known Node.js") == [
        "don",
        "t",
        "o",
        "brien",
        "well",
        "known",
        "node",
        "js",
    ]


def test_content_words_are_no_stopwords_nor_short() -> None:
    said = "What did I tell you about my trip to Lisbon in June? I'm at an ox farm"
    assert [w for w in words(said) if is_content(w)] == ["trip", "Lisbon", "June", "I'm", "farm"]
    assert is_content("Lisbon")
    assert not any(is_content(w) for w in ("The", "ox"))
    assert "the" in STOPWORDS


def test_lower_words_write_apostrophes_straight() -> None:
    assert lower_words("I\u2019m Priya") == ["i'm", "priya"]


def test_iter_words_reads_as_words_does() -> None:
    for text in SENTENCES:
        assert list(iter_words(text)) == words(text)


def test_without_possessive() -> None:
    assert without_possessive("Caroline's") == "Caroline"
    assert without_possessive("Ana\u2019s") == "Ana"
    assert without_possessive("James") == "James"
    assert without_possessive("its") == "its"


def test_one_word_pattern_in_the_code() -> None:
    """No module defines a word pattern of its own: the standalone tokenisers that were there
    (``[^\\W_]+``, ``[\\w][\\w'\\-]*``, ``[A-Za-z']+``, ...) read words from thea.words."""
    old = re.compile(
        r"""re\.(?:compile|findall|finditer)\(\s*r?["'](?:\[\^\\W_\]\+|\[\^\\W_\]\{3,\}|\[\\w\]\[\\w'\\-\]\*"""
        r"""|\[A-Za-z'\]\+|\[\^\\W\\d_\]\[\\w'-?\]\*|\[a-z\]\[a-z'-\]\*|\\w\+|\[\\w'\]\+|\[\\w'-\]\+)"""
    )
    found = [
        f"{path.relative_to(ROOT)}: {m.group()}"
        for folder in ("services", "thea", "workers", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != ROOT / "thea" / "words.py"
        for m in old.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert WORD.pattern.startswith("[^\\W_]+")
