"""The slow loop shows itself (issue 38, item 5): while messages wait to be read and crystallized,
``thea insights``, ``thea memories`` and ``thea service status`` say how many jobs are queued, how
many of the user's messages are still to be read and roughly how long; once the work is done they
say nothing of it. A real service process (fake model) with its worker held back, then let go."""

from __future__ import annotations

from pathlib import Path

import pytest
from rq import Queue
from rq.job import Job

import thea
from services.views.slow_loop import about, backlog_summary
from tests import processes
from thea.config import load_settings

pytestmark = pytest.mark.timeout(300)

TOLD = ["I live in Leeds.", "My sister Mia is a nurse.", "We have a dog called Rolo."]


def test_insights_memories_and_status_say_what_waits_until_it_is_done(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"THEA_SERVICE__WORKERS": "0"}  # nothing runs the slow loop yet
    settings = load_settings("embedded", data_dir=data, llm={"provider": "fake"}, service={"workers": 0})
    with thea.Client(settings=settings) as client:
        for said in TOLD:
            client.ask(said, session_id="day1")
        waiting = client.slow_loop()
        assert waiting.jobs >= len(TOLD)  # each statement's claims, each exchange's insight
        assert waiting.unread == len(TOLD)
        assert waiting.summary.startswith(f"The slow loop is still at work: {waiting.jobs} jobs queued")
        assert f"{len(TOLD)} of your messages still to be read" in waiting.summary

        for args in (["insights"], ["memories"], ["service", "status"]):
            run = processes.thea(args, data, **env)
            assert run.returncode == 0, run.stdout + run.stderr
            assert f"{len(TOLD)} of your messages still to be read" in " ".join(run.stdout.split()), (
                args,
                run.stdout,
            )

    stopped = processes.thea(["service", "stop"], data, **env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    working = load_settings("embedded", data_dir=data, llm={"provider": "fake"})  # with its worker
    with thea.Client(settings=working) as client:
        done = processes.wait_for(lambda: (s := client.slow_loop()).jobs == 0 and s, 120, "the slow loop")
        assert (done.unread, done.summary) == (0, "")
        run = processes.thea(["memories"], data)
        assert "still at work" not in run.stdout
        assert "Leeds" in run.stdout  # the facts the waiting line promised


@pytest.mark.parametrize(
    ("jobs", "unread", "eta", "said"),
    [
        (0, 3, None, ""),
        (
            1,
            0,
            None,
            "The slow loop is still at work: 1 job queued; facts and insights appear as they are done.",
        ),
        (
            44,
            12,
            540.0,
            "The slow loop is still at work: 44 jobs queued, 12 of your messages still to be read "
            "(about 9 min); facts and insights appear as they are done.",
        ),
        (
            2,
            5,
            3.2,
            "The slow loop is still at work: 2 jobs queued, 2 of your messages still to be read "
            "(about 3 s); facts and insights appear as they are done.",
        ),
    ],
)
def test_the_waiting_line_says_jobs_messages_and_time(
    jobs: int, unread: int, eta: float | None, said: str
) -> None:
    assert backlog_summary(jobs, unread, eta) == said
    if eta is not None:  # some jobs with no pace known yet: the time is a lower bound
        assert backlog_summary(jobs, unread, eta, at_least=True) == said.replace("(about", "(at least about")


def test_about_rounds_to_what_a_person_reads() -> None:
    assert [about(s) for s in (0.2, 42, 95, 3600, 5400)] == [
        "about 1 s",
        "about 42 s",
        "about 2 min",
        "about 1 h",
        "about 1.5 h",
    ]


def test_the_pace_is_read_from_the_last_finished_jobs(tmp_path: Path) -> None:
    from thea.testing.deployment import RedisServer
    from workers.admin import backlog

    server = RedisServer("redis", tmp_path / "redis", falkordb=False).start()
    try:
        with server.client() as conn:
            q = Queue("thea-claims", connection=conn)
            assert backlog(conn, workers=1).jobs == 0
            for n in range(4):
                q.enqueue("time.sleep", 0, job_id=f"j{n}")
            ahead = backlog(conn, workers=2)
            assert (ahead.jobs, ahead.eta_s) == (4, None)  # no job finished yet: no pace
            job = Job.fetch("j0", connection=conn)
            from workers.worker import make_worker

            make_worker(conn, ["thea-claims"], threaded=True).work(burst=True, max_jobs=1)
            job.refresh()
            assert job.get_status() == "finished"
            ahead = backlog(conn, workers=2)
            assert ahead.jobs == 3
            assert ahead.eta_s is not None
            assert ahead.eta_s < 5
            # jobs of a queue none finished in yet are not counted at another queue's pace (a
            # fresh service said "about 1.1 h" for 12 jobs): the time is a lower bound
            assert job.started_at is not None
            assert job.ended_at is not None
            pace = (job.ended_at - job.started_at).total_seconds()
            other = Queue("thea-crystallize", connection=conn)
            for n in range(5):
                other.enqueue("time.sleep", 0, job_id=f"c{n}")
            ahead = backlog(conn, workers=1)
            assert (ahead.jobs, ahead.unpaced) == (8, 5)
            assert ahead.eta_s == pytest.approx(3 * pace)
            assert ahead.eta_at_least
            said = backlog_summary(ahead.jobs, 0, ahead.eta_s, ahead.eta_at_least)
            assert "(at least about" in said
    finally:
        server.stop()
