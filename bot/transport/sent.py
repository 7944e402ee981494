"""What the bot has sent in each chat since it started: the ids of its own messages, the
newest of them, and the sends still waiting for their answer.

Telegram numbers a chat's messages in the order they are made; in a private chat the
user's messages and the bot's share one sequence. A send that timed out may have arrived
all the same, as a copy whose id the bot never learnt. Once a later send of the same
content got through, every id between the newest one the bot knew before the failed send
and the new one is either a message the bot was told of (kept here), a message of a user,
or such a copy. Ids below the first message this process sent may be messages of the
process before it, whose ids nobody remembers: those are never taken for copies.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["SentLog"]


@dataclass(slots=True)
class _Chat:
    newest: int
    forgot: int
    """Every id above this one that the bot sent is still in ``ids``."""
    ids: deque[int] = field(default_factory=deque)


class SentLog:
    """The bot's own messages per chat, for the ``chats`` chats most recently sent to,
    the last ``per_chat`` ids of each."""

    def __init__(self, chats: int = 20_000, per_chat: int = 64) -> None:
        self._chats: OrderedDict[int, _Chat] = OrderedDict()
        self._size = chats
        self._per_chat = per_chat
        self._flying: dict[int, set[asyncio.Future[None]]] = {}

    def newest(self, chat_id: int) -> int | None:
        """The newest message the bot sent in the chat and was told of (None: none that
        is remembered)."""
        chat = self._chats.get(chat_id)
        return chat.newest if chat is not None else None

    def known_above(self, chat_id: int) -> int | None:
        """The id above which every message the bot sent in the chat is known here (None:
        the chat is not remembered)."""
        chat = self._chats.get(chat_id)
        return chat.forgot if chat is not None else None

    def mine(self, chat_id: int, message_id: int) -> bool:
        """Whether the bot sent this message and was told so."""
        chat = self._chats.get(chat_id)
        return chat is not None and message_id in chat.ids

    def sent(self, chat_id: int, message_id: int) -> None:
        """The Bot API answered a send with this message."""
        chat = self._chats.get(chat_id)
        if chat is None:
            # what this process sent here before it was forgotten lies below this id
            chat = self._chats[chat_id] = _Chat(message_id, message_id - 1)
            if len(self._chats) > self._size:
                self._chats.popitem(last=False)
        else:
            self._chats.move_to_end(chat_id)
        chat.newest = max(chat.newest, message_id)
        chat.ids.append(message_id)
        if len(chat.ids) > self._per_chat:
            chat.forgot = max(chat.forgot, chat.ids.popleft())

    @contextlib.contextmanager
    def sending(self, chat_id: int) -> Iterator[None]:
        """A send to the chat is under way (until its answer or its failure)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        flying = self._flying.setdefault(chat_id, set())
        flying.add(future)
        try:
            yield
        finally:
            future.set_result(None)
            flying.discard(future)
            if not flying:
                self._flying.pop(chat_id, None)

    async def settled(self, chat_id: int) -> None:
        """Wait until the sends to the chat under way now have ended: their messages are
        known then, or they failed."""
        flying = list(self._flying.get(chat_id, ()))
        if flying:
            await asyncio.wait(flying)
