"""Helpers for the web tests: a TestClient that names the server ``localhost``."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

#: what the test clients call the server: a loopback name, as a browser on this machine would
LOCAL_URL = "http://localhost"


def local_client(app: Any, **kwargs: Any) -> TestClient:
    """A TestClient that names the server ``localhost`` (TestClient's own default host,
    ``testserver``, is refused like any non-loopback name when no token is set)."""
    return TestClient(app, base_url=LOCAL_URL, **kwargs)
