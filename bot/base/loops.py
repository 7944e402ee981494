"""The event loop an object works on, asked of asyncio once rather than at every call.

On Python 3.11, :func:`asyncio.get_running_loop` asks the kernel for the process id each
time (to tell a forked child's loop from its parent's): a system call, a few microseconds
on a virtual machine, and a move asked for the loop a dozen times in the bot's own code
alone. An object that lives on one loop keeps a :class:`LoopRef` and calls it instead.
Standard library only.
"""

from __future__ import annotations

import asyncio

__all__ = ["LoopRef"]


class LoopRef:
    """The running loop, found at the first call and kept while it is open: an object
    made outside the loop (at start-up) finds it when first used on it, and one used again
    on a new loop after the old one closed (a test's next loop) finds the new one."""

    __slots__ = ("_loop",)

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def __call__(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        return loop
