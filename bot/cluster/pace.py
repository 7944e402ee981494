"""Each chat's budget shared by every process that writes to it.

A player's private chat gets his hands from every table he sits at, and his tables may be
held by different processes; Telegram's budget of about one message a second holds for
the chat, whoever sends. A group's messages come from the holder of its shard, but that
holder changes: a shard handed over (a rolling restart hands it over twice in seconds)
must not be edited by the new holder as if the group's minute were fresh, when the old
one spent it just now and Telegram remembers (20 a minute, counted over any 60 s). So
before a process sends to a chat, past its own per-chat pacing
(:class:`~bot.transport.pacing.Pacer`), it reserves the chat's next slot in the database and waits
until then: one statement on the chat's row of ``chat_pace``, the same token bucket as the
local one (GCRA: ``burst`` at once, then one per ``interval``, a private chat's or a
group's) kept as a theoretical arrival time in the server's clock. A 429 moves the chat's
slot on for every process.

Why a shared slot rather than sending each chat's messages through one process: a hand
is drawn by the process that holds its table, which has the state, the message ids and the
player's choices at hand; handing the content to another process would cost the same round
trip to the database and a second hop besides.

The table is ``UNLOGGED``: its writes never wait for a disk flush, and after a crash of
the server it is empty, which the budgets survive (they refill within seconds). If the
database cannot be reached, sends go on with the local pacing alone.
"""

from __future__ import annotations

import logging
import time
from typing import Final

import asyncpg

from bot.store.postgres import UNAVAILABLE
from bot.transport.pacing import Pacing

__all__ = ["SharedBudgets"]

log = logging.getLogger(__name__)

_COMPLAIN_EVERY: Final = 60.0


class SharedBudgets:
    """The private chats' budgets in the database of ``pool``."""

    def __init__(self, pool: asyncpg.Pool, pacing: Pacing) -> None:
        self._pool = pool
        self._private = (pacing.private_interval, pacing.private_burst)
        self._group = (pacing.group_interval, pacing.group_burst)
        self._complained = 0.0
        self.reserved = 0
        """Slots reserved so far (for the benchmarks)."""

    @staticmethod
    def shared(chat_id: int | str) -> bool:
        """Whether ``chat_id``'s budget is shared: a private chat (a user's id) or a group
        (a negative id); not a channel named by its username."""
        return isinstance(chat_id, int) and chat_id != 0

    def _budget(self, chat_id: int) -> tuple[float, int]:
        return self._private if chat_id > 0 else self._group

    async def reserve(self, chat_id: int) -> float:
        """Take the chat's next slot: the seconds to wait for it (0: now)."""
        interval, burst = self._budget(chat_id)
        if interval <= 0:
            return 0.0
        try:
            wait = await self._pool.fetchval(
                "INSERT INTO chat_pace AS p (chat_id, tat) "
                "VALUES ($1, extract(epoch FROM now()) + $2) "
                "ON CONFLICT (chat_id) DO UPDATE SET "
                "tat = greatest(p.tat, extract(epoch FROM now())) + $2 "
                "RETURNING greatest(0, tat - $3 - extract(epoch FROM now()))",
                chat_id,
                interval,
                burst * interval,
            )
        except UNAVAILABLE as exc:
            self._complain(exc)
            return 0.0
        self.reserved += 1
        return float(wait)

    async def pause(self, chat_id: int, seconds: float) -> None:
        """Telegram asked the chat to wait ``seconds``: no process sends there before, and
        its budget refills from empty after."""
        interval, burst = self._budget(chat_id)
        try:
            await self._pool.execute(
                "INSERT INTO chat_pace AS p (chat_id, tat) "
                "VALUES ($1, extract(epoch FROM now()) + $2) "
                "ON CONFLICT (chat_id) DO UPDATE SET tat = greatest(p.tat, excluded.tat)",
                chat_id,
                seconds + (burst - 1) * interval,
            )
        except UNAVAILABLE as exc:
            self._complain(exc)

    async def prune(self, idle: float = 60.0) -> int:
        """Forget the chats whose budget has been full for ``idle`` seconds; how many."""
        found = await self._pool.fetch(
            "DELETE FROM chat_pace WHERE tat < extract(epoch FROM now()) - $1 RETURNING 1", idle
        )
        return len(found)

    def _complain(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._complained >= _COMPLAIN_EVERY:
            self._complained = now
            log.warning("shared pacing: the database cannot be reached (%s): paced here alone", exc)
