"""Fixtures for the web tests: one real embedded runtime per module, a streaming fake model."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from thea.config import Settings, load_settings
from thea.llm.fake import DEFAULT_REPLY, StreamingFakeChatModel, default_handlers
from thea.runtime import Runtime, build_runtime
from thea.testing.service import bearer, service_app

TOKEN = "s3cret-web-token"


@pytest.fixture(scope="module")
def web_settings() -> Iterator[Settings]:
    # Own temp dir, not tmp_path_factory: a concurrent pytest run on the same machine
    # prunes old /tmp/pytest-of-* folders, and with them a live server's socket.
    data = Path(tempfile.mkdtemp(prefix="thea-web-"))
    try:
        yield load_settings("embedded", data_dir=data / "data", llm={"provider": "fake"})
    finally:
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def llm() -> StreamingFakeChatModel:
    return StreamingFakeChatModel()


@pytest.fixture(scope="module")
def runtime(web_settings: Settings, llm: StreamingFakeChatModel) -> Iterator[Runtime]:
    rt = build_runtime(web_settings, llm=llm)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture(autouse=True)
def _reset_llm(llm: StreamingFakeChatModel) -> Iterator[None]:
    """Each test starts with a well-behaved model, whatever the previous one scripted."""
    yield
    llm.fail = set()
    llm.token_delay_s = 0.0
    llm.handlers = default_handlers()
    llm.reply = DEFAULT_REPLY


@pytest.fixture(scope="module")
def app(runtime: Runtime) -> Any:
    """The service's app on the module's runtime, as the TCP listener serves it."""
    return service_app(runtime)


@pytest.fixture
def client(app: Any, web_settings: Settings) -> Iterator[TestClient]:
    """The local user on TCP: with the data directory's local token, as every TCP client."""
    with TestClient(app, base_url="http://localhost", headers=bearer(web_settings)) as c:
        yield c
