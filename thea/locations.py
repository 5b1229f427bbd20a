"""Where the thea service of a data directory keeps its socket, lock, pid record and log.

Shared by the service (which creates them) and its clients (which look for them), so both
agree without talking. Everything lives in the data directory except, when the directory's
path is too long for a unix socket (about 107 bytes), the socket itself: it then goes to a
per-directory folder under the system's temp dir, named by a hash of the data dir.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

_MAX_SOCKET_PATH = 100


@dataclass(frozen=True)
class ServicePaths:
    data_dir: Path

    @classmethod
    def of(cls, data_dir: Path | str) -> ServicePaths:
        return cls(Path(data_dir).expanduser().resolve())

    @property
    def run_dir(self) -> Path:
        return self.data_dir / "service"

    @property
    def socket(self) -> Path:
        path = self.run_dir / "thea.sock"
        if len(str(path)) <= _MAX_SOCKET_PATH:
            return path
        digest = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"thea-{digest}" / "thea.sock"

    @property
    def lock(self) -> Path:
        """Held (flock) by the running service for its whole life: the one-per-directory rule."""
        return self.run_dir / "service.lock"

    @property
    def start_lock(self) -> Path:
        """Held by a client while it starts a service: N commands at once start exactly one."""
        return self.run_dir / "start.lock"

    @property
    def pid_file(self) -> Path:
        return self.run_dir / "service.json"

    @property
    def stopping_file(self) -> Path:
        """Written by a service once it was asked to stop (its pid record), gone when it exits:
        a command that meets it waits for it instead of for a start that never comes."""
        return self.run_dir / "stopping.json"

    @property
    def starting_file(self) -> Path:
        """Written by a starting service while an engine makes it wait (the embedded graph
        server loading its data: what and how far), gone once it serves: a command waiting for
        the start shows it and keeps waiting while it moves on."""
        return self.run_dir / "starting.json"

    @property
    def token_file(self) -> Path:
        """The local access token (0600): what a browser or a TCP client of this machine's
        user presents on TCP (:mod:`thea.local_token`)."""
        return self.run_dir / "token"

    @property
    def log_file(self) -> Path:
        return self.run_dir / "service.log"

    @property
    def web_file(self) -> Path:
        """The TCP listeners ``thea serve`` opened (host, port): a service that starts opens them
        again, so the web page comes back with it. Gone once the service is stopped on purpose."""
        return self.run_dir / "web.json"

    @property
    def keeper_lock(self) -> Path:
        """Held (flock) by the web keeper, which starts the service again when it went away
        while it served the web page (``thea serve``): one keeper per directory."""
        return self.run_dir / "keeper.lock"

    @property
    def keeper_log(self) -> Path:
        return self.run_dir / "keeper.log"

    #: the marker a service's command line carries (checked before any signal is sent to it)
    MARKER = "thea.service"
