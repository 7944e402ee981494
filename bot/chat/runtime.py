"""What the handlers share at run time, built at start-up (never at import time)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram.ext import ContextTypes

from bot.base.config import Settings
from bot.service import callbacks as cb
from bot.service.inbox import Inbox
from bot.service.links import WebAppLinks
from bot.service.tables import TableService
from bot.service.thinkers import Thinkers
from bot.service.views import NoViews, TableViews
from bot.store import Store
from bot.transport.ordering import TableOrder
from bot.transport.request import UpdatesRequest
from bot.transport.sender import Publisher

__all__ = ["Cluster", "Runtime", "runtime"]


class Cluster(Protocol):
    """This process as one of several on one database (:class:`bot.cluster.member.Member`)."""

    def holds_chat(self, chat_id: int) -> bool:
        """Whether this process holds the chat's shard, so its tables."""
        ...

    @property
    def shards(self) -> list[int]:
        """The shards held now."""
        ...

    async def leave(self) -> None:
        """Give this process's part back to the others, once the updates in hand are done."""
        ...

    async def tables_moved(self, chat_id: int) -> None:
        """Running tables moved to ``chat_id`` (a group became a supergroup): the holder of
        its shard is told to take them."""
        ...

    async def ask(self, kind: str, table: int, shard: int, **data: Any) -> dict[str, Any] | None:
        """Ask the holder of ``table`` (of ``shard``) to do ``kind`` with ``data`` and wait
        for its answer; None if none came in time."""
        ...


@dataclass(slots=True)
class Runtime:
    """Everything the handlers share, built at start-up (never at import time)."""

    settings: Settings
    codec: cb.CallbackCodec
    order: TableOrder
    store: Store | None = None
    service: TableService | None = None
    publisher: Publisher | None = None
    updates_request: UpdatesRequest | None = None
    """The request getUpdates goes through (its updates are kept in the inbox)."""
    inbox: Inbox | None = None
    """Where every update is kept until it is done (after start-up)."""
    bot_username: str = ""
    extras: dict[str, object] = field(default_factory=dict)
    views: TableViews = field(default_factory=NoViews)
    """The table's views beyond the chat (the Mini App's pages), told of every change."""
    webapp: WebAppLinks | None = None
    """The Mini App's links (None: the Mini App is off)."""
    cluster: Cluster | None = None
    """Several processes on one database: this one's part (None: one process holds all)."""
    thinkers: Thinkers | None = None
    """Where computer players decide (after start-up)."""
    user_locks: tuple[asyncio.Lock, ...] = field(
        default_factory=lambda: tuple(asyncio.Lock() for _ in range(64))
    )
    """Striped locks serializing each user's read-modify-write of his stored row."""

    def user_lock(self, user_id: int) -> asyncio.Lock:
        """The lock guarding one user's stored row (shared with a few other users)."""
        return self.user_locks[user_id % len(self.user_locks)]

    @property
    def tables(self) -> TableService:
        """The table service (after start-up)."""
        assert self.service is not None, "the bot has not started"
        return self.service

    @property
    def out(self) -> Publisher:
        """The publisher (after start-up)."""
        assert self.publisher is not None, "the bot has not started"
        return self.publisher


def runtime(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    """The runtime stored in the application's bot_data."""
    found = context.application.bot_data["runtime"]
    assert isinstance(found, Runtime)
    return found
