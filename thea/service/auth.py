"""Who is calling: the user of a request, from its transport and its token.

* Unix socket (the data directory's own door, 0600 in a 0700 folder): the local user, or the
  user the caller names in ``X-Thea-User`` (same OS user, same trust). The only place where
  a caller may name a user.
* TCP, on loopback too: a token is always required (another local user, or a web page in
  the user's browser, reaches a loopback port as easily as the user). The **local token**
  (``service/token`` in the data dir, :mod:`thea.local_token`) is the local user and may run
  maintenance; each configured token (``service.tokens``, ``web_token``) *is* its user. The
  token comes as ``Authorization: Bearer`` or, from the web page, in its cookie
  (:func:`cookie_name`; set by ``GET /?token=...``). ``X-Thea-User`` naming another user
  than the token's is refused.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import Scope

from thea.api import USER_HEADER
from thea.config import Settings
from thea.errors import InputError, TheaError
from thea.local_token import ensure_local_token
from thea.locations import ServicePaths
from thea.service.middleware import TRANSPORT_KEY

_USER_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")


class AuthError(TheaError):
    """Missing or wrong credentials (HTTP 401)."""


@dataclass(frozen=True)
class Caller:
    user_id: str
    #: the data directory's user (unix socket, or the local token on TCP): may run maintenance
    local: bool
    #: came through the unix socket: may name another user (``X-Thea-User``, OpenAI's ``user``)
    on_socket: bool = False


def cookie_name(scope: Scope) -> str:
    """The page's cookie for this listener. Browsers share cookies between the ports of a
    host, so the name carries the port: two services on one machine keep their own."""
    server = scope.get("server")
    port = server[1] if isinstance(server, (tuple, list)) and len(server) > 1 else None
    return f"thea_token_{port}" if port else "thea_token"


def presented_token(scope: Scope) -> str | None:
    """The token a request presents: its bearer token, else the page's cookie."""
    headers = Headers(scope=scope)
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    cookie = HTTPConnection(scope).cookies.get(cookie_name(scope), "").strip()
    return cookie or None


class Authenticator:
    def __init__(self, settings: Settings) -> None:
        self.default_user = settings.user_id
        tokens = {user: secret.get_secret_value() for user, secret in settings.service.tokens.items()}
        if settings.web_token is not None:
            tokens.setdefault(settings.user_id, settings.web_token.get_secret_value())
        self._tokens = [(user, token.encode()) for user, token in tokens.items() if token]
        self._local_token = ensure_local_token(ServicePaths.of(settings.data_dir)).encode()

    @property
    def configured_tokens(self) -> bool:
        """Whether tokens for other users (or remote use) are configured: then any Host name is
        answered and the service may listen beyond loopback."""
        return bool(self._tokens)

    def token_user(self, token: str | None) -> tuple[str, bool] | None:
        """``(user, local)`` of a token, or None when it is no token of this service."""
        if not token:
            return None
        presented = token.encode()
        found: tuple[str, bool] | None = None
        for name, known in self._tokens:  # compare with every token: no early exit on a match
            if hmac.compare_digest(presented, known):
                found = (name, False)
        if hmac.compare_digest(presented, self._local_token):
            found = (self.default_user, True)
        return found

    def admits(self, scope: Scope) -> bool:
        """Whether a TCP request presents a valid token (checked before its body is read)."""
        return self.token_user(presented_token(scope)) is not None

    def caller(self, request: HTTPConnection) -> Caller:
        scope = request.scope
        named = request.headers.get(USER_HEADER)
        if named is not None and not _USER_ID.match(named):
            raise InputError(f"{USER_HEADER} must be 1-128 letters, digits or _.:@-")
        if scope.get(TRANSPORT_KEY, "tcp") == "unix":
            found = self.token_user(presented_token(scope))
            user = named or (found[0] if found else self.default_user)
            return Caller(user_id=user, local=True, on_socket=True)
        found = self.token_user(presented_token(scope))
        if found is None:
            raise AuthError("missing or wrong access token")
        user, local = found
        if named is not None and named != user:
            raise AuthError(f"this token belongs to another user than {named!r}")
        return Caller(user_id=user, local=local)
