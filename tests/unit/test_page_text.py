"""Every text the web page shows from the server goes through visible() (app.js), and visible()
shows what could hide or turn text around as escapes: control and bidi characters, zero-width
characters and the invisible tag characters (round 4 of the attacks, issue 37 item 3: the memory
summary was set raw, and visible() let tag characters through)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.processes import ROOT

APP = ROOT / "thea" / "web" / "static" / "app.js"
#: a right-hand side made only of the page's own words and numbers (counts, lengths)
_OWN = re.compile(r'^(?:[\w.]+\.(?:length|count)|"[^"]*"|===|[()?:+\s\d])+$')


def test_every_text_set_on_the_page_goes_through_visible() -> None:
    raw = []
    for number, line in enumerate(APP.read_text(encoding="utf-8").splitlines(), 1):
        for found in re.finditer(r"\.textContent\s*\+?=(?!=)\s*(.+?);", line):
            value = found.group(1).strip()
            if not value.startswith("visible(") and not _OWN.match(value):
                raw.append(f"app.js:{number}: {line.strip()}")
    assert not raw, "set without visible():\n" + "\n".join(raw)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run app.js's visible()")
def test_visible_shows_hidden_characters_as_escapes_and_leaves_the_rest() -> None:
    source = APP.read_text(encoding="utf-8")
    start = source.index("const HIDDEN")
    end = source.index("function el(")
    cases = {
        "tag \U000e0049\U000e0067 chars": "tag \\u{e0049}\\u{e0067} chars",
        "zero\u200bwidth\ufeff": "zero\\u200bwidth\\ufeff",
        "exe.\u202etxt": "exe.\\u202etxt",
        "bell\x07": "bell\\x07",
        "Ünïcödé, emoji 🐈 and\nnew lines stay": "Ünïcödé, emoji 🐈 and\nnew lines stay",
    }
    script = source[start:end] + f"\nconsole.log(JSON.stringify({json.dumps(list(cases))}.map(visible)));"
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == list(cases.values())
