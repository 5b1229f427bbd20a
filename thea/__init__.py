"""thea: a cognitive architecture with an inspectable long-term memory.

``thea.Client`` talks to the thea service of a data directory (started on first use) or to a
remote one (``THEA_URL``); nothing heavy is imported until it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from thea.client import Client

__all__ = ["Client"]


def __getattr__(name: str) -> Any:
    if name == "Client":
        from thea.client import Client

        return Client
    raise AttributeError(f"module 'thea' has no attribute {name!r}")
