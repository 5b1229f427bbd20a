"""The project's own static checks run as part of the test suite."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.processes import ROOT


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


def test_only_thea_memory_runs_named_queries() -> None:
    """Outside thea/memory nothing runs Cypher by name: services use the typed graph operations."""
    queries = {p.stem for p in (ROOT / "cypher").rglob("*.cypher")}
    alternatives = "|".join(sorted(queries))
    named = re.compile(r"""\brun\(\s*["'](""" + alternatives + r""")["']""")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("thea", "services", "workers", "benchmarks", "scripts", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (ROOT / "thea" / "memory") not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if named.search(line) or re.search(r"\bgraph\._?run\(", line)
    ]
    assert not offenders, offenders


def test_nothing_outside_tests_imports_from_tests() -> None:
    """The package, benchmarks and scripts take their fakes and helpers from thea
    (thea.llm.fake, thea.testing), never from the test suite."""
    imports_tests = re.compile(r"^\s*(from|import)\s+tests(\.|\s|$)", re.MULTILINE)
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("thea", "services", "workers", "benchmarks", "scripts")
        for path in (ROOT / folder).rglob("*.py")
        if imports_tests.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_tests_find_the_repository_through_one_root() -> None:
    """A test that counts its own ``parents[n]`` breaks silently when it moves folder (CI once
    ran ``tests/scripts/screenshots.py``); every test takes ROOT from tests.processes."""
    counting = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != "processes.py" and re.search(r"__file__\)\.resolve\(\)\.parents\[", path.read_text())
    ]
    assert counting == [], counting
