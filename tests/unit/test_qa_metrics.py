"""The LoCoMo answer scores (token F1, exact match, adversarial refusals) on hand-made cases."""

from __future__ import annotations

import pytest

from benchmarks.locomo_data import Conversation, Question
from benchmarks.locomo_qa import select_questions
from benchmarks.qa_judge import verdict
from benchmarks.qa_metrics import exact_match, multi_answer_f1, normalize_answer, score_answer, token_f1


def test_normalisation_drops_case_punctuation_articles_and_commas() -> None:
    assert normalize_answer("The Sunday before 25 May, 2023.") == "sunday before 25 may 2023"
    assert normalize_answer("  A cat and   an OWL! ") == "cat owl"


def test_token_f1_counts_stemmed_overlap() -> None:
    assert token_f1("7 May 2023", "7 May 2023") == 1.0
    assert token_f1("On 7 May 2023.", "7 May 2023") == pytest.approx(2 * (3 / 4) * 1 / (3 / 4 + 1))
    assert token_f1("running races", "she ran a race") == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert token_f1("painting", "paintings") == 1.0  # Porter stems both to "paint"
    assert token_f1("Paris", "London") == 0.0
    assert token_f1("", "London") == 0.0


def test_multi_hop_answers_score_each_gold_part_with_its_best_match() -> None:
    gold = "Psychology, counseling certification"
    assert multi_answer_f1("counseling certification, psychology", gold) == 1.0
    assert multi_answer_f1("psychology", gold) == pytest.approx(0.5)  # one of two parts found
    assert score_answer("psychology", gold, 1)["f1"] == pytest.approx(0.5)
    assert score_answer("psychology", gold, 4)["f1"] == pytest.approx(2 * 1 * (1 / 3) / (1 + 1 / 3))


def test_exact_match_compares_normalised_token_sets() -> None:
    assert exact_match("May 7, 2023", "7 May 2023") == 1.0
    assert exact_match("the 7 May 2023", "7 May 2023") == 1.0
    assert exact_match("7 May", "7 May 2023") == 0.0


def test_open_domain_gold_counts_up_to_the_first_semicolon() -> None:
    assert score_answer("Likely no", "Likely no; she wants kids", 3) == {"f1": 1.0, "em": 1.0}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Not mentioned in the conversation.", 1.0),
        ("No information available", 1.0),
        ("I don\u2019t know.", 1.0),
        ("I do not know that from my memories.", 1.0),
        ("Self-care is important.", 0.0),
        ("She realised self-care matters", 0.0),
    ],
)
def test_adversarial_questions_reward_declining_to_answer(answer: str, expected: float) -> None:
    assert score_answer(answer, "self-care is important", 5) == {"f1": expected, "em": expected}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("CORRECT", 1.0), ("correct.", 1.0), ("WRONG", 0.0), ("INCORRECT", 0.0), ("?", 0.0)],
)
def test_the_llm_judge_reads_a_one_word_verdict(reply: str, expected: float) -> None:
    assert verdict(reply) == expected


def test_quick_runs_spread_their_questions_over_every_category() -> None:
    questions = [
        Question(f"q{i}", "temporal" if i % 3 else "single-hop", ["D1:1"], "a", 2) for i in range(30)
    ]
    conv = Conversation("c", [], questions)
    chosen = select_questions(conv, per_category=4, limit=None, categories=None)
    assert [q.category for q in chosen].count("temporal") == 4
    assert [q.category for q in chosen].count("single-hop") == 4
    single = [q.question for q in chosen if q.category == "single-hop"]
    assert single == ["q0", "q6", "q15", "q21"]  # spread over the conversation, in file order
    assert (
        select_questions(conv, None, 5, ["single-hop"])
        == [q for q in questions if q.category == "single-hop"][:5]
    )
