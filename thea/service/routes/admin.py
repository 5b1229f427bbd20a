"""Running the service: health, status, the slow loop's jobs, memory maintenance, doctor, stop.

Maintenance and stop are for the local user (unix socket, or the local token on TCP): a
token user of a shared service gets 403. Check and repair stream their progress as JSON
lines (``ScanProgress``), ending with a ``result`` line.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
import time
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from rq import Worker

from services.views.slow_loop import UNREAD_WINDOW_MS, backlog_summary
from thea.api import API_VERSION, paths
from thea.api.models import (
    DoctorView,
    ErrorBody,
    FailedJobView,
    Health,
    JobsView,
    Listening,
    MemoryStats,
    ModelStatus,
    OptimizeResult,
    QueueCountsView,
    RetryRequest,
    RetryResult,
    ScanProgress,
    ScanRequest,
    ServiceStatus,
    SlowLoopView,
    Stopping,
)
from thea.errors import InputError, TheaError
from thea.memory.consistency import ConsistencyReport, ProgressFn, check, repair
from thea.memory.factory import open_for_maintenance
from thea.memory.salvage import recheck_open_chronicle, recheck_open_vectors
from thea.models import now_ms
from thea.runtime.app import model_loaded
from thea.service.auth import Caller
from thea.service.context import ServiceContext, caller_of, context_of
from thea.service.errors import Forbidden, error_body
from thea.service.middleware import TRANSPORT_KEY
from thea.service.stopping import StopCause, StopReason
from workers.admin import backlog, failed_jobs, queue_counts, retry_failed
from workers.recovery import recover_abandoned_jobs

router = APIRouter(tags=["service"])


def thea_version() -> str:
    try:
        return version("thea")
    except PackageNotFoundError:  # pragma: no cover - running from a plain checkout
        return "0+unknown"


def _local(caller: Caller, what: str) -> None:
    if not caller.local:
        raise Forbidden(f"{what} is for the local user of the service")


def _rss_bytes() -> int:
    try:
        status = Path(f"/proc/{os.getpid()}/status").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@router.get(paths.HEALTH, response_model=Health, summary="Is the service up (no token needed)")
async def health(request: Request) -> Health:
    ctx = context_of(request)
    return Health(
        version=thea_version(),
        api_version=API_VERSION,
        profile=ctx.settings.profile,
        pid=os.getpid(),
        auth=request.scope.get(TRANSPORT_KEY, "tcp") == "tcp",
        maintenance=ctx.maintenance.reason if ctx.maintenance else None,
    )


def _counts(ctx: ServiceContext) -> tuple[list[QueueCountsView], int]:
    """The queues' counts and how many memories wait for their vectors."""
    if ctx.runtime is None:
        return [], 0
    queues = [QueueCountsView(**c.__dict__) for c in queue_counts(ctx.runtime.jobs.connection)]
    return queues, ctx.runtime.memory.pending_vectors()


@router.get(paths.STATUS, response_model=ServiceStatus, summary="pid, uptime, model, queues, users")
async def status(request: Request, caller: Caller = Depends(caller_of)) -> ServiceStatus:
    ctx = context_of(request)
    settings = ctx.settings
    queues, pending = await asyncio.to_thread(_counts, ctx)
    runtime = ctx.runtime
    return ServiceStatus(
        pid=os.getpid(),
        version=thea_version(),
        api_version=API_VERSION,
        profile=settings.profile,
        data_dir=str(settings.data_dir),
        started_at=ctx.started_at,
        uptime_s=time.time() - ctx.started_at,
        model=ModelStatus(
            provider=settings.llm.provider,
            name=settings.llm.model,
            loaded=runtime is not None and model_loaded(runtime.llm),
        ),
        queues=queues,
        workers=len(runtime.workers) if runtime else 0,
        users=ctx.sessions.users() if caller.local else [caller.user_id],
        sessions=len(ctx.sessions),
        requests_in_flight=ctx.activity.in_flight,
        listening=list(ctx.listening),
        idle_stop_s=settings.service.idle_stop_s,
        rss_bytes=_rss_bytes(),
        maintenance=ctx.maintenance.reason if ctx.maintenance else None,
        vectors_pending=pending,
    )


