"""Who is calling: the user of a request, from its transport and its token.

* Unix socket (the data directory's own door, mode 0700): the local user, or the user the
  caller names in ``X-Thea-User`` (same OS user, same trust).
* TCP with tokens configured (``service.tokens``, ``web_token``): a bearer token is required
  and *is* the user; a named user must match it.
* TCP without tokens: allowed on loopback only (the service refuses to listen elsewhere
  without a token); the local user, as on the socket.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass

from fastapi import Request

from thea.api import USER_HEADER
from thea.config import Settings
from thea.errors import InputError, TheaError
from thea.service.middleware import TRANSPORT_KEY

_USER_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")


class AuthError(TheaError):
    """Missing or wrong credentials (HTTP 401)."""


@dataclass(frozen=True)
class Caller:
    user_id: str
    #: came through the unix socket (or loopback without tokens): may run admin actions
    local: bool


class Authenticator:
    def __init__(self, settings: Settings) -> None:
        self.default_user = settings.user_id
        tokens = {user: secret.get_secret_value() for user, secret in settings.service.tokens.items()}
        if settings.web_token is not None:
            tokens.setdefault(settings.user_id, settings.web_token.get_secret_value())
        self._tokens = [(user, token.encode()) for user, token in tokens.items() if token]

    @property
    def tokens_required(self) -> bool:
        return bool(self._tokens)

    def _token_user(self, request: Request) -> str | None:
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            return None
        presented = value.strip().encode()
        user = None
        for name, token in self._tokens:  # compare with every token: no early exit on a match
            if hmac.compare_digest(presented, token):
                user = name
        return user

    def caller(self, request: Request) -> Caller:
        transport = request.scope.get(TRANSPORT_KEY, "tcp")
        named = request.headers.get(USER_HEADER)
        if named is not None and not _USER_ID.match(named):
            raise InputError(f"{USER_HEADER} must be 1-128 letters, digits or _.:@-")
        token_user = self._token_user(request)
        if transport == "unix":
            return Caller(user_id=named or token_user or self.default_user, local=True)
        if not self._tokens:
            return Caller(user_id=named or self.default_user, local=True)
        if token_user is None:
            raise AuthError("missing or wrong access token")
        if named is not None and named != token_user:
            raise AuthError(f"this token belongs to another user than {named!r}")
        return Caller(user_id=token_user, local=False)
