"""The pictures in docs/user-guide.md come from the real UI: this slow test regenerates them
(``python -m pytest -m slow tests/e2e/web/test_screenshots.py``) and checks what they show."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import ROOT

IMG = ROOT / "docs" / "img"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs /usr/bin/chromium"),
]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_screenshots_are_regenerated_from_the_running_ui() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/screenshots.py", "--out", str(IMG)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("web-chat.png", "web-trace.png", "web-insights.png", "web-graph.png", "web-memory.png"):
        assert png_size(IMG / name) == (1280, 720)
        assert (IMG / name).stat().st_size > 20_000, f"{name} looks blank"
    assert png_size(IMG / "web-memory-phone.png") == (390, 844)  # the Memory page on a phone
    assert (IMG / "web-memory-phone.png").stat().st_size > 20_000
    tree = (IMG / "trace-tree.txt").read_text(encoding="utf-8")
    assert "What do I work on?" in tree
    for step in ("instinct", "plan", "recall", "synthesis"):
        assert f"{step} ✓ SUCCESS" in tree
    svg = (IMG / "trace-tree.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg")
    assert "synthesis" in svg
