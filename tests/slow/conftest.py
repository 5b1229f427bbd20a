"""The slow suite's app: the real offline model on real embedded engines."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from thea.config import load_settings
from thea.runtime import Runtime, build_runtime


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    """One app per test module (a fresh memory each) on the default embedded profile with the
    real offline model; slow-loop jobs run in this process (``rt.run_jobs``)."""
    settings = load_settings("embedded", data_dir=Path(tmp_path_factory.mktemp("real")) / "data")
    assert settings.llm.provider == "local"
    rt = build_runtime(settings)
    try:
        yield rt
    finally:
        rt.close()
