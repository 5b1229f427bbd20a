"""The project's own static checks run as part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_imports_flow_one_way() -> None:
    """core -> memory/llm -> services -> workers -> interfaces (import-linter contract)."""
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("import-linter is not installed (pip install -e '.[dev]')")
    result = _run(exe, "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "thea", "services", "workers", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy", "thea", "services", "workers", "benchmarks")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
