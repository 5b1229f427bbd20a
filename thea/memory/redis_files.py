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


def rewrite_files(conn: redis.Redis, timeout_s: float = REWRITE_TIMEOUT_S, attempts: int = 3) -> bool:
    """Rewrite the server's append-only file (when it keeps one) and its snapshot (when it is
    configured to take them); True when the files on disk now hold only the current data. A
    rewrite that fails (a busy machine, a fork refused) is tried again, up to ``attempts``."""
    try:
        rewritten = False
        if conn.info("persistence").get("aof_enabled"):
            deadline = time.monotonic() + timeout_s
            for attempt in range(attempts):
                rewritten = _rewrite_aof(conn, deadline)
                if rewritten or time.monotonic() > deadline:
                    break
                log.warning("rewriting the append-only file failed (attempt %d of %d)", attempt + 1, attempts)
                time.sleep(0.5)
        saves = next(iter(conn.config_get("save").values()), "")
        if saves:
            conn.save()
            rewritten = True
        return rewritten
    except redis.RedisError as exc:
        log.warning("could not rewrite the server's files: %s", exc)
        return False


def _rewrite_aof(conn: redis.Redis, deadline: float) -> bool:
    """One rewrite of the append-only file, waited for; whether it succeeded."""
    info = conn.info("persistence")
    while _rewriting(info) and time.monotonic() < deadline:  # a rewrite of older data
        time.sleep(0.05)
        info = conn.info("persistence")
    before = _ends(info)
    conn.bgrewriteaof()
    info = conn.info("persistence")
    # until this rewrite has ended (Redis 7 counts rewrites and failures; an older one says only
    # whether one runs: a small dataset's can be over before the first look)
    while _rewriting(info) or (before is not None and _ends(info) == before):
        if time.monotonic() > deadline:
            log.warning("the append-only file was not rewritten in time")
            return False
        time.sleep(0.05)
        info = conn.info("persistence")
    return info.get("aof_last_bgrewrite_status") == "ok"
