"""Live memory: does thea know the current truth about a person after days of ordinary chat?

Scenarios (``live_memory_dev.json``; its ``format`` field describes them): each persona is its
own user and tells thea about itself over several days (statements, requests for help, and
later *changes* to earlier facts). The benchmark drives a real thea service exactly as a chat
client does: it starts ``python -m thea.service run`` on a fresh temporary data directory (its
own FalkorDB child, the chosen model), and talks to it with :class:`thea.Client` over the unix
socket, one user (``X-Thea-User``) per persona:

1. every message of every persona through the chat path (``client.chat``, what ``thea chat``
   sends), one session per day, each message answered;
2. then it waits until the service's slow loop has no queued, started or scheduled job left;
3. then every question in a fresh session of its own, scored by key phrases: right when every
   ``expect`` group matches (any of its alternatives is a case-insensitive substring of the
   answer) and no ``forbid`` string appears (a stale or confused value);
4. the ``repeat`` question is asked ``times`` times in fresh sessions, the slow loop is waited
   for again, and it is asked once more; that last answer is scored.

A service that stops by itself during the run is started again on the same data and the line
sent once more, as thea's clients do; every such stop is reported. The service and its graph
server are stopped and the folder removed at the end, also on an error, Ctrl-C or SIGTERM.

Reports, per persona and overall: accuracy (and per kind: fact, third-party, update, previous,
temporal, multi, abstain), stale answers, answers that speak about the user in the first person
(:func:`speaks_as_user`), the repeat result, failed messages, and seconds per answer (median and
p90, client-side from send to the complete answer) for messages and questions separately; every
message and question with its answer, score, seconds and impulse id goes to the JSON file.

``python -m benchmarks.live_memory [--data FILE] [--model local|fake|openai|ollama]
[--personas ID ...] [--out DIR]``; ``--model fake`` is a smoke run of the harness (about 20
seconds; the fake model answers nonsense).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import shutil
import signal
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import httpx
from pydantic import BaseModel, Field
from rich.table import Table

from benchmarks.common import RESULTS_DIR, ROOT, console, machine, percentile, row, stamp, write_json
from thea.api.models import JobsView
from thea.client import Client, Command, Done, Token
from thea.client.connection import Connection
from thea.client.local import LOCAL_BASE_URL, probe
from thea.config import LLMSettings
from thea.errors import TheaError
from thea.locations import ServicePaths
from thea.proc import ProcessRecord, alive, signal_if_alive

NAME = "live_memory"
#: the kinds of question the format names, in the order reports list them
KINDS = ("fact", "third-party", "update", "previous", "temporal", "multi", "abstain", "request")
MODELS: tuple[str, ...] = get_args(LLMSettings.model_fields["provider"].annotation)

# -- the scenario file ---------------------------------------------------------------------


class Message(BaseModel):
    session: str
    text: str


class Question(BaseModel):
    q: str
    expect: list[list[str]]
    forbid: list[str] = Field(default_factory=list)
    kind: str = "fact"


class Repeat(BaseModel):
    q: str
    times: int = Field(ge=0)
    expect: list[list[str]]
    forbid: list[str] = Field(default_factory=list)


class Persona(BaseModel):
    id: str
    messages: list[Message]
    questions: list[Question]
    repeat: Repeat | None = None


class Scenarios(BaseModel):
    format: str = ""
    personas: list[Persona]


def default_data() -> Path:
    """shared/data/live_memory_dev.json beside the checkout (or beside its parent, for worktrees)."""
    candidates = [ROOT.parent / "shared" / "data" / "live_memory_dev.json"]
    candidates.append(ROOT.parent.parent / "shared" / "data" / "live_memory_dev.json")
    return next((c for c in candidates if c.is_file()), candidates[0])


def load_scenarios(path: Path) -> Scenarios:
    return Scenarios.model_validate_json(path.read_text(encoding="utf-8"))


def select_personas(scenarios: Scenarios, ids: Sequence[str]) -> list[Persona]:
    """The personas named (all when none is); an unknown id is an error naming the known ones."""
    if not ids:
        return list(scenarios.personas)
    known = {p.id: p for p in scenarios.personas}
    missing = [i for i in ids if i not in known]
    if missing:
        raise ValueError(f"unknown persona {', '.join(missing)} (known: {', '.join(known)})")
    return [known[i] for i in ids]


# -- scoring (pure) ------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """One answer against its key phrases: the expect groups that failed, the forbid strings hit."""

    right: bool
    failed_groups: tuple[tuple[str, ...], ...] = ()
    forbid_hits: tuple[str, ...] = ()

    @property
    def stale(self) -> bool:
        return bool(self.forbid_hits)


def group_matches(group: Sequence[str], answer: str) -> bool:
    """A group matches when any of its alternatives, lower-cased, is in the lower-cased answer."""
    text = answer.lower()
    return any(alternative.lower() in text for alternative in group)


#: the day a quoted line was said, as answers show it ("you told me on Sunday 6 December 2026: …"):
#: the day the user spoke, not a value of the answer, so it neither matches nor forbids
_TOLD_DAY = re.compile(r"\b(told me|said) on [A-Z][a-z]+day \d{1,2} [A-Z][a-z]+ \d{4}")


def without_told_days(answer: str) -> str:
    """The answer with the days its quoted lines were said left out."""
    return _TOLD_DAY.sub(r"\1 on (that day)", answer)


def score_answer(answer: str, expect: Sequence[Sequence[str]], forbid: Sequence[str] = ()) -> Score:
    """Right when every expect group matches and no forbid string appears (case-insensitive).

    The days quoted lines were said on are left out first: a line said on 6 December is not an
    answer of "6 December".
    """
    answer = without_told_days(answer)
    failed = tuple(tuple(group) for group in expect if not group_matches(group, answer))
    text = answer.lower()
    hits = tuple(f for f in forbid if f.lower() in text)
    return Score(right=not failed and not hits, failed_groups=failed, forbid_hits=hits)


@dataclass(frozen=True)
class RepeatScore:
    """A question asked several times: the last answer is the one scored."""

    score: Score
    #: whether each ask (in order, the scored last one included) was right
    each_right: tuple[bool, ...]

    @property
    def forgot(self) -> bool:
        """Right at some earlier ask, wrong at the last."""
        return not self.score.right and any(self.each_right[:-1])


def score_repeat(
    answers: Sequence[str], expect: Sequence[Sequence[str]], forbid: Sequence[str] = ()
) -> RepeatScore:
    if not answers:
        raise ValueError("a repeated question needs at least one answer")
    scores = [score_answer(a, expect, forbid) for a in answers]
    return RepeatScore(score=scores[-1], each_right=tuple(s.right for s in scores))


# -- answers that speak as the user --------------------------------------------------------

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_CONTRACTIONS = {
    "i'm": "i am",
    "i've": "i have",
    "i'd": "i would",
    "i'll": "i will",
    "we're": "we are",
    "we've": "we have",
    "we'd": "we would",
    "we'll": "we will",
}
_CONTRACTION = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in _CONTRACTIONS) + r")\b")
#: quoted speech is attribution ("you said "I live in Berlin""), never thea speaking as the user
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d")
#: clauses: sentences, lines, and the parts of a sentence after a comma, colon, semicolon,
#: "and" or "but" (so "Yes, I live ..." and "Tomás and I are ..." start a clause with the subject)
_CLAUSES = re.compile(r"[.!?]+(?:\s+|$)|[\n;:]+|,\s+|\s+(?:and|but)\s+")
_LEADING = re.compile(r"^[\s*_#>\u2022\-\u2013\u2014()\[\]]+")
_SUBJECT = re.compile(
    r"^(?:(?:yes|no|well|oh|ok|okay|so|sure|also|now|actually|great|right)\s+)?(i|we|my|our)\s+(\S.*)$"
)
#: what thea says of itself after "I"/"we": its own speech acts, modals, not knowing
_OWN_ACTS = (
    r"(?:can|cannot|can't|could|couldn't|would|wouldn't|will|won't|shall|should|shouldn't|might|may|must)",
    r"(?:do|did|does) not|don't|didn't|doesn't",
    r"(?:know|remember|recall|think|believe|suggest|recommend|hope|see|understand|notice|noticed|found"
    r"|find|note|noted|apologi[sz]e|appreciate|wonder|guess|assume|mean|meant|need|lack|agree"
    r"|searched|checked|looked|heard|learned|learnt|discussed|talked|spoke|chatted|covered)",
    r"(?:have|had) (?:no|not|never|been told|noted|recorded|saved|stored|learned|learnt|heard|found|seen"
    r"|got no|got it|got that|discussed|talked|spoken|chatted|mentioned|covered)",
    r"haven't|hadn't",
    r"(?:have|had) (?:a |an |some |any |your |the |that |this )?(?:notes?|records?|information|memor(?:y|ies)"
    r"|details?|data)\b",
    r"am (?:not|sorry|happy|glad|afraid|unable|able|here|thea|sure|certain|aware|just|only|pleased"
    r"|delighted|looking|checking|searching|(?:an? |your )?(?:ai|assistant|language model|chatbot|bot"
    r"|virtual assistant))\b",
    r"(?:was|wasn't) (?:not|never|told|unable)|wasn't",
)
_OWN_SPEECH = re.compile(
    r"^(?:(?:really|also|just|only|still|honestly|truly)\s+)*(?:" + "|".join(_OWN_ACTS) + r")\b"
)
#: what thea calls its own after "my" / "our"
_OWN_THINGS = re.compile(
    r"^(?:apolog(?:y|ies)|records?|memor(?:y|ies)|notes?|knowledge|suggestions?|advice|recommendations?"
    r"|understanding|information|guess|best guess|pleasure|answers?|sources?|training|data|mistake|bad"
    r"|previous|last|earlier|response|reply|role|purpose|goal|aim|job is to|name is thea"
    r"|conversations?|chats?|discussions?|talks?|exchanges?|sessions?)\b"
)


def _clauses(answer: str) -> list[str]:
    text = _QUOTED.sub(" ", answer.translate(_APOSTROPHES)).lower()
    text = _CONTRACTION.sub(lambda m: _CONTRACTIONS[m.group(0)], text)
    return [_LEADING.sub("", c).strip() for c in _CLAUSES.split(text) if c and c.strip()]


def speaks_as_user(answer: str) -> bool:
    """Whether the answer states something about the user in the first person ("I am allergic
    to peanuts", "My name is Marta", "We have a cat", "Our neighbour Jonas ..."): a clause whose
    subject is I / my / we / our and whose continuation is not one of thea's own speech acts
    ("I don't know", "I remember", "I'll", "I can suggest", "I'm not sure", "I have no record",
    "my apologies", "our conversation"). Quoted speech is not counted."""
    for clause in _clauses(answer):
        found = _SUBJECT.match(clause)
        if found is None:
            continue
        subject, rest = found.groups()
        own = _OWN_THINGS if subject in ("my", "our") else _OWN_SPEECH
        if not own.match(rest):
            return True
    return False


# -- what one run records ------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One chat line sent and its answer, timed client-side from send to the complete answer."""

    text: str
    session_id: str
    answer: str
    seconds: float
    impulse_id: str | None = None
    error: str | None = None
    failed_steps: tuple[str, ...] = ()
    #: the service had stopped and was started again before this line was sent again
    service_restarted: bool = False
    #: model calls the answer cost (0: no model wrote it: a claim said back, "I don't know")
    llm_calls: int | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def first_person(self) -> bool:
        return speaks_as_user(self.answer)

    @property
    def without_model(self) -> bool:
        return self.llm_calls == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "session_id": self.session_id,
            "answer": self.answer,
            "seconds": round(self.seconds, 3),
            "impulse_id": self.impulse_id,
            "error": self.error,
            "failed_steps": list(self.failed_steps),
            "speaks_as_user": self.first_person,
            "service_restarted": self.service_restarted,
            "llm_calls": self.llm_calls,
        }


