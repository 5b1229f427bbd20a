"""`thea chat` in a real terminal (tmux): prompt, streamed answer, commands, clean exit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


#: this test process's own tmux server (``tmux -L``): not the user's default one, nor that of
#: another pytest process (a parallel worker)
SOCKET = f"thea-test-{os.getpid()}"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False).stdout


@pytest.fixture(scope="module", autouse=True)
def _own_tmux_server() -> Iterator[None]:
    """Stop this module's tmux server and remove its socket (tmux leaves the file behind)."""
    yield
    tmux("kill-server")
    folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    (folder / SOCKET).unlink(missing_ok=True)


def wait_for(session: str, text: str, timeout: float = 60, *, times: int = 1) -> str:
    """The screen once ``text`` shows on it ``times`` times (a prompt drawn again)."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session, "-S", "-200")
        if screen.count(text) >= times:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared {times} time(s); screen:\n{screen}")


@contextmanager
def chat_in_tmux(name: str, data: Path, *, env: str = "", args: str = "") -> Iterator[str]:
    """``thea chat`` (fake model) in a 160x50 tmux session, which is killed afterwards; the
    session name. When the chat exits the pane prints ``EXITED:<code>``."""
    session = f"thea-test-{name}"
    env = f"THEA_DATA_DIR={data} THEA_LLM__PROVIDER=fake {env}".strip()
    command = f"env {env} {sys.executable} -m thea.cli.main chat {args}; echo EXITED:$?; sleep 30"
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", command)
    try:
        yield session
    finally:
        tmux("kill-session", "-t", session)


def test_chat_in_a_terminal(tmp_path: Path) -> None:
    with chat_in_tmux("chat", tmp_path / "data", args="--user ana") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "Hello, which queues does Redis use?", "Enter")
        wait_for(session, "thea> (fake model) I heard you.")
        tmux("send-keys", "-t", session, "!trace", "Enter")
        wait_for(session, "synthesis")
        tmux("send-keys", "-t", session, "!quit", "Enter")
        screen = wait_for(session, "EXITED:")
        assert "EXITED:0" in screen
        assert "Traceback" not in screen


def test_a_multi_line_paste_is_one_message(tmp_path: Path) -> None:
    """Three pasted lines: one message, one answer (before: three messages, three answers)."""
    with chat_in_tmux("paste", tmp_path / "data", args="--user ana") as session:
        wait_for(session, "you>")
        tmux("set-buffer", "-b", session, "Which queues\ndoes Redis use\nby default?")
        tmux("paste-buffer", "-p", "-d", "-b", session, "-t", session)  # -p: bracketed, as a terminal pastes
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "thea> (fake model) I heard you.")
        tmux("send-keys", "-t", session, "!trace", "Enter")
        screen = wait_for(session, "synthesis")
        assert screen.count("thea> ") == 1, screen  # one answer
        assert "queries: ['Which queues\\ndoes Redis use\\nby default?']" in screen  # one message, lines kept
        tmux("send-keys", "-t", session, "!quit", "Enter")
        screen = wait_for(session, "EXITED:")
        assert "EXITED:0" in screen


def test_ctrl_c_mid_answer_cancels_it_and_the_chat_goes_on(tmp_path: Path) -> None:
    """Ctrl-C while an answer streams: the prompt returns, the service stays up, the next
    question is answered, and the cancelled cycle says so in its trace."""
    with chat_in_tmux("cc", tmp_path / "data", env="THEA_LLM__FAKE_WORDS_PER_S=1") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "Tell me a long story.", "Enter")
        wait_for(session, "thea> (fake")  # the first words have arrived; the rest come slowly
        tmux("send-keys", "-t", session, "C-c")
        screen = wait_for(session, "(cancelled)")
        assert "Traceback" not in screen
        assert "Aborted" not in screen
        assert "FATAL" not in screen
        tmux("send-keys", "-t", session, "!trace", "Enter")
        wait_for(session, "cycle cancelled")
        tmux("send-keys", "-t", session, "Are you still there?", "Enter")
        screen = wait_for(session, "I heard you.", timeout=60)
        tmux("send-keys", "-t", session, "!quit", "Enter")
        screen = wait_for(session, "EXITED:")
        assert "EXITED:0" in screen
        assert "Traceback" not in screen


def test_bytes_that_are_not_utf8_get_one_line_and_the_chat_goes_on(tmp_path: Path) -> None:
    """A line with bytes that are not UTF-8 (a terminal set to Latin-1): one line saying so,
    then the next message is answered (before: a traceback ended the chat)."""
    with chat_in_tmux("utf8", tmp_path / "data") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "-l", "caf")
        tmux("send-keys", "-t", session, "-H", "e9", "ff")  # "café" in Latin-1, and 0xFF
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "not valid UTF-8 text (byte 0xE9)")
        tmux("send-keys", "-t", session, "Are you still there?", "Enter")
        screen = wait_for(session, "I heard you.")
        tmux("send-keys", "-t", session, "!quit", "Enter")
        screen = wait_for(session, "EXITED:")
        assert "EXITED:0" in screen
        assert "Traceback" not in screen


def test_a_paste_shows_no_markers_and_one_enter_sends_it(tmp_path: Path) -> None:
    """Issue 38, item 6: a pasted text shows as it was copied (no ``^[[200~``), stays in the
    line until Enter, and one Enter sends it as one message."""
    with chat_in_tmux("paste2", tmp_path / "data", args="--user ana") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "hi there", "Enter")  # an exchange before, as people chat
        wait_for(session, "you>", times=2)  # the answer is complete and the prompt is back
        letter = "Dear parents,\n" + "".join(f"Point {n}: bring item {n} in a bag.\n" for n in range(6))
        tmux("set-buffer", "-b", session, letter + "the bus leaves at 8:15.")
        tmux("paste-buffer", "-p", "-d", "-b", session, "-t", session)
        screen = wait_for(session, "the bus leaves at 8:15.")
        assert "you> Dear parents," in screen.splitlines()  # after the prompt, not drawn over it
        assert "200~" not in screen
        assert "^[" not in screen
        assert screen.count("thea> ") == 1  # nothing sent before Enter
        tmux("send-keys", "-t", session, "Enter")
        wait_for(session, "kept that text (8 lines)")  # a pasted text: kept, nothing in it answered
        time.sleep(1.0)  # an extra Enter is not needed: no second answer comes
        screen = tmux("capture-pane", "-p", "-t", session, "-S", "-200")
        assert screen.count("thea> ") == 2, screen  # "hi there" and the paste
        assert "201~" not in screen
        tmux("send-keys", "-t", session, "!quit", "Enter")
        assert "EXITED:0" in wait_for(session, "EXITED:")


def test_ctrl_c_at_an_empty_prompt_says_how_to_leave_and_a_second_one_leaves(tmp_path: Path) -> None:
    with chat_in_tmux("ccprompt", tmp_path / "data") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "C-c")
        screen = wait_for(session, "Ctrl-C again, Ctrl-D or !quit to leave")
        assert "EXITED" not in screen
        tmux("send-keys", "-t", session, "Are you still there?", "Enter")  # the chat goes on
        wait_for(session, "I heard you.\nyou>")  # the answer is complete: the prompt is back
        tmux("send-keys", "-t", session, "C-c")
        screen = wait_for(session, "I heard you.\nyou>\n(Ctrl-C again")
        time.sleep(0.3)
        assert "EXITED" not in tmux("capture-pane", "-p", "-t", session, "-S", "-200")
        tmux("send-keys", "-t", session, "C-c")  # the second in a row leaves
        screen = wait_for(session, "EXITED:")
        assert "EXITED:0" in screen
        assert "Traceback" not in screen


def test_emoji_get_a_kind_reply_not_a_refusal(tmp_path: Path) -> None:
    """Issue 38, item 2, with the stand-in model (its reactions are empty): emoji are small talk
    and get the plain friendly line, never the refusal a model may give."""
    with chat_in_tmux("emoji", tmp_path / "data") as session:
        wait_for(session, "you>")
        tmux("send-keys", "-t", session, "-l", "🐢🎉❤️")
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "I'm here whenever you want to talk.")
        assert "can't assist" not in screen
        tmux("send-keys", "-t", session, "!quit", "Enter")
        assert "EXITED:0" in wait_for(session, "EXITED:")
