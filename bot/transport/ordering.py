"""Updates run concurrently across tables and strictly in arrival order within one.

PTB hands every update to :class:`TableOrder`. Updates that share a key (the table a
button belongs to, else the chat) run one after another, in the order Telegram sent them;
updates with different keys run side by side, up to a bound. Once the inbox is set, every
update runs through it (:meth:`bot.service.inbox.Inbox.handle`): a copy of one kept before is
dropped, and one that has run is marked done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.base.loops import LoopRef

if TYPE_CHECKING:
    from bot.service.inbox import Inbox

__all__ = ["TableOrder", "default_key"]

KeyFn = Callable[[object], object]


def default_key(update: object) -> object:
    """The chat an update comes from (None: no ordering needed)."""
    if isinstance(update, Update) and update.effective_chat is not None:
        return ("chat", update.effective_chat.id)
    return None


class TableOrder(BaseUpdateProcessor):
    """Orders updates per key; ``key`` maps an update to its table (or chat)."""

    def __init__(self, key: KeyFn = default_key, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._key = key
        self._loop = LoopRef()
        self._tails: dict[object, asyncio.Future[None]] = {}
        self.inbox: Inbox | None = None
        """Where updates are kept until done (set at start-up, once the store is open)."""

    def set_key(self, key: KeyFn) -> None:
        """Replace the key function (the table service knows tables once it is built)."""
        self._key = key

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Wait for the previous update of the same key, then run this one."""
        if self.inbox is not None:
            if not self.inbox.admits(update):
                # another process's to handle, or a copy: it never waits in line here
                if hasattr(coroutine, "close"):
                    coroutine.close()
                return
            coroutine = self.inbox.handle(update, coroutine)
        try:
            key = self._key(update)
        except Exception:  # a key function must never lose an update
            key = None
        if key is None:
            await coroutine
            return
        previous = self._tails.get(key)
        done: asyncio.Future[None] = self._loop().create_future()
        self._tails[key] = done
        try:
            if previous is not None:
                await asyncio.shield(previous)
            await coroutine
        finally:
            done.set_result(None)
            if self._tails.get(key) is done:
                del self._tails[key]

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to free."""