def _score_json(score: Score) -> dict[str, Any]:
    return {
        "right": score.right,
        "failed_groups": [list(g) for g in score.failed_groups],
        "forbid_hits": list(score.forbid_hits),
    }


@dataclass(frozen=True)
class QuestionResult:
    kind: str
    exchange: Exchange
    score: Score

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.exchange.to_json(), **_score_json(self.score)}


@dataclass(frozen=True)
class RepeatResult:
    question: str
    times: int
    asks: tuple[Exchange, ...]
    result: RepeatScore

    def to_json(self) -> dict[str, Any]:
        return {
            "q": self.question,
            "times": self.times,
            **_score_json(self.result.score),
            "each_right": list(self.result.each_right),
            "forgot": self.result.forgot,
            "asks": [a.to_json() for a in self.asks],
        }


@dataclass
class PersonaRun:
    persona: str
    messages: list[Exchange] = field(default_factory=list)
    questions: list[QuestionResult] = field(default_factory=list)
    repeat: RepeatResult | None = None


@dataclass(frozen=True)
class Timing:
    n: int
    median_s: float | None
    p90_s: float | None


def timing(seconds: Sequence[float]) -> Timing:
    if not seconds:
        return Timing(0, None, None)
    return Timing(len(seconds), statistics.median(seconds), percentile(seconds, 90))


