"""The queue of updates waiting for the bot, and the change notifier everything waits on."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

#: Update types Telegram leaves out when allowed_updates was never given.
_NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class Notifier:
    """Wakes every waiter when something changed (no polling with sleep)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.version = 0

    def notify(self) -> None:
        """Something changed: wake all current waiters."""
        self.version += 1
        self._event.set()
        self._event = asyncio.Event()

    def current(self) -> asyncio.Event:
        """The event the next notify() sets; take it *before* checking a condition."""
        return self._event

    async def wait(self, event: asyncio.Event, timeout: float) -> bool:
        """Wait for ``event`` at most ``timeout`` seconds; True if it was set."""
        if timeout <= 0:
            return event.is_set()
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass
class UpdateQueue:
    """Pending updates in update_id order, confirmed by getUpdates' offset."""

    next_id: int = 100_000_001
    pending: list[dict[str, Any]] = field(default_factory=list)
    #: Every update ever queued, for inspection.
    log: list[dict[str, Any]] = field(default_factory=list)
    allowed: list[str] | None = None
    notifier: Notifier = field(default_factory=Notifier)

    def push(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue a new update of ``kind`` (message, callback_query, ...) and return it."""
        update = {"update_id": self.next_id, kind: payload}
        self.next_id += 1
        self.pending.append(update)
        self.log.append(update)
        self.notifier.notify()
        return update

    def confirm(self, offset: int) -> None:
        """Forget updates below ``offset``; a negative offset keeps only the last -offset."""
        if offset > 0:
            self.pending = [u for u in self.pending if u["update_id"] >= offset]
        elif offset < 0:
            self.pending = self.pending[offset:]

    def drop_all(self) -> None:
        """Forget every pending update (drop_pending_updates)."""
        self.pending.clear()

    def _allowed(self, update: dict[str, Any]) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self.allowed:
            return kind in self.allowed
        return kind not in _NOT_BY_DEFAULT

    def take(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` deliverable updates; updates of types not allowed are discarded."""
        self.pending = [u for u in self.pending if self._allowed(u)]
        return self.pending[: max(1, min(limit, 100))]

    def remove(self, update_id: int) -> None:
        """Forget one update (delivered to a webhook)."""
        self.pending = [u for u in self.pending if u["update_id"] != update_id]
