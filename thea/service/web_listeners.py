"""The TCP listeners ``thea serve`` opened, kept across restarts of the service.

``thea serve`` asks the service to listen on TCP; the service writes the address to
``service/web.json`` (:attr:`~thea.locations.ServicePaths.web_file`). A service that starts
(after a crash, a ``kill -9``, a maintenance-mode repair, or started by any command) opens the
recorded listeners again, so the web page comes back with it; the web keeper
(:mod:`thea.service.keeper`) starts the service again when it went away. Stopping the service on
purpose (``thea service stop``, a signal) forgets them: it then stays stopped.
"""

from __future__ import annotations

import contextlib
import logging
import os

from pydantic import BaseModel, Field, ValidationError

from thea.locations import ServicePaths
from thea.service.stopping import StopCause

log = logging.getLogger(__name__)

#: stops the user asked for: the web page does not come back after them
DELIBERATE_STOPS = frozenset({StopCause.API, StopCause.SIGNAL})


class WebListener(BaseModel):
    host: str = Field(min_length=1, max_length=255)
    port: int = Field(ge=1, le=65535)


class _Record(BaseModel):
    listeners: list[WebListener] = Field(default_factory=list)


def recorded(paths: ServicePaths) -> list[WebListener]:
    """The listeners to open again (none when the record is missing or unreadable)."""
    try:
        text = paths.web_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("cannot read %s: %s", paths.web_file, exc)
        return []
    try:
        return _Record.model_validate_json(text).listeners
    except ValidationError:
        log.warning("ignoring the damaged record of web listeners %s", paths.web_file)
        return []


def remember(paths: ServicePaths, listener: WebListener) -> None:
    """Add a listener to the record (atomically: a crash leaves the old or the new record)."""
    known = recorded(paths)
    if listener in known:
        return
    record = _Record(listeners=[*known, listener])
    partial = paths.web_file.with_name(paths.web_file.name + ".tmp")
    try:
        partial.write_text(record.model_dump_json(), encoding="utf-8")
        os.replace(partial, paths.web_file)
    except OSError as exc:
        log.warning("cannot record the web listener %s:%s: %s", listener.host, listener.port, exc)


def forget(paths: ServicePaths) -> None:
    """The service was stopped on purpose: it does not serve the web page when it starts again."""
    with contextlib.suppress(FileNotFoundError):
        paths.web_file.unlink()
