"""Composition root: settings in, wired objects out.

Interfaces (CLI, web) call this; services and workers never build their own
dependencies from settings.
"""

from __future__ import annotations

from thea.config import Settings
from thea.memory.factory import open_memory
from thea.memory.universal import UniversalMemory


def memory_for(settings: Settings) -> UniversalMemory:
    """Open the memory layers configured by ``settings``."""
    return open_memory(settings)
