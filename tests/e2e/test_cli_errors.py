"""Errors a user can read: configuration mistakes and hostile text, through real CLI processes.

A bad setting gives one line on stderr naming the setting and what it accepts, exit code 2,
no traceback. Control characters (ESC sequences, ``\\r``, bidi overrides) in a ``!`` command,
an id or stored text are shown visibly (``\\x1b``) and never reach the terminal raw.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import processes
from tests.service_support import stop_services_under
from thea.config import load_settings
from thea.llm.fake import FakeChatModel
from thea.llm.prompt_ids import PromptId
from thea.memory.factory import embedded_server
from thea.runtime import build_runtime

#: Things a terminal would act on: ESC (clear screen, set title, colours, reset), BEL, CR, RLO.
RAW = ("\x1b", "\x07", "\r", "\u202e")


def thea(
    args: list[str],
    tmp: Path,
    env: dict[str, str] | None = None,
    stdin: str = "",
    data_dir: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``thea ARGS`` run from ``tmp`` (where a user's .env would be read) in 100 columns."""
    return processes.thea(args, data_dir or tmp / "data", stdin=stdin, cwd=tmp, COLUMNS="100", **(env or {}))


@dataclass(frozen=True)
class Mistake:
    name: str
    args: list[str]
    env: dict[str, str]
    files: dict[str, str]
    expected: tuple[str, ...]


MISTAKES = [
    Mistake("unknown profile", ["-p", "bogus", "doctor"], {}, {}, ("'bogus'", "embedded, server")),
    Mistake(
        "unknown profile (env)", ["memory", "stats"], {"THEA_PROFILE": "nope"}, {}, ("'nope'", "embedded")
    ),
    Mistake(
        "wrong enum value",
        ["ask", "hi"],
        {"THEA_LLM__PROVIDER": "nope"},
        {},
        ("llm.provider", "'nope'", "THEA_LLM__PROVIDER", "local, openai, ollama, fake"),
    ),
    Mistake(
        "wrong type",
        ["memory", "stats"],
        {"THEA_GRAPH__BATCH_SIZE": "many"},
        {},
        ("graph.batch_size", "'many'", "whole number"),
    ),
    Mistake(
        "number out of range",
        ["ask", "hi"],
        {"THEA_CONTEXT__FIFO_SHARE": "7"},
        {},
        ("context.fifo_share", "at most 1"),
    ),
    Mistake(
        "list that is not JSON",
        ["jobs"],
        {"THEA_QUEUE__RETRY_BACKOFF_S": "2,10"},
        {},
        ("THEA_QUEUE__RETRY_BACKOFF_S", "JSON"),
    ),
    Mistake(
        "bad .env value",
        ["trace"],
        {},
        {".env": "THEA_VECTOR__BACKEND=pinecone\n"},
        ("vector.backend", "'pinecone'", ".env", "qdrant_edge, qdrant, graph"),
    ),
    Mistake(
        "broken TOML config file",
        ["doctor"],
        {"THEA_CONFIG_FILE": "thea.toml"},
        {"thea.toml": "[embedded\nllm = 1\n"},
        ("thea.toml", "not valid TOML", "line 1"),
    ),
    Mistake(
        "bad value in the config file",
        ["insights"],
        {"THEA_CONFIG_FILE": "thea.toml"},
        {"thea.toml": '[embedded]\nchronicle = { backend = "mysql" }\n'},
        ("chronicle.backend", "'mysql'", "config file", "sqlite, redis"),
    ),
]


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_a_configuration_mistake_is_one_line_naming_the_setting_and_the_choices(
    mistake: Mistake, tmp_path: Path
) -> None:
    for name, text in mistake.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = thea(mistake.args, tmp_path, mistake.env)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("configuration error: ")
    for part in mistake.expected:
        assert part in lines[0]


