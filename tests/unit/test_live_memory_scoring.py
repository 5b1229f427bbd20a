"""The live-memory benchmark's scoring: key-phrase groups, stale values, the repeat rule, answers
that speak as the user, and the summary over personas (benchmarks/live_memory.py; no service)."""

from __future__ import annotations

import pytest

from benchmarks.live_memory import (
    Exchange,
    PersonaRun,
    QuestionResult,
    RepeatResult,
    group_matches,
    ident,
    score_answer,
    score_repeat,
    speaks_as_user,
    summarize,
    wait_for_slow_loop,
)
from thea.api.models import FailedJobView, JobsView, QueueCountsView

DEADLINE = [["march 17", "17 march", "17th"]]


def test_a_group_matches_any_alternative_case_insensitively() -> None:
    assert group_matches(["March 17", "17 march"], "The deadline is now MARCH 17.")
    assert group_matches(["march 17", "17 march"], "It moved to 17 March.")
    assert not group_matches(["march 17", "17 march"], "It is on March 3.")


def test_right_needs_every_group_and_reports_the_failed_ones() -> None:
    groups = [["cat"], ["pixel"]]
    assert score_answer("A grey cat called Pixel.", groups).right
    half = score_answer("You have a cat.", groups)
    assert not half.right
    assert half.failed_groups == (("pixel",),)
    assert score_answer("No idea.", groups).failed_groups == (("cat",), ("pixel",))


def test_a_forbidden_string_makes_the_answer_wrong_and_stale() -> None:
    fresh = score_answer("You live in Munich.", [["munich"]], ["berlin"])
    assert fresh.right
    assert not fresh.stale
    stale = score_answer("You live in Munich, formerly BERLIN.", [["munich"]], ["Berlin"])
    assert not stale.right
    assert stale.stale
    assert stale.forbid_hits == ("Berlin",)
    assert stale.failed_groups == ()


def test_forbid_strings_are_matched_as_given_trailing_space_included() -> None:
    assert score_answer("Moved from March 3 to March 17.", DEADLINE, ["march 3 "]).stale
    assert not score_answer("It was March 3.", [["march"]], ["march 3 "]).stale


@pytest.mark.parametrize(
    "answer",
    [
        "Sat dec 20 (you told me on Sunday 6 December 2026: \u201cnow na sat dec 20.\u201d).",
        "Before that, you told me on Saturday 6 December 2025: \u201cit moved to the 20th\u201d.",
        "I'm not sure. The nearest you said on Friday 6 December 2024: \u201cthe 20th\u201d.",
    ],
)
def test_the_day_a_quoted_line_was_said_neither_forbids_nor_matches(answer: str) -> None:
    # the old date was 6 December; the lines were said on a 6 December, which is no answer
    assert score_answer(answer, [["20"]], forbid=["6 December"]).right
    assert not score_answer(answer, [["December 2026", "December 2025", "December 2024"]]).right
    assert score_answer("It is on 6 December.", [["20"]], forbid=["6 December"]).stale


def test_the_repeat_scores_the_last_answer() -> None:
    forgot = score_repeat(["Redland Rovers.", "Redland.", "I don't know."], [["redland"]])
    assert not forgot.score.right
    assert forgot.each_right == (True, True, False)
    assert forgot.forgot
    recovered = score_repeat(["I don't know.", "Redland Rovers."], [["redland"]])
    assert recovered.score.right
    assert not recovered.forgot
    stale_last = score_repeat(
        ["Redland.", "Redland, not Clifton Wanderers now."], [["redland"]], ["clifton wanderers now"]
    )
    assert stale_last.score.stale
    assert not stale_last.score.right
    with pytest.raises(ValueError):
        score_repeat([], [["redland"]])