@dataclass(frozen=True)
class KindScore:
    right: int
    total: int


@dataclass(frozen=True)
class Summary:
    """Counts of one persona, or of all together."""

    questions: int
    right: int
    by_kind: dict[str, KindScore]
    stale: int
    #: questions answered without the model, and of those the wrong ones (the worst outcome)
    without_model: int
    without_model_wrong: int
    first_person_questions: int
    first_person_messages: int
    messages: int
    failed_messages: int
    failed_questions: int
    repeat_right: int
    repeat_total: int
    message_time: Timing
    question_time: Timing

    @property
    def accuracy(self) -> float | None:
        return self.right / self.questions if self.questions else None


def _kind_order(kind: str) -> tuple[int, str]:
    return (KINDS.index(kind) if kind in KINDS else len(KINDS), kind)


def summarize(runs: Sequence[PersonaRun]) -> Summary:
    """Accuracy (overall and per kind), stale and first-person answers, failures, the repeat
    results and answer times of these runs. Failed exchanges count as wrong answers but not in
    the times (an error returns at once)."""
    questions = [q for r in runs for q in r.questions]
    messages = [m for r in runs for m in r.messages]
    repeats = [r.repeat for r in runs if r.repeat is not None]
    by_kind: dict[str, KindScore] = {}
    for kind in sorted({q.kind for q in questions}, key=_kind_order):
        of_kind = [q for q in questions if q.kind == kind]
        by_kind[kind] = KindScore(sum(q.score.right for q in of_kind), len(of_kind))
    asked = [q.exchange for q in questions] + [a for r in repeats for a in r.asks]
    return Summary(
        questions=len(questions),
        right=sum(q.score.right for q in questions),
        by_kind=by_kind,
        stale=sum(q.score.stale for q in questions),
        without_model=sum(q.exchange.without_model for q in questions),
        without_model_wrong=sum(q.exchange.without_model and not q.score.right for q in questions),
        first_person_questions=sum(q.exchange.first_person for q in questions),
        first_person_messages=sum(m.first_person for m in messages),
        messages=len(messages),
        failed_messages=sum(m.failed for m in messages),
        failed_questions=sum(e.failed for e in asked),
        repeat_right=sum(r.result.score.right for r in repeats),
        repeat_total=len(repeats),
        message_time=timing([m.seconds for m in messages if not m.failed]),
        question_time=timing([e.seconds for e in asked if not e.failed]),
    )


# -- the service ---------------------------------------------------------------------------


class ServiceDied(TheaError):
    """The service process under test exited during the run."""


