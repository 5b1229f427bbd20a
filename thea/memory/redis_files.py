"""Rewriting a Redis-protocol server's files (FalkorDB, Redis) so deleted data leaves the disk.

Redis keeps what it was told in its append-only file until the file is rewritten, and in its
last snapshot until the next one. Forgetting asks for both: the rewritten AOF holds only what
is in memory now. A server that refuses (a managed service with the commands renamed) is logged
and reported as not rewritten.
"""

from __future__ import annotations

import logging
import time

import redis

log = logging.getLogger(__name__)

#: how long to wait for a background rewrite of the append-only file
REWRITE_TIMEOUT_S = 120.0


def _rewriting(info: dict[str, object]) -> bool:
    return bool(info.get("aof_rewrite_in_progress")) or bool(info.get("aof_rewrite_scheduled"))


def _ends(info: dict[str, object]) -> tuple[int, int] | None:
    """How many rewrites have ended well and badly (None: the server does not say)."""
    if "aof_rewrites" not in info:
        return None
    return int(str(info["aof_rewrites"])), int(str(info.get("aof_rewrites_consecutive_failures", 0)))


def rewrite_files(conn: redis.Redis, timeout_s: float = REWRITE_TIMEOUT_S) -> bool:
    """Rewrite the server's append-only file (when it keeps one) and its snapshot (when it is
    configured to take them); True when the files on disk now hold only the current data."""
    try:
        info = conn.info("persistence")
        rewritten = False
        if info.get("aof_enabled"):
            deadline = time.monotonic() + timeout_s
            while _rewriting(info) and time.monotonic() < deadline:  # a rewrite of older data
                time.sleep(0.05)
                info = conn.info("persistence")
            before = _ends(info)
            conn.bgrewriteaof()
            info = conn.info("persistence")
            # until this rewrite has ended (Redis 7 counts rewrites and failures; an older one
            # says only whether one runs: a small dataset's can be over before the first look)
            while _rewriting(info) or (before is not None and _ends(info) == before):
                if time.monotonic() > deadline:
                    log.warning("the append-only file was not rewritten within %.0f s", timeout_s)
                    return False
                time.sleep(0.05)
                info = conn.info("persistence")
            rewritten = info.get("aof_last_bgrewrite_status") == "ok"
        saves = next(iter(conn.config_get("save").values()), "")
        if saves:
            conn.save()
            rewritten = True
        return rewritten
    except redis.RedisError as exc:
        log.warning("could not rewrite the server's files: %s", exc)
        return False
