"""``thea doctor``: check every configured backend and say clearly what is wrong."""

from __future__ import annotations

import time

from rich.table import Table

from thea.cli.common import safe
from thea.config import Settings
from thea.errors import TheaError
from thea.memory.factory import open_memory
from thea.models import HealthStatus


def _queue_status(settings: Settings) -> HealthStatus:
    import redis

    from thea.memory.factory import embedded_server

    started = time.perf_counter()
    try:
        if settings.queue.redis_url:
            client = redis.Redis.from_url(settings.queue.redis_url, socket_timeout=2)
            where = settings.queue.redis_url
        else:
            server = embedded_server(settings)
            client = server.client(socket_timeout=2)
            where = f"embedded FalkorDB ({server.socket_path})"
        client.ping()
    except Exception as exc:  # a health check never raises
        return HealthStatus(component="queue", backend="redis", ok=False, detail=str(exc))
    return HealthStatus(
        component="queue",
        backend="redis",
        ok=True,
        detail=where,
        latency_ms=(time.perf_counter() - started) * 1000,
    )


def _llm_status(settings: Settings) -> HealthStatus:
    cfg = settings.llm
    if cfg.provider == "local":
        try:
            from thea.llm.assets import ensure_local_model

            path = ensure_local_model(settings.data_dir, progress=True)
        except TheaError as exc:
            return HealthStatus(component="llm", backend="local", ok=False, detail=str(exc))
        except ImportError as exc:
            return HealthStatus(
                component="llm", backend="local", ok=False, detail=f"LLM layer missing: {exc}"
            )
        return HealthStatus(component="llm", backend="local", ok=True, detail=f"{cfg.model} ({path})")
    detail = f"{cfg.model} at {cfg.base_url or 'default endpoint'} (not called by doctor)"
    return HealthStatus(component="llm", backend=cfg.provider, ok=True, detail=detail)


def collect(settings: Settings) -> list[HealthStatus]:
    """Health of every layer; never raises."""
    statuses: list[HealthStatus] = []
    try:
        memory = open_memory(settings)
    except Exception as exc:  # report, do not crash
        statuses.append(HealthStatus(component="memory", backend=settings.profile, ok=False, detail=str(exc)))
    else:
        try:
            statuses.extend(memory.health())
            statuses.append(_queue_status(settings))
        finally:
            memory.close()
    statuses.append(_llm_status(settings))
    return statuses


def render(settings: Settings, statuses: list[HealthStatus]) -> Table:
    table = Table(title=f"thea doctor: profile {settings.profile}, data in {safe(settings.data_dir)}")
    table.add_column("component")
    table.add_column("backend")
    table.add_column("status")
    table.add_column("latency", justify="right")
    table.add_column("detail", overflow="fold")
    for s in statuses:
        mark = "[green]ok[/]" if s.ok else "[bold red]FAIL[/]"
        latency = f"{s.latency_ms:.1f} ms" if s.latency_ms is not None else ""
        table.add_row(s.component, s.backend, mark, latency, safe(s.detail))
    return table
