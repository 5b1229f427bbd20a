"""The local access token: what this machine's user presents to the service over TCP.

TCP always needs a token, on loopback too (another local user, or a web page in the user's
browser, can reach a loopback port as well as the user can). The service generates one
token per data directory the first time it starts, in ``service/token`` (0600 in a 0700
folder: only the owner of the data directory can read it), and keeps it: a page the user
opened keeps working across restarts. ``thea serve`` prints the page's address with it, as
Jupyter does; the Python client reads it when it talks to a loopback URL without a token.
"""

from __future__ import annotations

import secrets

from thea.locations import ServicePaths
from thea.private_files import private_dir, write_private

#: 32 random bytes, URL-safe (43 characters)
TOKEN_BYTES = 32


def read_local_token(paths: ServicePaths) -> str | None:
    """The data directory's local token, or None when there is none (or it is unreadable)."""
    try:
        token = paths.token_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token or None


def ensure_local_token(paths: ServicePaths) -> str:
    """The data directory's local token, generated (0600) the first time."""
    existing = read_local_token(paths)
    if existing is not None:
        return existing
    private_dir(paths.run_dir)
    fresh = secrets.token_urlsafe(TOKEN_BYTES)
    if write_private(paths.token_file, fresh.encode("ascii"), exclusive=True):
        return fresh
    return read_local_token(paths) or fresh  # another process wrote it first: theirs counts
