"""Every update is kept before Telegram is told it arrived, so that a crash loses none.

Telegram forgets an update once the bot has confirmed it: in polling mode by asking for the
next ones (``getUpdates`` with a higher offset), in webhook mode by answering 200. PTB asks
for the next batch while it still handles the last, so a process killed then would lose a
press for good. So the updates a ``getUpdates`` returns are written to the store's inbox in
one transaction before PTB sees them (:class:`~bot.request.UpdatesRequest`), and a webhook
post is written before it is answered.

An update is done in the transaction of the move it makes (the table service passes its id
to the store while :func:`handled_update` names it), else once its handler has returned.
At start-up the updates kept but not done are handled again, in order, before the new
ones. An update that comes again (Telegram redelivers what it was not told of; a webhook
post tried again) is known by its ``update_id`` and dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram import Bot, Update
from telegram.ext import ExtBot

from bot.store import DAY, KeptUpdate, Store, StoreError

__all__ = ["Handling", "Inbox", "handled_update"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Handling:
    """The update a task is handling."""

    update_id: int
    task: asyncio.Task[Any] | None
    done: bool = False
    """Marked done already, by the transaction of its move."""


_HANDLING: ContextVar[Handling | None] = ContextVar("durak_update", default=None)


def handled_update() -> Handling | None:
    """The update the running task handles: None outside a handler and in the tasks a
    handler starts (redraws, clocks), whose writes are not that update's."""
    handling = _HANDLING.get()
    if handling is None or handling.task is not asyncio.current_task():
        return None
    return handling


class Inbox:
    """The updates kept in the store, and which of them this process is to handle."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._admitted: set[int] = set()
        """Kept and not handled yet: every other copy of an update is dropped."""

    async def keep(self, updates: Sequence[dict[str, Any]]) -> list[int]:
        """Keep updates as Telegram sent them (one transaction); the ids of those that are
        new, which are the ones to handle."""
        kept = [
            KeptUpdate(
                int(u["update_id"]), json.dumps(u, ensure_ascii=False, separators=(",", ":"))
            )
            for u in updates
            if isinstance(u, dict) and isinstance(u.get("update_id"), int)
        ]
        fresh = await self._store.keep_updates(kept)
        self._admitted.update(fresh)
        if len(fresh) < len(kept):
            again = sorted({k.update_id for k in kept} - set(fresh))
            log.info("updates %s came again: dropped", again)
        return fresh

    async def pending(self, bot: Bot) -> list[Update]:
        """The updates kept but not done (left by a crash or a stop), oldest first: they
        are to be handled again."""
        found = []
        for kept in await self._store.pending_updates():
            try:
                update = Update.de_json(json.loads(kept.body), bot)
            except Exception:  # a body PTB cannot read: it would fail at every start
                log.exception("update %s kept unreadable: dropped", kept.update_id)
                await self._store.finish_update(kept.update_id)
                continue
            if isinstance(bot, ExtBot):
                bot.insert_callback_data(update)
            self._admitted.add(kept.update_id)
            found.append(update)
        return found

    async def prune(self, max_age: float = DAY) -> None:
        """Forget updates done long ago (Telegram redelivers none older than a day)."""
        try:
            removed = await self._store.prune_updates(max_age)
        except StoreError:
            log.exception("the inbox could not be pruned")
            return
        if removed:
            log.info("inbox: %d updates done long ago forgotten", removed)

    async def handle(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Run an update's handling if it is one to handle (a copy of one kept before is
        dropped unrun), and mark it done once it has run."""
        if not isinstance(update, Update):
            await coroutine
            return
        update_id = update.update_id
        if update_id not in self._admitted:
            if hasattr(coroutine, "close"):
                coroutine.close()
            log.debug("update %s is not one to handle: dropped", update_id)
            return
        self._admitted.discard(update_id)
        handling = Handling(update_id, asyncio.current_task())
        token = _HANDLING.set(handling)
        try:
            await coroutine
        finally:
            _HANDLING.reset(token)
        if not handling.done:
            # PTB's handling ends normally also when a handler failed (it is logged): an
            # update that breaks a handler is not tried again at every start
            try:
                await self._store.finish_update(update_id)
            except StoreError:
                log.exception("update %s: could not be marked done", update_id)
