"""A pool's workers are stopped at once, even busy and in the idle class: nothing of the
bot's exit waits for a worker to finish its work."""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import CancelledError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pytest

from bot.base.lifeline import lower_priority, stop_workers


def _gone(pid: int) -> bool:
    """Whether the process has ended (reaped, or a zombie waiting to be)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _busy(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_busy_idle_class_workers_are_killed_and_their_work_dropped() -> None:
    pool = ProcessPoolExecutor(
        max_workers=2, mp_context=multiprocessing.get_context("spawn"), initializer=lower_priority
    )
    running = [pool.submit(_busy, 60) for _ in range(2)]
    waiting = pool.submit(_busy, 60)
    deadline = time.monotonic() + 60
    while not all(f.running() for f in running) and time.monotonic() < deadline:
        time.sleep(0.05)
    processes = list(pool._processes.values())
    assert len(processes) == 2 and all(p.is_alive() for p in processes)
    began = time.monotonic()
    stop_workers(pool)
    pids = [p.pid for p in processes if p.pid is not None]
    while not all(map(_gone, pids)) and time.monotonic() - began < 10:
        time.sleep(0.05)
    assert all(map(_gone, pids)), "killed, not asked to finish a minute of work"
    # queued work is cancelled, or broken with the pool if it was handed on already
    for future in [*running, waiting]:
        with pytest.raises((CancelledError, BrokenProcessPool)):
            future.result(timeout=10)