@pytest.mark.parametrize(
    "answer",
    [
        "I am allergic to peanuts.",
        "I\u2019m allergic to peanuts",
        "My name is Marta Kowalski.",
        "I work as a data engineer at Helix Logistics.",
        "Sure! I live in Munich now.",
        "I drive a Skoda Octavia.",
        "I'm a data engineer.",
        "We have a grey cat called Pixel.",
        "Our neighbour Jonas will look after Pixel.",
        "Yes, my wife Anjali is a pharmacist.",
        "Tom\u00e1s and I are planning a trip to Lisbon.",
        "- I own a bike shop in Bristol",
        "You asked before. I commute on a Brompton now.",
    ],
)
def test_first_person_statements_about_the_user_are_flagged(answer: str) -> None:
    assert speaks_as_user(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know: you haven't told me that.",
        "I do not know your sister's name.",
        "I remember that you live in Munich.",
        "I'll remember that.",
        "Noted: you're allergic to peanuts. I'll remember that.",
        "I can suggest a quick pasta with tomatoes.",
        "I think you drive a Skoda.",
        "I'm not sure.",
        "I have no record of your daughter's name.",
        "I haven't been told that.",
        "I'm sorry, I'd recommend asking Tom\u00e1s.",
        "I'm happy to help! I would pack light layers.",
        "My apologies, I only know that you live in Munich.",
        "Based on our conversation, you live in Munich.",
        "Your name is Marta and you work at Helix Logistics.",
        'You told me "I live in Berlin", then that you moved to Munich.',
        "I'm an AI assistant, I see you moved.",
        "We could plan three weeks of training.",
    ],
)
def test_thea_speaking_of_itself_is_not_flagged(answer: str) -> None:
    assert not speaks_as_user(answer)


def _exchange(text: str, answer: str, seconds: float, error: str | None = None) -> Exchange:
    return Exchange(text=text, session_id="s", answer=answer, seconds=seconds, impulse_id="i", error=error)


def _question(
    kind: str, answer: str, expect: list[list[str]], forbid: list[str] | None = None
) -> QuestionResult:
    return QuestionResult(kind, _exchange("q", answer, 2.0), score_answer(answer, expect, forbid or []))


def test_the_summary_counts_per_kind_stale_first_person_failures_and_repeats() -> None:
    marta = PersonaRun(
        "marta",
        messages=[
            _exchange("I live in Berlin.", "Noted: you live in Berlin.", 1.0),
            _exchange("x", "", 0.0, "boom"),
        ],
        questions=[
            _question("update", "Munich.", [["munich"]], ["berlin"]),
            _question("update", "Berlin, then Munich.", [["munich"]], ["berlin"]),
            _question("fact", "My name is Marta.", [["marta"]]),
            _question("abstain", "I don't know.", [["don't know"]]),
        ],
        repeat=RepeatResult("q", 1, (_exchange("q", "Marta", 3.0),), score_repeat(["Marta"], [["marta"]])),
    )
    raj = PersonaRun("raj", messages=[_exchange("m", "ok", 5.0)], questions=[_question("fact", "?", [["x"]])])
    summary = summarize([marta, raj])
    assert (summary.right, summary.questions) == (3, 5)
    assert summary.accuracy == pytest.approx(0.6)
    assert [(k, v.right, v.total) for k, v in summary.by_kind.items()] == [
        ("fact", 1, 2),
        ("update", 1, 2),
        ("abstain", 1, 1),
    ]
    assert summary.stale == 1
    assert summary.first_person_questions == 1
    assert (summary.failed_messages, summary.messages) == (1, 3)
    assert (summary.repeat_right, summary.repeat_total) == (1, 1)
    assert summary.message_time.n == 2  # the failed message is not timed
    assert summary.message_time.median_s == pytest.approx(3.0)
    assert summary.question_time.n == 6  # five questions and the repeat's ask


def test_ids_are_accepted_by_the_api() -> None:
    assert ident("lm", "ab12", "dev1 marta", "d1") == "lm-ab12-dev1-marta-d1"
    assert len(ident("x" * 300)) <= 128


def _jobs(queued: int = 0, started: int = 0, scheduled: int = 0, failed: int = 0) -> JobsView:
    counts = QueueCountsView(
        name="thea-crystallize",
        queued=queued,
        started=started,
        scheduled=scheduled,
        failed=failed,
        finished=7,
    )
    failures = [FailedJobView(queue="q", job_id="j1", func="crystallize", reason="boom", ended_at="")][
        :failed
    ]
    return JobsView(queues=[counts], failed=failures)


def test_the_slow_loop_is_done_after_quiet_looks_in_a_row() -> None:
    views = iter([_jobs(queued=3), _jobs(started=1), _jobs(), _jobs(scheduled=1), _jobs(), _jobs(failed=1)])
    waited = wait_for_slow_loop(lambda: next(views), timeout_s=60, poll_s=0, quiet_polls=2)
    assert not waited.timed_out
    assert (waited.pending, waited.finished, waited.failed) == (0, 7, 1)
    assert waited.failed_jobs == ("crystallize (j1): boom",)


def test_the_slow_loop_wait_reports_a_timeout() -> None:
    waited = wait_for_slow_loop(lambda: _jobs(queued=2), timeout_s=0, poll_s=0)
    assert waited.timed_out
    assert waited.pending == 2