def slow_loop_of(ctx: ServiceContext, user_id: str) -> SlowLoopView:
    """What the slow loop still has to do, with the user's messages waiting to be read."""
    if ctx.runtime is None:
        return SlowLoopView()
    connection = ctx.runtime.jobs.connection
    ahead = backlog(connection, workers=max(Worker.count(connection=connection), 1))
    if not ahead.jobs:
        return SlowLoopView()
    unread = ctx.runtime.memory.facts.count_unread(user_id, now_ms() - UNREAD_WINDOW_MS)
    return SlowLoopView(
        jobs=ahead.jobs,
        unread=min(unread, ahead.jobs),
        eta_s=ahead.eta_s,
        eta_at_least=ahead.eta_at_least,
        summary=backlog_summary(ahead.jobs, unread, ahead.eta_s, ahead.eta_at_least),
    )


@router.get(paths.SLOW_LOOP, response_model=SlowLoopView, summary="What the slow loop still has to do")
async def slow_loop(request: Request, caller: Caller = Depends(caller_of)) -> SlowLoopView:
    """The jobs queued before the caller's, how many of the caller's messages are still to be
    read, and roughly how long (issue 38: an empty list while work waits says so)."""
    return await asyncio.to_thread(slow_loop_of, context_of(request), caller.user_id)


@router.get(paths.JOBS, response_model=JobsView, summary="Queue counts and failed jobs with reasons")
async def jobs(request: Request, caller: Caller = Depends(caller_of)) -> JobsView:
    _local(caller, "the job list")
    connection = context_of(request).rt.jobs.connection

    def load() -> JobsView:
        recovered = recover_abandoned_jobs(connection)
        return JobsView(
            queues=[QueueCountsView(**c.__dict__) for c in queue_counts(connection)],
            failed=[FailedJobView(**f.__dict__) for f in failed_jobs(connection)],
            recovered=recovered,
        )

    return await asyncio.to_thread(load)


@router.post(paths.JOBS_RETRY, response_model=RetryResult, summary="Requeue failed jobs")
async def retry(body: RetryRequest, request: Request, caller: Caller = Depends(caller_of)) -> RetryResult:
    _local(caller, "retrying jobs")
    if body.job_id is None and not body.all:
        raise InputError("give a job id (see `thea jobs`) or --all")
    connection = context_of(request).rt.jobs.connection
    done = await asyncio.to_thread(retry_failed, connection, None if body.all else body.job_id)
    return RetryResult(retried=done)


@router.get(paths.MEMORY_STATS, response_model=MemoryStats, summary="Counts per layer and per type")
async def stats(request: Request, caller: Caller = Depends(caller_of)) -> MemoryStats:
    _local(caller, "memory statistics")
    data = await asyncio.to_thread(context_of(request).memory.stats)
    return MemoryStats(**data)


def _maintenance_repair(ctx: ServiceContext, grace_ms: int, progress: ProgressFn) -> ConsistencyReport:
    """Maintenance mode: move the damaged stores aside, rebuild them from the graph, then stop
    the service (the next command starts it again, with every store)."""
    assert ctx.maintenance is not None
    ctx.maintenance.memory.close()
    memory, damage = open_for_maintenance(ctx.settings, fix=True)
    ctx.maintenance.memory = memory
    try:
        return repair(memory, grace_ms=grace_ms, progress=progress, damage=damage)
    finally:
        if ctx.request_stop is not None:
            reason = f"`thea memory repair` rebuilt the damaged stores ({ctx.maintenance.reason})"
            ctx.request_stop(StopReason(StopCause.MAINTENANCE, reason))


def _run_scan(ctx: ServiceContext, fix: bool, grace_ms: int, progress: ProgressFn) -> ConsistencyReport:
    if ctx.maintenance is not None:
        if fix:
            return _maintenance_repair(ctx, grace_ms, progress)
        return check(
            ctx.maintenance.memory, grace_ms=grace_ms, progress=progress, damage=ctx.maintenance.damage
        )
    memory = ctx.rt.memory
    damage = recheck_open_chronicle(memory, fix=fix)  # a corrupt page is only found by reading it
    damage += recheck_open_vectors(memory)  # deleted files still work through their mappings
    scan = repair if fix else check
    return scan(memory, grace_ms=grace_ms, progress=progress, damage=damage)


