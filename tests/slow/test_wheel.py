"""The wheel carries what an installed thea needs: Cypher files, config defaults, web assets."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.processes import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_the_wheel_has_every_cypher_file_and_the_config(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("thea-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for source in (ROOT / "cypher").rglob("*.cypher"):
        assert f"thea/_resources/cypher/{source.relative_to(ROOT / 'cypher')}" in names
    assert "thea/_resources/config/thea.toml" in names
    assert "thea/web/static/vendor/cytoscape/cytoscape.min.js" in names
    assert {"services/cycle/orchestrator.py", "workers/jobs.py"} <= names
