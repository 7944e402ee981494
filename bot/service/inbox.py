"""Every update is kept before Telegram is told it arrived, so that a crash loses none.

Telegram forgets an update once the bot has confirmed it: in polling mode by asking for the
next ones (``getUpdates`` with a higher offset), in webhook mode by answering 200. PTB asks
for the next batch while it still handles the last, so a process killed then would lose a
press for good. So the updates a ``getUpdates`` returns are written to the store's inbox in
one transaction before PTB sees them (:class:`~bot.transport.request.UpdatesRequest`), and a webhook
post is written before it is answered.

An update is done in the transaction of the move it makes (the table service passes its id
to the store while :func:`handled_update` names it), else once its handler has returned.
At start-up the updates kept but not done are handled again, in order, before the new
ones. An update that comes again (Telegram redelivers what it was not told of; a webhook
post tried again) is known by its ``update_id`` and dropped.

With several processes on one database, each kept update names its *shard* (the shard of
the table or chat it is for, :class:`~bot.cluster.routing.Router`), and a process handles
only those of the shards it holds: the ones it keeps itself at once, the others' holders
take them from the store (:meth:`Inbox.pending` with the shards). An update handed on
(its table is held elsewhere) is given its table's shard in the store; a process can also
keep an update of its own making (:class:`Relayed`, a negative ``update_id``) for the
holder of another table, such as "send this player his cards again".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import orjson
from telegram import Bot, Update
from telegram.ext import ExtBot

from bot.store import DAY, KeptUpdate, Store, StoreError, StoreUnavailable

__all__ = ["Handling", "Inbox", "Relayed", "Routes", "handled_update"]

log = logging.getLogger(__name__)

RECENT: Final = 120.0
"""Seconds an update handled here is not taken from the store again (its done mark may
still be on its way)."""
FINISH_TRIES: Final = 60
"""How often marking an update done is tried while the database cannot be reached (about
a second apart), before it is left to be handled again."""


@dataclass(slots=True)
class Handling:
    """The update a task is handling."""

    update_id: int
    task: asyncio.Task[Any] | None
    done: bool = False
    """Marked done already, by the transaction of its move."""
    forward: int | None = None
    """The shard to hand it on to: the table it asked for is held by another process."""


@dataclass(frozen=True, slots=True)
class Relayed:
    """An update one process keeps for the holder of a table (a negative ``update_id``):
    ``kind`` says what to do there, ``data`` with what."""

    update_id: int
    kind: str
    table: int
    data: Mapping[str, Any] = field(default_factory=dict)

    def body(self) -> str:
        """As the inbox keeps it."""
        content = {"kind": self.kind, "table": self.table, "data": dict(self.data)}
        return json.dumps({"update_id": self.update_id, "relay": content}, ensure_ascii=False)


class Routes(Protocol):
    """The shard of each update (:class:`~bot.cluster.routing.Router`)."""

    async def shard(self, update: Mapping[str, Any]) -> int: ...


_HANDLING: ContextVar[Handling | None] = ContextVar("durak_update", default=None)


def handled_update() -> Handling | None:
    """The update the running task handles: None outside a handler and in the tasks a
    handler starts (redraws, clocks), whose writes are not that update's."""
    handling = _HANDLING.get()
    if handling is None:
        return None
    task = handling.task
    # the task's own loop, named: asyncio would ask the kernel for the process id first
    current = asyncio.current_task() if task is None else asyncio.current_task(task.get_loop())
    if task is not current:
        return None
    return handling


