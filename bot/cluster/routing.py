"""Which shard an update is for: the shard of the table it acts on, else of its chat.

A table's shard is its chat's (:func:`~bot.store.shard_of`): the group's, or for a game
against the computer its player's private chat. So an update from a chat goes to its
chat's shard (a command, the bot added or removed, a group upgraded), and so does a button
pressed in a group; a button of a private hand names its table in its data, whose chat the
store tells (cached: a table's chat changes only when its group becomes a supergroup,
:meth:`Router.chat_moved`). A /start that seats its user names its table too.

An update routed by a chat the cache held before the move reaches the old chat's holder,
which finds the table is not its own and hands the update on (:class:`~bot.service.shards.NotHere`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Final, Protocol

from bot.service import callbacks as cb
from bot.store import shard_of

__all__ = ["Router", "TableChats"]

CACHED: Final = 100_000
"""Tables whose chat is remembered."""


class TableChats(Protocol):
    """Where a table's chat is read (the store)."""

    async def table_chat(self, table_id: int) -> int | None: ...


class Router:
    """The shard of each update, as Telegram sent it (a JSON object)."""

    def __init__(self, codec: cb.CallbackCodec, tables: TableChats, *, size: int = CACHED):
        self._codec = codec
        self._tables = tables
        self._chats: OrderedDict[int, int] = OrderedDict()
        self._size = size

    async def shard(self, update: Mapping[str, Any]) -> int:
        """The shard that handles ``update`` (0 for one that names no chat)."""
        query = update.get("callback_query")
        if isinstance(query, Mapping):
            table = self._table_of_button(query.get("data"))
            if table is not None:
                chat = await self.chat_of(table)
                if chat is not None:
                    return shard_of(chat)
            message = query.get("message")
            if isinstance(message, Mapping):
                return _shard_of_chat(message.get("chat"))
            return _shard_of_chat(query.get("from"))
        message = update.get("message")
        if isinstance(message, Mapping):
            table = self._table_of_start(message)
            if table is not None:
                chat = await self.chat_of(table)
                if chat is not None:
                    return shard_of(chat)
            return _shard_of_chat(message.get("chat"))
        for kind, value in update.items():
            if kind != "update_id" and isinstance(value, Mapping) and "chat" in value:
                return _shard_of_chat(value.get("chat"))  # my_chat_member, an edit...
        inline = update.get("inline_query")
        if isinstance(inline, Mapping):
            return _shard_of_chat(inline.get("from"))  # names no chat: its user's
        return 0

    def _table_of_button(self, data: object) -> int | None:
        try:
            decoded = self._codec.decode(data)
        except cb.BadCallback:
            return None  # refused wherever it lands: its chat's holder says so
        if isinstance(decoded, cb.ReplayOpen | cb.ReplayStep):
            return None  # a finished game's replay is read from the store anywhere
        table = getattr(decoded, "table", None)
        return table if isinstance(table, int) else None

    def _table_of_start(self, message: Mapping[str, Any]) -> int | None:
        text = message.get("text")
        if not isinstance(text, str) or not text.startswith("/start "):
            return None
        try:
            return self._codec.parse_join_payload(text.split(maxsplit=1)[1].strip())
        except (cb.BadCallback, IndexError):
            return None

    async def chat_of(self, table_id: int) -> int | None:
        """The chat of a table (None: no such table)."""
        chats = self._chats
        chat = chats.get(table_id)
        if chat is not None:
            chats.move_to_end(table_id)
            return chat
        chat = await self._tables.table_chat(table_id)
        if chat is not None:
            self.note(table_id, chat)
        return chat

    def note(self, table_id: int, chat_id: int) -> None:
        """A table's chat, known already (a table just opened, or loaded)."""
        chats = self._chats
        chats[table_id] = chat_id
        chats.move_to_end(table_id)
        if len(chats) > self._size:
            chats.popitem(last=False)

    def chat_moved(self, old_chat_id: int) -> None:
        """A group became a supergroup: its tables' chat is read again."""
        for table in [t for t, chat in self._chats.items() if chat == old_chat_id]:
            del self._chats[table]


def _shard_of_chat(chat: object) -> int:
    if isinstance(chat, Mapping):
        chat_id = chat.get("id")
        if isinstance(chat_id, int) and not isinstance(chat_id, bool):
            return shard_of(chat_id)
    return 0
