"""Locate data folders shipped with thea (``cypher/``, ``config/``).

In a wheel they are installed as ``thea/_resources/<name>``; in a source checkout
(editable install, tests) they sit at the repository root.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Return the folder for a shipped resource, wheel layout first."""
    packaged = _PACKAGE_DIR / "_resources" / name
    if packaged.is_dir():
        return packaged
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"thea resource folder {name!r} is missing from this installation")