class Inbox:
    """The updates kept in the store, and which of them this process is to handle.

    ``routes`` gives each update its shard as it is kept, and ``holds`` says whether this
    process holds a shard (several processes on one database); without them every update
    is shard 0's, and this process holds it.
    """

    def __init__(
        self,
        store: Store,
        *,
        routes: Routes | None = None,
        holds: Callable[[int], bool] | None = None,
    ) -> None:
        self._store = store
        self._routes = routes
        self._holds = holds
        self._admitted: dict[int, int] = {}
        """Kept and to be handled here, not started yet (id -> shard): every other copy of
        an update is dropped."""
        self._running: dict[int, int] = {}
        """Being handled here (id -> shard)."""
        self._recent: dict[int, tuple[int, float]] = {}
        """Handled here lately (id -> shard, when): not taken from the store again."""
        self._keeping: set[int] = set()
        """Being kept by this process now."""
        self._idle = asyncio.Event()
        self._idle.set()
        self._finishing: set[asyncio.Task[None]] = set()

    async def keep(self, updates: Sequence[dict[str, Any]]) -> list[int]:
        """Keep updates as Telegram sent them (one transaction); the ids of those that are
        new. Those of a shard held here are to be handled here, at once."""
        kept = []
        for u in updates:
            if not isinstance(u, dict) or not isinstance(u.get("update_id"), int):
                continue
            shard = await self._routes.shard(u) if self._routes is not None else 0
            body = _dumps(u)
            kept.append(KeptUpdate(int(u["update_id"]), body, shard))
        shards = {k.update_id: k.shard for k in kept}
        # not taken from the store meanwhile (its notification may come first): kept here
        self._keeping.update(shards)
        try:
            fresh = await self._store.keep_updates(kept)
        finally:
            self._keeping.difference_update(shards)
        for update_id in fresh:
            if self._holds is None or self._holds(shards[update_id]):
                self._admitted[update_id] = shards[update_id]
        if len(fresh) < len(kept):
            again = sorted(set(shards) - set(fresh))
            log.info("updates %s came again: dropped", again)
        return fresh

    async def relay(self, kind: str, table: int, shard: int, **data: Any) -> None:
        """Keep an update for the holder of ``table`` (of ``shard``), who does ``kind``."""
        relayed = Relayed(-1 - secrets.randbits(62), kind, table, data)
        await self._store.keep_updates([KeptUpdate(relayed.update_id, relayed.body(), shard)])

    def admits(self, update: object) -> bool:
        """Whether an update is to be handled here (one kept, or taken from the store, for
        a shard held here); anything that is no update is."""
        update_id = _update_id(update)
        return update_id is None or update_id in self._admitted

    async def pending(self, bot: Bot, shards: Collection[int] | None = None) -> list[Any]:
        """The updates kept but not done (left by a crash or a stop; of ``shards`` only, if
        given), oldest first, that this process is not handling already: they are to be
        handled now."""
        found: list[Any] = []
        self._forget_old()
        for kept in await self._store.pending_updates(shards):
            update_id = kept.update_id
            if update_id in self._admitted or update_id in self._running:
                continue
            if update_id in self._keeping:
                continue
            if update_id in self._recent:
                continue
            if self._holds is not None and not self._holds(kept.shard):
                continue  # let go while it was read
            try:
                update = _parse(kept.body, bot)
            except Exception:  # a body PTB cannot read: it would fail at every start
                log.exception("update %s kept unreadable: dropped", update_id)
                await self._store.finish_update(update_id)
                continue
            self._admitted[update_id] = kept.shard
            found.append(update)
        return found

    def let_go(self, shards: Collection[int]) -> None:
        """Shards no longer held here: their updates not started yet are dropped here (their
        next holder takes them from the store), and those handled are forgotten."""
        for update_id in [u for u, s in self._admitted.items() if s in shards]:
            del self._admitted[update_id]
        for update_id in [u for u, (s, _) in self._recent.items() if s in shards]:
            del self._recent[update_id]

    def busy(self, shards: Collection[int]) -> bool:
        """Whether an update of ``shards`` is being handled here, or waits to be."""
        return any(s in shards for s in (*self._running.values(), *self._admitted.values()))

    async def drain(self, shards: Collection[int], timeout: float) -> bool:
        """Wait until no update of ``shards`` is handled here, at most ``timeout`` seconds;
        whether none is."""
        deadline = time.monotonic() + timeout
        while any(s in shards for s in self._running.values()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._idle.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), min(left, 0.5))
        return True

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
        update_id = _update_id(update)
        if update_id is None:
            await coroutine
            return
        shard = self._admitted.pop(update_id, None)
        if shard is None:
            if hasattr(coroutine, "close"):
                coroutine.close()
            log.debug("update %s is not one to handle: dropped", update_id)
            return
        self._running[update_id] = shard
        handling = Handling(update_id, asyncio.current_task())
        token = _HANDLING.set(handling)
        try:
            await coroutine
        finally:
            _HANDLING.reset(token)
            del self._running[update_id]
            if self._holds is not None:
                self._recent.pop(update_id, None)  # noted again: at the end, in time order
                self._recent[update_id] = (shard, time.monotonic())
            self._idle.set()
        if handling.forward is not None:
            await self._hand_on(update_id, handling.forward)
        elif not handling.done:
            # PTB's handling ends normally also when a handler failed (it is logged): an
            # update that breaks a handler is not tried again at every start
            await self._finish(update_id)

    async def _hand_on(self, update_id: int, shard: int) -> None:
        try:
            await self._store.forward_update(update_id, shard)
        except StoreError:
            log.exception("update %s: could not be handed on to shard %s", update_id, shard)
            return
        self._recent.pop(update_id, None)
        log.info("update %s handed on to shard %s", update_id, shard)

    async def _finish(self, update_id: int) -> None:
        try:
            await self._store.finish_update(update_id)
        except StoreUnavailable:
            # the database restarts: marked done once it is back, never handled again here
            task = asyncio.get_running_loop().create_task(self._finish_later(update_id))
            self._finishing.add(task)
            task.add_done_callback(self._finishing.discard)
        except StoreError:
            log.exception("update %s: could not be marked done", update_id)

    async def _finish_later(self, update_id: int) -> None:
        for _ in range(FINISH_TRIES):
            await asyncio.sleep(1.0)
            try:
                await self._store.finish_update(update_id)
                return
            except StoreUnavailable:
                continue
            except StoreError:
                break
        log.error("update %s: could not be marked done", update_id)

    def _forget_old(self) -> None:
        """Forget the updates handled more than :data:`RECENT` seconds ago (the oldest come
        first: they were noted in the order they were handled)."""
        cutoff = time.monotonic() - RECENT
        recent = self._recent
        while recent:
            update_id, (_, at) = next(iter(recent.items()))
            if at >= cutoff:
                break
            del recent[update_id]


def _dumps(update: dict[str, Any]) -> str:
    """An update as compact JSON (orjson's; the standard library's for what orjson does not
    write, such as an integer beyond 64 bits)."""
    try:
        return orjson.dumps(update).decode()
    except orjson.JSONEncodeError:
        return json.dumps(update, ensure_ascii=False, separators=(",", ":"))


def _update_id(update: object) -> int | None:
    if isinstance(update, Update | Relayed):
        return update.update_id
    return None


def _parse(body: str, bot: Bot) -> Any:
    """A kept update as PTB hands it on: an :class:`Update`, or a :class:`Relayed`."""
    data = json.loads(body)
    relay = data.get("relay") if isinstance(data, dict) else None
    if isinstance(relay, dict):
        return Relayed(
            int(data["update_id"]), str(relay["kind"]), int(relay["table"]), relay.get("data", {})
        )
    update = Update.de_json(data, bot)
    if isinstance(bot, ExtBot):
        bot.insert_callback_data(update)
    return update