def test_an_escape_sequence_in_a_command_is_shown_not_sent(tmp_path: Path) -> None:
    session = "!\x1b[31mred\x1bc\x1b]0;pwned\x07 x\n!trace \x1b[2Jzz\n!forget \u202eabc\n!quit\n"
    done = thea(["chat", "--user", "ana"], tmp_path, stdin=session)
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert not [c for c in RAW if c in shown], repr(shown)
    assert "unknown command !\\x1b[31mred\\x1bc\\x1b]0;pwned\\x07" in shown
    assert "\\x1b[2Jzz" in shown
    assert "\\u202eabc" in shown
    bad_id = thea(["trace", "\x1b[2J\x1bc"], tmp_path)
    assert bad_id.returncode == 2
    assert not [c for c in RAW if c in bad_id.stdout + bad_id.stderr]


HOSTILE_ANSWER = "Sure \x1b[2J\x1b]0;pwned\x07\x1bc done"
HOSTILE_INSIGHT = "Ana likes \x1b[31mred\x1b[0m things\r and \u202egnihtemos"


def _hostile() -> FakeChatModel:
    """A model whose answer and insight are full of control characters."""
    llm = FakeChatModel(reply=HOSTILE_ANSWER)
    llm.answer(
        PromptId.CRYSTALLIZE,
        json.dumps({"insight": HOSTILE_INSIGHT, "seed": "red", "tags": ["\x1b[5mcolour"], "triples": []}),
    )
    return llm


@dataclass
class Stored:
    tmp: Path
    data: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stored]:
    """A data dir whose memories hold control characters (model output and the user's own text),
    told by the local user the CLI speaks for."""
    tmp = tmp_path_factory.mktemp("cli-errors")
    data = tmp / "data"
    settings = load_settings("embedded", data_dir=data, llm={"provider": "fake"})
    server = embedded_server(settings).start()  # one server for the module; commands attach
    runtime = build_runtime(settings, llm=_hostile())
    try:
        asyncio.run(
            runtime.orchestrator.handle_impulse("I like red\r\u202e things. Do you?", settings.user_id, "s1")
        )
        runtime.run_jobs()
    except BaseException:
        server.stop()
        raise
    finally:
        runtime.close()
    try:
        yield Stored(tmp=tmp, data=data, env={"THEA_PROFILE": "embedded"})
    finally:
        stop_services_under(tmp)  # the commands started the data dir's service
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize(
    "args",
    [
        ["trace"],
        ["trace", "last", "--format", "json"],
        ["insights", "--state", "all"],
        ["insights", "--json", "--state", "all"],
    ],
    ids=lambda a: " ".join(a),
)
def test_stored_control_characters_never_reach_the_terminal_raw(stored: Stored, args: list[str]) -> None:
    done = thea(args, stored.tmp, stored.env, data_dir=stored.data)
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert not [c for c in RAW if c in shown], repr(shown)
    assert "\\x1b[31mred" in shown or "\\u001b[31mred" in shown  # the insight, visibly
    if args[0] == "trace":
        assert "[2J" in shown  # the answer, visibly
    if args[-1] == "json":  # still valid JSON, holding the stored text unchanged once decoded
        texts = _strings(json.loads(done.stdout))
        fragment = "\x1b[2J" if args[0] == "trace" else "\x1b[31mred"
        assert any(fragment in t for t in texts)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_an_argument_that_is_not_utf8_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """``thea ask $'caf\\xe9'`` from a Latin-1 terminal: one line, exit 2 (before: a pydantic
    traceback). Python hands the byte on as U+DCE9; the client refuses it before sending."""
    for args, what in ((["ask", "caf\udce9 au lait"], "the message"), (["trace", "ab\udcff"], "the id")):
        done = thea(args, tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stdout + done.stderr
        lines = done.stderr.strip().splitlines()
        if args[0] == "ask":
            assert len(lines) == 1, lines  # refused before a service is started for it
        assert f"{what} is not valid UTF-8 text (byte 0x" in lines[-1]
    stop_services_under(tmp_path)
