"""The terminal and the web page are clients of one service: a fact told in the terminal is
known on the page. Real processes: ``thea chat`` and ``thea serve`` against one data dir, the
page in headless Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.knowledge.claims.keeper import claim_id as fact_id

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs the Debian chromium package")
sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install -e '.[dev]')")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def env_for(data: Path, provider: str) -> dict[str, str]:
    return {**os.environ, "THEA_DATA_DIR": str(data), "THEA_LLM__PROVIDER": provider, "TERM": "dumb"}


def run(data: Path, provider: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thea.cli.main", *args],
        capture_output=True,
        text=True,
        env=env_for(data, provider),
        timeout=600,
    )


@pytest.fixture
def page() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(120_000)
            yield page
        finally:
            browser.close()


def ask_on_the_page(page: Any, url: str, text: str) -> Any:
    page.goto(url)
    sync_api.expect(page.locator("#whoami")).to_contain_text("local")  # the terminal's user
    assert "token" not in page.url  # kept in a cookie, taken out of the address bar
    page.fill("#input", text)
    page.press("#input", "Enter")
    answer = page.locator("#messages li.msg.thea").last
    # the real model may first finish a slow-loop call already running (foreground-first
    # scheduling cannot cut a call short): wait for the answer as a user would, not 5 s
    sync_api.expect(answer.locator(".trace-link")).to_be_visible(timeout=180_000)
    return answer


@contextlib.contextmanager
def told_in_the_terminal_asked_on_the_page(
    tmp_path: Path, page: Any, provider: str
) -> Iterator[tuple[str, Any]]:
    """A chat tells a fact; the page asks about it while the chat is still open."""
    data = tmp_path / "data"
    chat = subprocess.Popen(
        [sys.executable, "-m", "thea.cli.main", "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(data, provider),
    )
    try:
        assert chat.stdin is not None
        chat.stdin.write("My cat is called Tom.\n")
        chat.stdin.flush()
        port = free_port()
        served = run(data, provider, "serve", "--port", str(port))
        assert served.returncode == 0, served.stderr
        # the page's address carries the data directory's local token, as Jupyter's does
        found = re.search(rf"http://127\.0\.0\.1:{port}/\?token=[A-Za-z0-9_-]{{20,}}", served.stdout)
        assert found is not None, served.stdout
        url = found.group(0)
        deadline = time.monotonic() + 300
        told = run(data, provider, "trace", "last", "--format", "json")
        while '"FinalResponse"' not in told.stdout and time.monotonic() < deadline:
            time.sleep(0.5)
            told = run(data, provider, "trace", "last", "--format", "json")
        answer = ask_on_the_page(page, url, "What is my cat called?")
        yield told.stdout, answer
        chat.stdin.write("!quit\n")
        chat.stdin.flush()
        chat.communicate(timeout=120)
        assert chat.returncode == 0
    finally:
        if chat.poll() is None:
            chat.kill()
        run(data, provider, "service", "stop")


def test_the_page_recalls_what_the_terminal_was_told(tmp_path: Path, page: Any) -> None:
    with told_in_the_terminal_asked_on_the_page(tmp_path, page, "fake") as (told, answer):
        impulse_id = json.loads(told)["impulse"]["id"]
        answer.get_by_role("button", name="How I got this").click()
        recall = page.locator("#trace-panel li.step", has_text="recall")
        # what the terminal's message told was recalled: its fact of record once the slow loop
        # has read it, else the user's own words (which of the two races the slow loop)
        told_ids = f"{fact_id(impulse_id, 0)[:8]}|{impulse_id[:8]}"
        sync_api.expect(recall).to_contain_text(re.compile(rf"(?:{told_ids}|\bTom\b)"))


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_fact_told_in_the_terminal_is_answered_on_the_page(tmp_path: Path, page: Any) -> None:
    with told_in_the_terminal_asked_on_the_page(tmp_path, page, "local") as (_, answer):
        assert "tom" in answer.locator(".text").inner_text().lower()
