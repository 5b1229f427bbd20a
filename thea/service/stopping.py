"""Why the service stops, and how it hears signals without lending them to its children.

Every stop has one cause of :class:`StopCause` and the log names it: ``stop requested
(signal): SIGTERM from pid 4242 (uid 1000: kill 4242)``, ``stop requested (api): POST
/service/stop by ana on the unix socket``, ``stop requested (idle): ...``, ``stop requested
(maintenance): ...``, and ``service stopping (<cause>): closing the engines`` when it does.

**Signals** (:func:`serve_with_signals`). The service's work runs in a thread; the main thread
blocks SIGTERM, SIGINT and SIGHUP and takes them with :func:`signal.sigtimedwait`, which gives
the sender's pid and uid (``siginfo``). Nothing uses a signal wake-up descriptor
(``signal.set_wakeup_fd``, asyncio's ``add_signal_handler``): before, a forked copy of the
service (RQ's scheduler process) inherited that descriptor, and the SIGTERM its parent sent it
was written into the service's own event loop, which stopped (issue 22). A forked child now
gets the default dispositions, an unblocked mask and no wake-up descriptor
(``os.register_at_fork``; a signal that reaches it before that ran gets the default action
too), so a signal to a child only ever reaches that child.

The mask is the main thread's alone: the service's thread was started before it, so that
thread, every thread it starts and every program it runs (the graph server, whose SIGTERM is
its clean shutdown) keep the usual mask. A signal the kernel hands to one of those threads
while the main thread is between two waits runs a fallback handler in the main thread: the
stop still happens, naming the signal without its sender.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from types import FrameType

from thea.proc import command_line, parent_pid

log = logging.getLogger(__name__)

#: the signals that stop the service
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: how often the main thread looks whether the service's thread ended
_WAIT_S = 0.25
#: si_code of a signal the kernel sent (a terminal's Ctrl-C or hang-up), no process
_SI_KERNEL = 0x80
_MAX_COMMAND_CHARS = 160


class StopCause(StrEnum):
    """Every reason the service stops."""

    SIGNAL = "signal"  # SIGTERM/SIGINT/SIGHUP: the sender's pid when the OS gives it
    API = "api"  # POST /service/stop (`thea service stop`)
    IDLE = "idle"  # no request and no queued job for service.idle_stop_s
    MAINTENANCE = "maintenance"  # a maintenance-mode service after `thea memory repair`
    FAILED = "failed"  # the service could not go on (the log says why)


@dataclass(frozen=True)
class StopReason:
    cause: StopCause
    detail: str

    def __str__(self) -> str:
        return f"{self.cause.value}: {self.detail}"

    @classmethod
    def of_signal(cls, signum: int, info: signal.struct_siginfo | None = None) -> StopReason:
        name = signal.Signals(signum).name
        if info is None:
            return cls(StopCause.SIGNAL, f"{name} (its sender is not known)")
        if info.si_code == _SI_KERNEL:
            return cls(StopCause.SIGNAL, f"{name} from the kernel (a terminal's Ctrl-C or hang-up)")
        if info.si_pid == 0:  # sent from outside this pid namespace
            return cls(StopCause.SIGNAL, f"{name} from outside this container (e.g. its runtime)")
        return cls(StopCause.SIGNAL, f"{name} from {describe_process(info.si_pid, info.si_uid)}")


def describe_process(pid: int, uid: int | None = None) -> str:
    """``pid 4242 (uid 1000: thea service stop)``; whether it is a child of this process."""
    command = command_line(pid) or "gone"
    if len(command) > _MAX_COMMAND_CHARS:
        command = command[: _MAX_COMMAND_CHARS - 1] + "…"
    who = f"uid {uid}: {command}" if uid is not None else command
    child = ", a child of this service" if parent_pid(pid) == os.getpid() else ""
    return f"pid {pid} ({who}{child})"


def _child_after_fork() -> None:  # pragma: no cover - runs in a forked child
    """A forked copy of the service hears its own signals only: no wake-up descriptor shared
    with the service, the default dispositions, nothing blocked."""
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_DFL)
    with contextlib.suppress(ValueError, OSError):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


_fork_guard_installed = False


def install_fork_guard() -> None:
    global _fork_guard_installed
    if not _fork_guard_installed:
        os.register_at_fork(after_in_child=_child_after_fork)
        _fork_guard_installed = True


def serve_with_signals(work: Callable[[], int], on_stop: Callable[[StopReason], None]) -> int:
    """Run ``work`` in a thread of its own and return its exit code; every stop signal meanwhile
    calls ``on_stop`` with its reason (sender included). Outside the main thread (a host
    process handles signals) ``work`` just runs. A SIGINT or SIGHUP ignored when the service
    started stays ignored (``nohup``)."""
    install_fork_guard()
    if threading.current_thread() is not threading.main_thread():
        return work()
    watched = {
        sig for sig in STOP_SIGNALS if sig == signal.SIGTERM or signal.getsignal(sig) is not signal.SIG_IGN
    }
    result: list[int] = []
    owner = os.getpid()

    def body() -> None:
        try:
            result.append(work())
        except BaseException:
            log.exception("the service failed")
            on_stop(StopReason(StopCause.FAILED, "an unexpected error (logged above)"))
            raise

    def fallback(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != owner:  # a forked copy, signalled before its fork guard ran: its own
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        on_stop(StopReason.of_signal(signum))

    previous = {sig: signal.signal(sig, fallback) for sig in watched}
    thread = threading.Thread(target=body, name="thea-service")
    thread.start()  # before the mask: the service's threads and programs keep the usual one
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    try:
        while thread.is_alive():
            info = signal.sigtimedwait(watched, _WAIT_S)
            # a debugger attaching (py-spy, gdb) can make the wait return a signal number that
            # is none of these: not a stop, and no reason to let this thread die
            if info is not None and info.si_signo in watched:
                on_stop(StopReason.of_signal(info.si_signo, info))
        thread.join()
        while (info := signal.sigtimedwait(watched, 0)) is not None:  # came during the stop
            log.info("%s came after the service had stopped", signal.Signals(info.si_signo).name)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return result[0] if result else 1
