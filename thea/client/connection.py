"""Where a client's requests go: the local service's unix socket, or a URL with a token."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from thea.api import USER_HEADER
from thea.client.local import LOCAL_BASE_URL, ensure_service
from thea.config import Settings, load_settings
from thea.errors import ConfigError
from thea.local_token import read_local_token
from thea.locations import ServicePaths

_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return host in _LOOPBACK or host.startswith("127.")


def _settings_for(url: str | None) -> Settings | None:
    """The settings (data dir, ``THEA_TOKEN``); with an explicit URL a broken config is no
    reason to fail: the URL and its token are all that is needed."""
    if url is None:
        return load_settings()
    try:
        return load_settings()
    except ConfigError:
        return None


@dataclass
class Connection:
    base_url: str
    uds: str | None
    token: str | None
    user: str | None
    settings: Settings | None  # set for the local service (to start it)

    @property
    def local(self) -> bool:
        return self.uds is not None

    @classmethod
    def resolve(
        cls,
        url: str | None = None,
        token: str | None = None,
        *,
        user: str | None = None,
        settings: Settings | None = None,
    ) -> Connection:
        """Explicit arguments first, then ``THEA_URL`` / ``THEA_TOKEN`` (settings), else local.

        A URL on this machine (loopback) with no token given gets the local token of the data
        directory (``service/token``): the service's own TCP listener (``thea serve``) needs it."""
        if settings is None and (url is None or token is None):
            settings = _settings_for(url)
        url = url or (settings.url if settings else None)
        if token is None and settings is not None and settings.token is not None:
            token = settings.token.get_secret_value()
        if url:
            if token is None and settings is not None and _loopback(url):
                token = read_local_token(ServicePaths.of(settings.data_dir))
            return cls(base_url=url.rstrip("/"), uds=None, token=token, user=user, settings=None)
        assert settings is not None
        socket = str(ServicePaths.of(settings.data_dir).socket)
        return cls(base_url=LOCAL_BASE_URL, uds=socket, token=token, user=user, settings=settings)

    def headers(self) -> dict[str, str]:
        out = {"Accept": "application/json, text/event-stream"}
        if self.token:
            out["Authorization"] = f"Bearer {self.token}"
        if self.user:
            out[USER_HEADER] = self.user
        return out

    def ensure(
        self, on_wait: Callable[[], None] | None, on_status: Callable[[str], None] | None = None
    ) -> None:
        if self.settings is not None:
            ensure_service(self.settings, on_wait=on_wait, on_status=on_status)

    def describe(self, exc: Exception) -> str:
        return f"cannot reach {self.where}: {exc}"

    @property
    def where(self) -> str:
        return f"the local service ({self.uds})" if self.local else self.base_url
