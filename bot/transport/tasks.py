"""Waiting for and stopping the background tasks of the bot's deliverers (the chat's
messages, the in-group hands)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable

__all__ = ["cancel_all", "settle"]


async def settle(busy: Callable[[], list[asyncio.Task[None]]], timeout: float) -> None:
    """Wait until ``busy()`` names no task still running (it is asked again after each
    wait: a task may start another), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = [t for t in busy() if not t.done()]
        if not running:
            return
        await asyncio.wait(running, timeout=max(0.0, deadline - time.monotonic()))


async def cancel_all(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel the tasks still running and wait until each has stopped."""
    running = [t for t in tasks if not t.done()]
    for task in running:
        task.cancel()
    for task in running:
        with contextlib.suppress(asyncio.CancelledError):
            await task