def _scan_lines(ctx: ServiceContext, fix: bool, grace_minutes: float) -> Iterator[str]:
    """Run check/repair in a thread and yield its progress as JSON lines as it goes."""
    out: queue.Queue[ScanProgress | None] = queue.Queue()

    def progress(phase: str, done: int, total: int) -> None:
        out.put(ScanProgress(event="progress", phase=phase, done=done, total=total))

    def run() -> None:
        try:
            report = _run_scan(ctx, fix, int(grace_minutes * 60_000), progress)
            out.put(ScanProgress(event="result", result=report.to_json()))
        except TheaError as exc:
            out.put(ScanProgress(event="error", error=ErrorBody.model_validate(error_body(exc)[1])))
        finally:
            out.put(None)

    threading.Thread(target=run, name="thea-scan", daemon=True).start()
    while (item := out.get()) is not None:
        yield item.model_dump_json(exclude_none=True) + "\n"


def _scan(request: Request, caller: Caller, body: ScanRequest, fix: bool) -> StreamingResponse:
    _local(caller, "memory repair" if fix else "the memory check")
    lines = _scan_lines(context_of(request), fix, body.grace_minutes)
    return StreamingResponse(lines, media_type="application/x-ndjson")


@router.post(paths.MEMORY_CHECK, summary="Compare the layers (streamed progress, then the result)")
async def memory_check(
    body: ScanRequest, request: Request, caller: Caller = Depends(caller_of)
) -> StreamingResponse:
    return _scan(request, caller, body, fix=False)


@router.post(paths.MEMORY_REPAIR, summary="Re-derive what is missing from the graph (streamed)")
async def memory_repair(
    body: ScanRequest, request: Request, caller: Caller = Depends(caller_of)
) -> StreamingResponse:
    return _scan(request, caller, body, fix=True)


@router.post(paths.MEMORY_OPTIMIZE, response_model=OptimizeResult, summary="Build the vector indexes now")
async def optimize(request: Request, caller: Caller = Depends(caller_of)) -> OptimizeResult:
    _local(caller, "optimizing the vector store")
    started = time.perf_counter()
    await asyncio.to_thread(context_of(request).rt.memory.optimize_vectors)
    return OptimizeResult(seconds=time.perf_counter() - started)


@router.get(paths.DOCTOR, response_model=DoctorView, summary="Health of every layer, the queue and the model")
async def doctor(request: Request, caller: Caller = Depends(caller_of)) -> DoctorView:
    _local(caller, "the doctor")
    ctx = context_of(request)
    if ctx.runtime is None:
        return DoctorView(statuses=await asyncio.to_thread(ctx.memory.health))
    return DoctorView(statuses=await asyncio.to_thread(ctx.runtime.health))


@router.post(paths.SERVICE_STOP, summary="Stop the service (gracefully: running answers finish first)")
async def stop(request: Request, caller: Caller = Depends(caller_of)) -> Stopping:
    _local(caller, "stopping the service")
    ctx = context_of(request)
    if ctx.request_stop is None:
        raise InputError("this service cannot be stopped through the API")
    transport = request.scope.get(TRANSPORT_KEY, "tcp")
    where = (
        "the unix socket"
        if transport == "unix"
        else f"TCP from {request.client.host if request.client else '?'}"
    )
    reason = StopReason(StopCause.API, f"POST /service/stop by {caller.user_id} on {where}")
    asyncio.get_running_loop().call_later(0.05, ctx.request_stop, reason)
    return Stopping()


@router.post(paths.SERVICE_LISTEN, summary="Also listen on TCP (for the web page)")
async def listen(
    request: Request, host: str = "127.0.0.1", port: int = 8765, caller: Caller = Depends(caller_of)
) -> Listening:
    _local(caller, "opening a TCP listener")
    ctx = context_of(request)
    if ctx.listen is None:
        raise InputError("this service cannot open listeners through the API")
    return Listening(url=await ctx.listen(host, port))
