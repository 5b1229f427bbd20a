"""Runtime.reflect's result is typed: a ReflectionReport when a worker finished it, a
ReflectionQueued (job id, RQ status, last failure) when none did in time."""

from __future__ import annotations

import pytest

from services.reflection.merge import ReflectionReport
from thea.errors import JobError
from thea.runtime.app import ReflectionQueued, reflection_report


def test_a_finished_job_returns_its_report() -> None:
    report = ReflectionReport(user_id="ana", insights=6, groups_found=2, merged=2, archived=5)
    back = reflection_report({**report.as_dict(), "extra": "ignored"})
    assert back == report
    assert back.summary().startswith("reflection: 6 active insights, 2 groups, 2 merged")


def test_a_job_returning_something_else_is_an_error() -> None:
    with pytest.raises(JobError, match="returned str"):
        reflection_report("done")


@pytest.mark.parametrize(
    ("status", "said"),
    [("queued", "waiting for a worker"), ("started", "running"), ("scheduled", "waiting to be retried")],
)
def test_a_queued_reflection_says_where_it_is(status: str, said: str) -> None:
    line = ReflectionQueued("j1", status).message(30)
    assert f"reflection job j1 is still {said} after 30 s;" in line
    assert "last attempt" not in line


def test_a_queued_reflection_names_its_last_failure() -> None:
    line = ReflectionQueued("j1", "scheduled", "RuntimeError: boom").message(5)
    assert "(last attempt: RuntimeError: boom)" in line
