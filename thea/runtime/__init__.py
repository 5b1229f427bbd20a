"""Composition root and chat commands shared by every interface."""

from thea.runtime.app import Runtime, build_runtime, queue_connection

__all__ = ["Runtime", "build_runtime", "queue_connection"]
