"""The per-message caps (services/common/limits.py), one by one, on 200,000-character inputs."""

from __future__ import annotations

from itertools import combinations

from services.common.limits import (
    MAX_CHAIN_NAMES,
    MAX_CONCEPT_CHARS,
    MAX_KEYWORD_TERMS,
    MAX_NOTATION_TRIPLES,
    MAX_TERM_CHARS,
)
from services.common.notation import parse_notation, within_concepts
from services.common.plan_fallback import candidate_concepts
from services.common.tokens import cautious_tokens, clip_for_prompt, estimate_tokens
from services.recall.cascade import keyword_words
from thea.memory.universal import spread_evenly
from thea.models import EdgeType, normalize_name

LIMIT = 200_000


def test_a_tilde_chain_relates_every_pair_of_its_first_names_only() -> None:
    chain = "~".join(f"c{i}" for i in range(LIMIT // 4))[:LIMIT]  # 30,159 names
    triples = parse_notation(chain)
    first = [f"c{i}" for i in range(MAX_CHAIN_NAMES)]
    assert [(t.subject, t.object) for t in triples] == list(combinations(first, 2))
    assert {t.predicate for t in triples} == {EdgeType.RELATED_TO}


def test_one_text_asserts_at_most_the_notation_cap() -> None:
    for text in (
        "\n".join(f"a{i}::b{i}" for i in range(20_000))[:LIMIT],
        "\n".join(f"x{i} -> y{i}" for i in range(20_000))[:LIMIT],
        "\n".join(f"p{i}~q{i}~r{i}" for i in range(20_000))[:LIMIT],
    ):
        triples = parse_notation(text)
        assert len(triples) == MAX_NOTATION_TRIPLES
        assert parse_notation(text, limit=3) == triples[:3]  # the first ones, in order


def test_prose_shapes_that_made_the_regexes_backtrack_give_nothing_or_little() -> None:
    shapes = [
        ("a" + " " * 1000 + "->") * (LIMIT // 1003),
        ("a " * LIMIT)[: LIMIT - 4] + "-> b",
        "x" * LIMIT,
        "~" * LIMIT,
        ":" * LIMIT,
        "\n" * LIMIT,
    ]
    for text in shapes:
        assert len(parse_notation(text)) <= 1


def test_names_longer_than_a_concept_name_are_not_concepts() -> None:
    long = "n" * (MAX_CONCEPT_CHARS + 1)
    assert parse_notation(f"{long}::thing") == []
    assert parse_notation("heavy load -> timeouts") != []
    text = "We met " + "Z" + "z" * LIMIT + " and Lisbon and Porto."
    assert candidate_concepts(text) == ["Lisbon", "Porto"]


def test_within_concepts_keeps_whole_triples_up_to_the_concept_cap() -> None:
    triples = parse_notation("\n".join(f"a{i}::b{i}" for i in range(30)))
    kept = within_concepts(triples, 5)
    assert [(t.subject, t.object) for t in kept] == [("a0", "b0"), ("a1", "b1")]
    names = {normalize_name(n) for t in within_concepts(triples, 16) for n in (t.subject, t.object)}
    assert len(names) == 16


def test_keyword_terms_are_few_and_short() -> None:
    words = " ".join(f"word{i}" for i in range(40_000)) + " " + "q" * LIMIT
    found = keyword_words([words])
    assert len(found) == MAX_KEYWORD_TERMS
    assert keyword_words(["g" * LIMIT + " lisbon"]) == ["lisbon"]
    assert all(len(w) <= MAX_TERM_CHARS for w in found)


def test_long_texts_are_embedded_at_evenly_spread_windows_first_and_last_included() -> None:
    chunks = [f"chunk {i}" for i in range(900)]
    picked = spread_evenly(chunks, 32)
    assert len(picked) == 32
    assert picked[0] == (0, "chunk 0")
    assert picked[-1] == (899, "chunk 899")
    assert spread_evenly(chunks[:5], 32) == list(enumerate(chunks[:5]))


def test_prompts_carry_the_head_and_tail_of_a_very_long_message() -> None:
    assert clip_for_prompt("short question?", 1638) == "short question?"
    text = "start " + "filler words here " * 12_000 + " the very end"
    clipped = clip_for_prompt(text, 1638)
    assert clipped.startswith("start ")
    assert clipped.endswith(" the very end")
    assert "characters of this message left out" in clipped
    assert 1000 <= estimate_tokens(clipped) <= 1638  # prose: a little over 1,000 real tokens


def test_the_prompt_estimate_counts_digits_symbols_and_wide_characters_cautiously() -> None:
    shapes = {
        "chain": "~".join(f"c{i}" for i in range(LIMIT))[:LIMIT],
        "lines": "\n".join(f"a{i}::b{i}" for i in range(LIMIT))[:LIMIT],
        "cjk": "中" * LIMIT,
        "word": "W" + "w" * LIMIT,
    }
    for name, text in shapes.items():
        clipped = clip_for_prompt(text, 1638)
        assert cautious_tokens(clipped) <= 1638 + 20, name
        assert len(clipped) < 4_000, name  # the old 4-characters-a-token estimate allowed 6,552
    assert cautious_tokens("c12~c13~") == 7  # the offline model: about one token a character
