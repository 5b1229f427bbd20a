"""``python -m thea.service run``: run the service of one data directory in the foreground;
``python -m thea.service worker``: a slow-loop worker process (server profile);
``python -m thea.service keep``: the web keeper ``thea serve`` starts (thea.service.keeper).

Commands start it this way, detached, when none is running (``thea.client.local``);
``thea service run`` does the same in the terminal; the server profile's container runs it
as its main process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thea.config import load_settings, settings_from_json
from thea.errors import ConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m thea.service")
    parser.add_argument("command", choices=["run", "worker", "keep"])
    parser.add_argument("--burst", action="store_true", help="worker: process what is queued, then exit")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--host", default=None, help="also listen on TCP at this address")
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument(
        "--settings-file", default=None, help="settings handed over by a command (read, then deleted)"
    )
    args = parser.parse_args(argv)
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    try:
        if args.settings_file:
            handover = Path(args.settings_file)
            try:
                settings = settings_from_json(handover.read_text(encoding="utf-8"))
            finally:
                handover.unlink(missing_ok=True)
        else:
            settings = load_settings(args.profile, **overrides)
    except (ConfigError, OSError) as exc:
        print(f"thea service: {exc}", file=sys.stderr)
        return 2
    if args.command == "keep":
        from thea.service.keeper import keep_web

        return keep_web(settings)
    if args.command == "worker":
        from thea.service.worker import run_worker

        return run_worker(settings, burst=args.burst)
    from thea.service.process import run_service

    return run_service(settings, host=args.host, port=args.port)


if __name__ == "__main__":
    sys.exit(main())