@dataclass(frozen=True)
class SlowLoopWait:
    """How waiting for the slow loop went: pending = queued + started + scheduled jobs left."""

    seconds: float
    timed_out: bool
    pending: int
    finished: int
    failed: int
    failed_jobs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServiceExit:
    """The service stopped by itself during the run (and was started again)."""

    during: str
    exit_code: int | None
    uptime_s: float


def pending_jobs(view: JobsView) -> int:
    """Jobs the slow loop still has to do (a scheduled job is a retry waiting for its backoff)."""
    return sum(q.queued + q.started + q.scheduled for q in view.queues)


class LiveService:
    """A thea service process of its own on a fresh data directory; stopped on exit, whatever
    happened (its graph server too)."""

    def __init__(self, data_dir: Path, model: str, *, start_timeout_s: float = 600.0) -> None:
        self.paths = ServicePaths.of(data_dir)
        self.model = model
        self.start_timeout_s = start_timeout_s
        self.process: subprocess.Popen[bytes] | None = None
        self.graph_server: ProcessRecord | None = None
        self.started_at = 0.0
        self.exits: list[ServiceExit] = []

    @property
    def log_path(self) -> Path:
        return self.paths.data_dir.parent / "service-stderr.log"

    def environment(self) -> dict[str, str]:
        """This process's environment with the data dir, the model and the profile of the run."""
        env = {k: v for k, v in os.environ.items() if k not in ("THEA_URL", "THEA_TOKEN")}
        env |= {
            "THEA_PROFILE": "embedded",
            "THEA_DATA_DIR": str(self.paths.data_dir),
            "THEA_LLM__PROVIDER": self.model,
            # a safety net: should this harness be killed outright, the service stops by itself
            "THEA_SERVICE__IDLE_STOP_S": "900",
        }
        return env

    def start(self) -> LiveService:
        self.paths.data_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "thea.service", "run", "--data-dir", str(self.paths.data_dir)]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=self.environment(),
                start_new_session=True,  # a terminal's Ctrl-C reaches this harness, which stops it
                close_fds=True,
            )
        self.started_at = time.monotonic()
        deadline = self.started_at + self.start_timeout_s
        while not probe(self.paths, timeout_s=1.0):
            if self.process.poll() is not None:
                raise ServiceDied(f"the service exited with {self.process.returncode}: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise ServiceDied(f"the service did not answer within {self.start_timeout_s:.0f} s")
            time.sleep(0.2)
        self.graph_server = ProcessRecord.read(self.paths.data_dir / "graph" / "falkordb.pid")
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def recover(self, during: str, wait_s: float = 90.0) -> bool:
        """When the service no longer answers because it stopped (or is stopping) by itself:
        wait for it to exit and start it again on the same data, as a chat client does (the
        stop is recorded in ``exits``). False when it answers; :class:`ServiceDied` when it
        neither answers nor exits, or does not start again."""
        if probe(self.paths, timeout_s=5.0):
            return False
        process = self.process
        if process is None:
            raise ServiceDied("the service was never started")
        if not self._wait(process, wait_s):
            raise ServiceDied(f"the service stopped answering but did not exit within {wait_s:.0f} s")
        self.exits.append(
            ServiceExit(during, process.returncode, round(time.monotonic() - self.started_at, 1))
        )
        console.print(
            f"[yellow]the service stopped by itself (exit {process.returncode}) during {during}; "
            "starting it again on the same data[/]",
            highlight=False,
        )
        self.graph_server = None
        self.start()
        return True

    def log_tail(self, lines: int = 5, path: Path | None = None) -> str:
        """The last lines of the service's stderr (or of ``path``), on one line."""
        try:
            text = (path or self.log_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return " | ".join(text.strip().splitlines()[-lines:]) or "(empty log)"

    def report_failure(self) -> None:
        """Print what the service logged last (its folder is removed right after)."""
        state = (
            "running" if self.alive() else f"exited with {self.process.returncode if self.process else '?'}"
        )
        console.print(f"[red]the service ({state}) logged last:[/]", highlight=False)
        for path in (self.log_path, self.paths.log_file):
            console.print(f"  {path.name}: {self.log_tail(10, path)}", highlight=False, markup=False)

    def client(self, user: str | None = None, timeout_s: float = 900.0) -> Client:
        """A client of this service over its unix socket, as ``user`` (``X-Thea-User``). It never
        starts a service itself: if this one dies, requests fail instead of starting another."""
        made = Client(url=LOCAL_BASE_URL, user=user, timeout_s=timeout_s)  # reads no settings
        made.connection = Connection(LOCAL_BASE_URL, str(self.paths.socket), None, user, settings=None)
        return made

    def stop(self, grace_s: float = 60.0) -> None:
        """Ask the service to stop (running answers finish), then SIGTERM, then SIGKILL its whole
        process group; the graph server it started is stopped too if it outlived it."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(TheaError, httpx.HTTPError), self.client(timeout_s=10.0) as admin:
                admin.stop_service()
            if not self._wait(process, grace_s):
                self._signal(process, signal.SIGTERM, 30.0)
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # its own session: only its children
                process.wait(10.0)
        record = self.graph_server or ProcessRecord.read(self.paths.data_dir / "graph" / "falkordb.pid")
        if record is not None and alive(record):
            signal_if_alive(record, signal.SIGTERM)
            deadline = time.monotonic() + 10.0
            while alive(record) and time.monotonic() < deadline:
                time.sleep(0.05)
            signal_if_alive(record, signal.SIGKILL)

    @staticmethod
    def _wait(process: subprocess.Popen[bytes], seconds: float) -> bool:
        try:
            process.wait(seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _signal(self, process: subprocess.Popen[bytes], sig: signal.Signals, seconds: float) -> bool:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)
        return self._wait(process, seconds)

    def __enter__(self) -> LiveService:
        try:
            return self.start()
        except BaseException:
            with _no_interrupts():
                self.stop()
            raise

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        with _no_interrupts():
            if kind is not None and not issubclass(kind, KeyboardInterrupt | SystemExit):
                self.report_failure()
            self.stop()


@contextlib.contextmanager
def _no_interrupts() -> Iterator[None]:
    """Let clean-up finish: a second Ctrl-C while the service stops is ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def say(client: Client, text: str, session_id: str) -> Exchange:
    """One chat line through ``client.chat`` (what ``thea chat`` sends), read to the end."""
    started = time.perf_counter()
    answer = ""
    impulse: str | None = None
    steps: tuple[str, ...] = ()
    error: str | None = None
    calls: int | None = None
    parts: list[str] = []
    try:
        events = client.chat(text, session_id)
        try:
            for event in events:
                if isinstance(event, Token):
                    parts.append(event.text)
                elif isinstance(event, Done):
                    answer, impulse = event.result.answer, event.result.impulse_id
                    steps = tuple(event.result.failed_steps)
                    calls = event.result.usage.llm_calls
                elif isinstance(event, Command):
                    answer = event.result.text
        finally:
            events.close()
        if impulse is None and not answer:
            error = "the stream ended without an answer"
    except Exception as exc:  # any failure of one line (error event, broken stream) is recorded
        error = f"{type(exc).__name__}: {exc}"
    return Exchange(
        text=text,
        session_id=session_id,
        answer=answer or "".join(parts),
        seconds=time.perf_counter() - started,
        impulse_id=impulse,
        error=error,
        failed_steps=steps,
        llm_calls=calls,
    )


def wait_for_slow_loop(
    look: Callable[[], JobsView], timeout_s: float, *, poll_s: float = 1.0, quiet_polls: int = 2
) -> SlowLoopWait:
    """Poll the job list (``look``: ``client.jobs``) until no job is queued, started or scheduled
    (``quiet_polls`` looks in a row, so a job that enqueues another is not missed), or until
    ``timeout_s``."""
    started = time.monotonic()
    quiet = 0
    while True:
        view = look()
        pending = pending_jobs(view)
        quiet = quiet + 1 if pending == 0 else 0
        elapsed = time.monotonic() - started
        if quiet >= quiet_polls or elapsed > timeout_s:
            return SlowLoopWait(
                seconds=elapsed,
                timed_out=quiet < quiet_polls,
                pending=pending,
                finished=sum(q.finished for q in view.queues),
                failed=sum(q.failed for q in view.queues),
                failed_jobs=tuple(f"{j.func} ({j.job_id}): {j.reason}" for j in view.failed),
            )
        time.sleep(poll_s)


# -- the run -------------------------------------------------------------------------------

_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.:@-]+")


def ident(*parts: str) -> str:
    """A user or session id the API accepts, made of ``parts``."""
    return _UNSAFE_ID.sub("-", "-".join(parts)).strip("-")[:120] or "x"


@dataclass(frozen=True)
class RunOptions:
    data: Path
    model: str = "local"
    personas: tuple[str, ...] = ()
    out_dir: Path = RESULTS_DIR
    slow_loop_timeout_s: float = 1800.0
    start_timeout_s: float = 600.0
    answer_timeout_s: float = 900.0
    verbose: bool = True
    #: keep a copy of the data directory once the messages are read (for --from-told runs)
    keep_told: Path | None = None
    #: start from such a copy: ask the questions only (answer composition compared on the same reading)
    from_told: Path | None = None


class Harness:
    """Says the messages, waits for the slow loop, asks the questions: one persona per user."""

    def __init__(self, service: LiveService, options: RunOptions) -> None:
        self.service = service
        self.options = options
        self.run_id = uuid.uuid4().hex[:6]
        self.waits: list[dict[str, Any]] = []

    def _say(self, client: Client, text: str, session_id: str, label: str) -> Exchange:
        """One line; if it failed because the service had stopped, the service is started
        again and the line sent once more (timed from the first send, as a user waits)."""
        started = time.perf_counter()
        exchange = say(client, text, session_id)
        if exchange.failed and self.service.recover(label):
            exchange = dataclasses.replace(
                say(client, text, session_id),
                seconds=time.perf_counter() - started,
                service_restarted=True,
            )
        if self.options.verbose:
            mark = "[red]failed[/]" if exchange.failed else f"{exchange.seconds:5.1f} s"
            console.print(
                f"[dim]{label}[/] {mark} {_short(text)} -> {_short(exchange.answer)}", highlight=False
            )
        return exchange

    def tell(self, persona: Persona, run: PersonaRun) -> None:
        user = ident(persona.id)
        with self.service.client(user, self.options.answer_timeout_s) as client:
            for message in persona.messages:
                session = ident("lm", self.run_id, persona.id, message.session)
                run.messages.append(
                    self._say(client, message.text, session, f"{persona.id} {message.session}")
                )

    def _jobs(self) -> JobsView:
        """The service's job list; a service that stopped by itself is started again first."""
        with self.service.client(None, 30.0) as admin:
            try:
                return admin.jobs()
            except (TheaError, httpx.HTTPError):
                if not self.service.recover("the wait for the slow loop"):
                    raise
        with self.service.client(None, 30.0) as admin:
            return admin.jobs()

    def wait(self, label: str) -> SlowLoopWait:
        waited = wait_for_slow_loop(self._jobs, self.options.slow_loop_timeout_s)
        state = "[red]timed out[/]" if waited.timed_out else "done"
        console.print(
            f"slow loop ({label}): {state} after {waited.seconds:.0f} s, {waited.finished} jobs finished, "
            f"{waited.failed} failed, {waited.pending} pending"
        )
        self.waits.append({"after": label, **dataclasses.asdict(waited)})
        return waited

    def _fresh(self, persona: Persona, what: str) -> str:
        return ident("lm", self.run_id, persona.id, what, uuid.uuid4().hex[:6])

    def ask(self, persona: Persona, run: PersonaRun) -> None:
        with self.service.client(ident(persona.id), self.options.answer_timeout_s) as client:
            for n, question in enumerate(persona.questions, 1):
                exchange = self._say(client, question.q, self._fresh(persona, f"q{n}"), f"{persona.id} q{n}")
                score = score_answer(exchange.answer, question.expect, question.forbid)
                run.questions.append(QuestionResult(question.kind, exchange, score))
            repeat = persona.repeat
            if repeat is None:
                return
            asks = [
                self._say(client, repeat.q, self._fresh(persona, f"r{n}"), f"{persona.id} repeat {n}")
                for n in range(1, repeat.times + 1)
            ]
            if asks:
                self.wait(f"the repeated asks of {persona.id}")
            last = repeat.times + 1
            asks.append(
                self._say(client, repeat.q, self._fresh(persona, f"r{last}"), f"{persona.id} repeat {last}")
            )
            scored = score_repeat([a.answer for a in asks], repeat.expect, repeat.forbid)
            run.repeat = RepeatResult(repeat.q, repeat.times, tuple(asks), scored)


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "\u2026"


def _no_sockets(folder: str, names: list[str]) -> list[str]:
    """The unix sockets among ``names`` (a copy of a data directory leaves them out)."""
    return [n for n in names if stat.S_ISSOCK(os.lstat(os.path.join(folder, n)).st_mode)]


def keep_told(service: LiveService, keep: Path) -> None:
    """Stop the service, copy its data directory to ``keep`` (replacing an older copy), start it
    again on the same data."""
    service.stop()
    shutil.rmtree(keep, ignore_errors=True)
    shutil.copytree(service.paths.data_dir, keep, ignore=_no_sockets)
    console.print(f"the data directory, messages read, is kept in {keep}")
    service.start()


@contextlib.contextmanager
def fresh_service(options: RunOptions) -> Iterator[LiveService]:
    """A service of the run's model on a new temporary data directory (a copy of
    ``options.from_told`` when given); on exit the service is stopped first, then the directory
    removed."""
    with tempfile.TemporaryDirectory(prefix="thea-live-memory-", ignore_cleanup_errors=True) as tmp:
        if options.from_told is not None:
            shutil.copytree(options.from_told, Path(tmp) / "data", ignore=_no_sockets)
        service = LiveService(Path(tmp) / "data", options.model, start_timeout_s=options.start_timeout_s)
        with service:
            pid = service.process.pid if service.process else "?"
            console.print(f"thea service pid {pid} ({options.model} model) on {tmp}")
            yield service


def measure(options: RunOptions) -> dict[str, Any]:
    """Run the scenarios against a fresh service; the result as JSON-ready data (no files)."""
    scenarios = load_scenarios(options.data)
    personas = select_personas(scenarios, options.personas)
    runs = [PersonaRun(p.id) for p in personas]
    started = time.perf_counter()
    with fresh_service(options) as service:
        exits = service.exits
        harness = Harness(service, options)
        if options.from_told is None:
            for persona, run in zip(personas, runs, strict=True):
                harness.tell(persona, run)
            harness.wait("all messages")
            if options.keep_told is not None:
                keep_told(service, options.keep_told)
        for persona, run in zip(personas, runs, strict=True):
            harness.ask(persona, run)
    seconds = time.perf_counter() - started
    return {
        "name": NAME,
        "params": {
            "model": options.model,
            "data": str(options.data),
            "personas": [p.id for p in personas],
            "slow_loop_timeout_s": options.slow_loop_timeout_s,
            "from_told": str(options.from_told) if options.from_told else None,
        },
        "machine": machine(),
        "elapsed_s": round(seconds, 1),
        "summary": _summary_json(summarize(runs)),
        "slow_loop": harness.waits,
        "service_exits": [dataclasses.asdict(e) for e in exits],
        "personas": [
            {
                "id": run.persona,
                "summary": _summary_json(summarize([run])),
                "messages": [m.to_json() for m in run.messages],
                "questions": [q.to_json() for q in run.questions],
                "repeat": run.repeat.to_json() if run.repeat else None,
            }
            for run in runs
        ],
        "rows": rows(summarize(runs), options.model, seconds, len(exits)),
    }


def _summary_json(summary: Summary) -> dict[str, Any]:
    return {"accuracy": summary.accuracy, **dataclasses.asdict(summary)}


# -- reports -------------------------------------------------------------------------------


def rows(summary: Summary, model: str, seconds: float, restarts: int = 0) -> list[dict[str, Any]]:
    """The registry's rows: counts against their totals (the ratio is the share)."""
    out = [
        row("right answers", summary.right, float(summary.questions), "answers", "all questions"),
        *(
            row(f"right answers: {kind}", k.right, float(k.total), "answers")
            for kind, k in summary.by_kind.items()
        ),
        row("stale answers", summary.stale, float(summary.questions), "answers", "a forbid string present"),
        row(
            "answered without the model and wrong",
            summary.without_model_wrong,
            float(summary.questions),
            "answers",
            f"{summary.without_model} answered without the model",
        ),
        row(
            "answers speaking as the user",
            summary.first_person_questions,
            float(summary.questions),
            "answers",
            f"questions; {summary.first_person_messages} of {summary.messages} message answers",
        ),
        row("repeated question right", summary.repeat_right, float(summary.repeat_total), "personas"),
        row("failed messages", summary.failed_messages, float(summary.messages), "messages", "target 0"),
        row("service stopped by itself", restarts, None, "times", "started again by the harness; target 0"),
    ]
    for label, t in (("message", summary.message_time), ("question", summary.question_time)):
        if t.median_s is not None and t.p90_s is not None:
            out.append(row(f"seconds per {label} answer, median", t.median_s, None, "s", f"n={t.n}"))
            out.append(row(f"seconds per {label} answer, p90", t.p90_s, None, "s"))
    out.append(row("run time", seconds, None, "s", f"model {model}"))
    return out


def _fraction(right: int, total: int) -> str:
    """right/total, or "-" when there was nothing to count."""
    return f"{right}/{total}" if total else "-"


def _seconds(t: Timing) -> str:
    if t.median_s is None or t.p90_s is None:
        return "-"
    return f"{t.median_s:.1f} / {t.p90_s:.1f}"


@dataclass(frozen=True)
class TextTable:
    """A table of the report, rendered for the console (rich) and for the markdown file."""

    title: str
    headers: list[str]
    body: list[list[str]]
    caption: str = ""


def _lines(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(p["id"], p["summary"]) for p in result["personas"]] + [("all", result["summary"])]


def report_tables(result: dict[str, Any]) -> list[TextTable]:
    """One line per persona plus "all": the main figures, then right answers per kind."""
    headers = ["persona", "right", "stale", "no model (wrong)", "as user (q)", "as user (msg)", "repeat"]
    headers += ["failed msgs"]
    headers += ["msg s med/p90", "question s med/p90"]
    main = [
        [
            name,
            _fraction(s["right"], s["questions"]),
            str(s["stale"]),
            f"{s.get('without_model', 0)} ({s.get('without_model_wrong', 0)})",
            str(s["first_person_questions"]),
            str(s["first_person_messages"]),
            _fraction(s["repeat_right"], s["repeat_total"]),
            _fraction(s["failed_messages"], s["messages"]),
            _seconds(Timing(**s["message_time"])),
            _seconds(Timing(**s["question_time"])),
        ]
        for name, s in _lines(result)
    ]
    kinds = list(result["summary"]["by_kind"])
    by_kind = [
        [name, *(_fraction(**s["by_kind"][k]) if k in s["by_kind"] else "-" for k in kinds)]
        for name, s in _lines(result)
    ]
    title = f"live memory ({result['params']['model']} model, {result['elapsed_s']} s)"
    return [
        TextTable(title, headers, main, _exits_line(result)),
        TextTable("right answers by kind", ["persona", *kinds], by_kind),
    ]


def _exits_line(result: dict[str, Any]) -> str:
    exits = result["service_exits"]
    if not exits:
        return "the service ran without a stop"
    where = "; ".join(f"{e['during']} (exit {e['exit_code']}, up {e['uptime_s']:.0f} s)" for e in exits)
    times = "once" if len(exits) == 1 else f"{len(exits)} times"
    return f"the service stopped by itself {times} and was started again: {where}"


def console_table(table: TextTable) -> Table:
    out = Table(title=table.title, caption=table.caption or None)
    for n, header in enumerate(table.headers):
        out.add_column(header, justify="left" if n == 0 else "right")
    for n, line in enumerate(table.body):
        out.add_row(*line, end_section=n == len(table.body) - 2)
    return out


def markdown_table(table: TextTable) -> list[str]:
    return [
        "| " + " | ".join(table.headers) + " |",
        "| " + " | ".join(["---"] + ["---:"] * (len(table.headers) - 1)) + " |",
        *("| " + " | ".join(_cell(c) for c in line) + " |" for line in table.body),
    ]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown(result: dict[str, Any]) -> str:
    """The report: the tables, the slow-loop waits, then every question of every persona with
    its answer and score, the repeat, failed messages and message answers speaking as the user."""
    params = result["params"]
    out = [
        f"# Live memory ({params['model']} model)",
        "",
        f"Data `{params['data']}`, personas {', '.join(params['personas'])}; {result['elapsed_s']} s; "
        f"{result['machine']['cpus']} cpus. Right = every expect group matched and no forbid string; "
        "stale = a forbid string in the answer; no model (wrong) = answers no model wrote (a claim said "
        'back, "I don\'t know") and how many of them were wrong; as user = answers that speak about '
        "the user in the "
        "first person (to questions, to messages); seconds are client-side, send to complete answer.",
    ]
    for table in report_tables(result):
        out += ["", f"**{table.title}**", "", *markdown_table(table)]
        if table.caption:
            out += ["", table.caption[:1].upper() + table.caption[1:] + "."]
    out += ["", "## Slow loop", ""]
    for wait in result["slow_loop"]:
        state = "TIMED OUT" if wait["timed_out"] else "done"
        out.append(
            f"- after {wait['after']}: {state} in {wait['seconds']:.0f} s, {wait['finished']} jobs finished, "
            f"{wait['failed']} failed, {wait['pending']} pending"
        )
        out.extend(f"  - failed: {_cell(j)}" for j in wait["failed_jobs"])
    for persona in result["personas"]:
        out += ["", f"## {persona['id']}", ""]
        out += ["| kind | question | answer | right | missing | forbid hit | as user | s |"]
        out.append("| --- | --- | --- | --- | --- | --- | --- | ---: |")
        for q in persona["questions"]:
            missing = "; ".join(" / ".join(g) for g in q["failed_groups"])
            right = "yes" if q["right"] else "no"
            hits = ", ".join(q["forbid_hits"])
            as_user = "yes" if q["speaks_as_user"] else ""
            out.append(
                f"| {q['kind']} | {_cell(q['text'])} | {_cell(q['error'] or q['answer'])} | {right} | "
                f"{_cell(missing)} | {_cell(hits)} | {as_user} | {q['seconds']:.1f} |"
            )
        repeat = persona["repeat"]
        if repeat is not None:
            asks = ", ".join("right" if r else "wrong" for r in repeat["each_right"])
            out += ["", f'Repeat "{_cell(repeat["q"])}" ({repeat["times"]} + 1 asks): {asks}.']
            out.append(f"Last answer: {_cell(repeat['asks'][-1]['error'] or repeat['asks'][-1]['answer'])}")
        failed = [m for m in persona["messages"] if m["error"]]
        as_user_acks = [m for m in persona["messages"] if m["speaks_as_user"]]
        if failed:
            out += ["", "Failed messages:", *(f"- {_cell(m['text'])}: {_cell(m['error'])}" for m in failed)]
        if as_user_acks:
            out += ["", "Message answers speaking as the user:"]
            out += [f"- {_cell(m['text'])} -> {_cell(m['answer'])}" for m in as_user_acks]
    return "\n".join(out) + "\n"


def write_files(result: dict[str, Any], out_dir: Path) -> list[Path]:
    """``live_memory-<timestamp>.json`` and ``.md`` in ``out_dir``."""
    when = stamp()
    result["timestamp"] = when
    md_path = out_dir / f"{NAME}-{when}.md"
    result["files"] = [str(out_dir / f"{NAME}-{when}.json"), str(md_path)]
    json_path = write_json(result, NAME, out_dir, when)
    md_path.write_text(markdown(result), encoding="utf-8")
    return [json_path, md_path]


def execute(options: RunOptions) -> dict[str, Any]:
    """Measure, print the table, write both files."""
    result = measure(options)
    for table in report_tables(result):
        console.print(console_table(table))
    for path in write_files(result, options.out_dir):
        console.print(f"results: {path}")
    return result


def run(quick: bool) -> dict[str, Any]:
    """The registry's entry: the offline model; quick = the first persona only."""
    scenarios = load_scenarios(default_data())
    personas = (scenarios.personas[0].id,) if quick else ()
    return execute(RunOptions(data=default_data(), model="local", personas=personas))


def _stop_on_sigterm() -> None:
    """SIGTERM ends the run like Ctrl-C: the service is stopped and the temp dir removed."""

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or NAME).splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="scenario file (default: shared/data)")
    parser.add_argument("--model", default="local", choices=MODELS, help="fake: a smoke run of the harness")
    parser.add_argument("--personas", nargs="*", default=[], metavar="ID", help="only these personas")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the result files")
    parser.add_argument("--slow-loop-timeout", type=float, default=1800.0, help="seconds to wait for jobs")
    parser.add_argument("--start-timeout", type=float, default=600.0, help="seconds to wait for the service")
    parser.add_argument("--quiet", action="store_true", help="no line per message")
    parser.add_argument(
        "--keep-told",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep a copy of the data directory once every message is read",
    )
    parser.add_argument(
        "--from-told",
        type=Path,
        default=None,
        metavar="DIR",
        help="start from a --keep-told copy and ask the questions only",
    )
    args = parser.parse_args(argv)
    options = RunOptions(
        data=args.data or default_data(),
        model=args.model,
        personas=tuple(args.personas),
        out_dir=args.out,
        slow_loop_timeout_s=args.slow_loop_timeout,
        start_timeout_s=args.start_timeout,
        verbose=not args.quiet,
        keep_told=args.keep_told,
        from_told=args.from_told,
    )
    try:
        select_personas(load_scenarios(options.data), options.personas)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    _stop_on_sigterm()
    try:
        execute(options)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: the service was stopped, nothing written[/]")
        return 130
    except SystemExit:
        console.print("[yellow]terminated: the service was stopped, nothing written[/]")
        raise
    except TheaError as exc:
        console.print(f"[red]{exc}[/]")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
