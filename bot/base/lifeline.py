"""A worker process's life tied to the bot's: however the bot ends, its workers end too;
and, for the workers whose work can wait a little, their priority below the bot's.

The bot's worker pools (the coach's, the /me chart's, the computer players') call
:func:`die_with` first thing in a new worker, with the bot's pid taken in the bot. Nothing
here imports more than the standard library, so a worker starts light.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = [
    "NICENESS",
    "PR_SET_PDEATHSIG",
    "WATCH_INTERVAL",
    "die_with",
    "lower_priority",
    "start_below",
    "stop_workers",
]

PR_SET_PDEATHSIG = 1
"""Linux's prctl option: the signal a process gets when its parent dies."""

WATCH_INTERVAL = 1.0
"""Seconds between two looks at the parent, where the kernel cannot be asked to tell."""


def die_with(parent: int) -> None:
    """End this worker when process ``parent`` ends, however it ends: a bot killed with
    SIGKILL (a crash, the OOM killer) runs no clean-up that could stop its workers, and a
    worker left behind would wait for work for ever (holding the bot's output and
    multiprocessing's resource tracker open). On Linux the kernel kills the worker when
    its parent dies; elsewhere a thread looks for the parent every second. A parent gone
    already (before this ran) ends the worker at once.

    ``parent`` must come from the bot (its ``os.getpid()``), never from the worker's own
    ``os.getppid()``: a bot killed while the worker was still starting has handed it to
    another process by then, and a worker that took that one for its bot would watch it
    for ever.

    Linux sends the signal when the parent's *thread* that started the worker ends: the
    bot starts its workers from the event loop's thread, which lives as long as the bot.
    """
    if not (sys.platform.startswith("linux") and _kill_on_parent_death()):
        watch = threading.Thread(target=_watch, args=(parent,), name="parent", daemon=True)
        watch.start()
    # after the kernel was asked: a parent that dies from here on is seen by the kernel
    if os.getppid() != parent:
        os._exit(1)


def _kill_on_parent_death() -> bool:
    """Ask the kernel for SIGKILL when the parent dies; whether it agreed."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(
            ctypes.c_int(PR_SET_PDEATHSIG),
            ctypes.c_ulong(int(signal.SIGKILL)),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
        )
    except (OSError, AttributeError, ImportError):
        return False
    return int(done) == 0


def _watch(parent: int) -> None:
    """End the process once ``parent`` is no longer its parent (it died; the worker was
    handed to another)."""
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)


NICENESS = 10
"""How much lower a worker's priority is than the bot's (``nice``), where the idle
scheduling class is not available."""


def lower_priority() -> None:
    """Worker start-up: yield the CPU to the bot. Linux's idle class runs the worker only
    on CPU time nobody else wants, so a woken bot takes the core at once (a worker merely
    at nice 10 still delays it); elsewhere the worker is niced."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (OSError, AttributeError):
        with contextlib.suppress(OSError, AttributeError):
            os.nice(NICENESS)


def start_below(parent: int) -> None:
    """Worker start-up of a pool whose work can wait a little (the coach's reviews, the
    computer players' decisions): end when the bot (process ``parent``) ends, then yield
    it the CPU."""
    die_with(parent)
    lower_priority()


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers at once, in the bot: what waits is cancelled, what runs is
    dropped (a review, a decision or a chart is made again when asked again). A worker in
    the idle class gets no CPU while the machine is busy, so it is killed rather than
    asked to finish: the bot's exit, which waits for its pools' workers to end, never
    waits on one that cannot run."""
    # the pool's own table of its processes: no public list before Python 3.14
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
