"""The web keeper: brings a ``thea serve`` service back by itself.

``thea serve`` starts it, detached, next to the service. While the service is recorded as
serving the web page (``service/web.json``, :mod:`thea.service.web_listeners`) and no service
process holds the data directory (it crashed, was killed, or stopped after a maintenance-mode
repair), the keeper starts one; the new service opens the recorded listeners again, and the
page, which retries by itself, reconnects. A stop on purpose (``thea service stop``, a signal)
forgets the record, and the keeper exits. One keeper per data directory (``keeper.lock``);
failing starts are retried with a growing pause, so a service that cannot start is not
restarted in a tight loop.
"""

from __future__ import annotations

import fcntl
import logging
import time

from thea.client.local import ensure_service, service_holds
from thea.config import Settings
from thea.errors import TheaError
from thea.locations import ServicePaths

log = logging.getLogger(__name__)

#: how often the keeper looks whether the service is there
POLL_S = 1.0
#: the longest pause between two failed starts
MAX_BACKOFF_S = 60.0


def keep_web(settings: Settings, *, poll_s: float = POLL_S) -> int:
    """Run until the web page is no longer served (its record is gone); returns the exit code."""
    paths = ServicePaths.of(settings.data_dir)
    handler = logging.FileHandler(paths.keeper_log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.INFO)
    with open(paths.keeper_lock, "a+") as lock:  # a small process: no engine, no model imported
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # another keeper looks after this directory
        log.info("keeping the web page of %s served", paths.data_dir)
        pause = poll_s
        while paths.web_file.exists():
            if not service_holds(paths):
                log.info("the service went away while it served the web page: starting it again")
                try:
                    ensure_service(settings)
                except (TheaError, OSError) as exc:  # the keeper itself never gives up
                    pause = min(max(pause, poll_s) * 2, MAX_BACKOFF_S)
                    log.warning("could not start the service (next try in %.0f s): %s", pause, exc)
                    time.sleep(pause)
                    continue
                log.info("the service is back")
            pause = poll_s
            time.sleep(poll_s)
        log.info("the web page is no longer served (the service was stopped): the keeper ends")
    return 0
