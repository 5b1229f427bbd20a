"""thea: a cognitive architecture with an inspectable long-term memory.

``thea.Client`` (and ``thea.AsyncClient``) talk to the thea service of a data directory
(started on first use) or to a remote one (``THEA_URL``); nothing heavy is imported until it
is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from thea.client import AsyncClient, Client

__all__ = ["AsyncClient", "Client"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        import thea.client

        return getattr(thea.client, name)
    raise AttributeError(f"module 'thea' has no attribute {name!r}")
