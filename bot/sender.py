"""Sending and editing messages: coalesced, paced per chat, and forgiving of Telegram.

Each logical message (a table's group message, one player's hand) is a *slot*. Callers say
what the slot should show; a worker sends only the latest wanted content, never an
unchanged one, and paces every chat (a group's table at most once per
``group_interval`` seconds, so 20 edits a minute at 3 s). "Message is not modified" is not an
error; a message that disappeared is sent anew; a player who blocked the bot is reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.render import Keyboard, Screen, reply_markup

__all__ = ["Content", "Publisher"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Content:
    """What a message shows: HTML text and an optional inline keyboard."""

    text: str
    keyboard: Keyboard | None = None

    @classmethod
    def of(cls, screen: Screen) -> Content:
        """What a rendered screen shows."""
        return cls(screen.text, screen.keyboard)

    def params(self) -> dict[str, Any]:
        """The Bot API parameters that draw this content."""
        params: dict[str, Any] = {
            "text": self.text,
            "parse_mode": "HTML",
            "link_preview_options": _NO_PREVIEW,
        }
        if self.keyboard is not None:
            params["reply_markup"] = reply_markup(self.keyboard)
        return params


_NO_PREVIEW: Final = {"is_disabled": True}


@dataclass(slots=True)
class _Slot:
    key: Hashable
    chat_id: int
    thread_id: int | None
    message_id: int | None
    sent: Content | None = None
    wanted: Content | None = None
    fresh: bool = False
    worker: asyncio.Task[None] | None = None
    on_sent: Callable[[int | None], Awaitable[None]] | None = None
    interval: float = 0.0
    retired: bool = False
    pause: asyncio.Future[None] | None = None
    """While content that is not urgent waits: resolved early by urgent content."""


@dataclass(slots=True)
class _Chat:
    next_at: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Publisher:
    """Keeps every slot showing its latest wanted content."""

    def __init__(
        self,
        bot: Bot,
        *,
        group_interval: float = 3.0,
        private_interval: float = 1.0,
        on_blocked: Callable[[int], Awaitable[None]] | None = None,
        on_migrated: Callable[[int, int], Awaitable[None]] | None = None,
    ) -> None:
        self._bot = bot
        self._group_interval = group_interval
        self._private_interval = private_interval
        self._on_blocked = on_blocked
        self._on_migrated = on_migrated
        self._slots: dict[Hashable, _Slot] = {}
        self._chats: dict[int, _Chat] = {}
        self._closed = False

    # ------------------------------------------------------------------ the interface

    def show(
        self,
        key: Hashable,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        message_id: int | None = None,
        fresh: bool = False,
        on_sent: Callable[[int | None], Awaitable[None]] | None = None,
        interval: float = 0.0,
    ) -> None:
        """Make slot ``key`` show ``content``: edit its message, or send one if it has none.

        ``fresh`` sends a new message at the bottom of the chat and deletes the old one
        (a notification). ``message_id`` adopts a message the slot should edit (after a
        restart). ``on_sent`` is told the slot's message id whenever it changes.
        ``interval`` marks content that is not urgent: it waits that long (or until urgent
        content for the slot arrives) and merges with whatever comes meanwhile. A slot's
        first message is never held back.
        """
        slot = self._slots.get(key)
        if slot is None or slot.chat_id != chat_id:
            slot = self._slots[key] = _Slot(key, chat_id, thread_id, message_id)
        elif message_id is not None and slot.message_id is None:
            slot.message_id = message_id
        slot.thread_id = thread_id if thread_id is not None else slot.thread_id
        slot.wanted = content
        slot.fresh = slot.fresh or fresh
        slot.interval = interval
        slot.retired = False
        if interval <= 0 and slot.pause is not None:
            _resolve(slot.pause)  # urgent: a pause for content that could wait ends now
        if on_sent is not None:
            slot.on_sent = on_sent
        if not self._closed and (slot.worker is None or slot.worker.done()):
            slot.worker = asyncio.create_task(self._run(slot), name=f"publish {key}")

    def adopt(
        self, key: Hashable, chat_id: int, message_id: int, *, thread_id: int | None = None
    ) -> None:
        """Take over a message sent before a restart: later content edits it in place."""
        slot = self._slots.get(key)
        if slot is None or slot.chat_id != chat_id:
            self._slots[key] = _Slot(key, chat_id, thread_id, message_id)
        elif slot.message_id is None:
            slot.message_id = message_id

    def retire(self, key: Hashable) -> None:
        """Stop tracking a slot once it shows what it was last asked to (a finished table's
        messages), so memory does not grow with every game played."""
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.retired = True
        if (slot.worker is None or slot.worker.done()) and slot.wanted is None:
            del self._slots[key]

    def forget(self, key: Hashable) -> int | None:
        """Stop tracking a slot (its message stays); returns its message id."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return None
        slot.wanted = None
        return slot.message_id

    def tracked(self) -> int:
        """How many messages the publisher keeps track of."""
        return len(self._slots)

    def message_id(self, key: Hashable) -> int | None:
        """The message a slot shows now, if any."""
        slot = self._slots.get(key)
        return slot.message_id if slot is not None else None

    async def send(
        self, chat_id: int, content: Content, *, thread_id: int | None = None
    ) -> int | None:
        """Send a one-off message now (paced like the rest); its id, or None if it failed."""
        chat = self._chat(chat_id)
        for _attempt in range(3):
            async with chat.lock:
                await self._pace(chat_id, chat)
                try:
                    message = await self._call(
                        chat_id, self._api("sendMessage", chat_id, content, thread_id=thread_id)
                    )
                except RetryAfter:
                    continue  # waited out in _call
                except Forbidden:
                    await self._blocked(chat_id)
                    return None
                except TelegramError as exc:
                    log.warning("chat %s: message not sent: %s", chat_id, exc)
                    return None
            return int(message["message_id"])
        return None

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every slot shows its latest content (for shutdown and tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            workers = [s.worker for s in self._slots.values() if s.worker and not s.worker.done()]
            if not workers:
                return
            await asyncio.wait(workers, timeout=max(0.0, deadline - time.monotonic()))

    async def close(self) -> None:
        """Finish what is wanted (briefly), then stop."""
        await self.flush(timeout=5.0)
        self._closed = True
        for slot in self._slots.values():
            if slot.worker is not None and not slot.worker.done():
                slot.worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await slot.worker

    # ------------------------------------------------------------------ the worker

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
        return chat

    def _interval(self, chat_id: int) -> float:
        return self._private_interval if chat_id > 0 else self._group_interval

    async def _pace(self, chat_id: int, chat: _Chat) -> None:
        now = time.monotonic()
        if chat.next_at > now:
            await asyncio.sleep(chat.next_at - now)
        chat.next_at = time.monotonic() + self._interval(chat_id)

    async def _run(self, slot: _Slot) -> None:
        try:
            while slot.wanted is not None and self._slots.get(slot.key) is slot:
                if slot.interval > 0 and not slot.fresh and slot.message_id is not None:
                    # not urgent: let later changes merge into this one, unless urgent
                    # content (the game turning to him, his own move) ends the pause
                    loop = asyncio.get_running_loop()
                    slot.pause = loop.create_future()
                    timer = loop.call_later(slot.interval, _resolve, slot.pause)
                    try:
                        await slot.pause
                    finally:
                        timer.cancel()
                        slot.pause = None
                chat = self._chat(slot.chat_id)
                async with chat.lock:
                    wanted, fresh = slot.wanted, slot.fresh
                    if wanted is None:
                        return
                    if wanted == slot.sent and not fresh:
                        slot.wanted = None
                        return
                    await self._pace(slot.chat_id, chat)
                    # the newest content, read after the pause: intermediate states are skipped
                    wanted, fresh = slot.wanted or wanted, slot.fresh
                    slot.wanted, slot.fresh = None, False
                    try:
                        await self._deliver(slot, wanted, fresh)
                    except RetryAfter:
                        # waited out in _call: try again, unless newer content came meanwhile
                        if slot.wanted is None:
                            slot.wanted = wanted
                        slot.fresh = slot.fresh or fresh
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("publishing %s failed", slot.key)
        finally:
            if slot.retired and slot.wanted is None and self._slots.get(slot.key) is slot:
                del self._slots[slot.key]

    async def _deliver(self, slot: _Slot, content: Content, fresh: bool) -> None:
        old = slot.message_id
        if old is not None and not fresh:
            try:
                await self._call(
                    slot.chat_id,
                    self._api("editMessageText", slot.chat_id, content, message_id=old),
                )
                slot.sent = content
                return
            except BadRequest as exc:
                text = str(exc).lower()
                if "not modified" in text:
                    slot.sent = content
                    return
                if "not found" not in text and "can't be edited" not in text:
                    log.warning("chat %s: edit refused: %s", slot.chat_id, exc)
                    return
                old = None  # the message is gone: send it anew
            except Forbidden:
                await self._blocked(slot.chat_id)
                return
        try:
            message = await self._call(
                slot.chat_id,
                self._api("sendMessage", slot.chat_id, content, thread_id=slot.thread_id),
            )
        except Forbidden:
            await self._blocked(slot.chat_id)
            return
        except BadRequest as exc:
            log.warning("chat %s: message refused: %s", slot.chat_id, exc)
            return
        if not isinstance(message, dict):
            return
        slot.message_id = int(message["message_id"])
        slot.sent = content
        if old is not None:
            with contextlib.suppress(TelegramError):
                await self._bot.delete_message(slot.chat_id, old)
        if slot.on_sent is not None:
            await slot.on_sent(slot.message_id)

    async def _api(
        self,
        method: str,
        chat_id: int,
        content: Content,
        *,
        message_id: int | None = None,
        thread_id: int | None = None,
    ) -> Any:
        """Send or edit through the bot's request path (defaults, rate limiter, errors as
        PTB raises them) without building PTB objects: the keyboard goes as plain JSON and
        the returned message stays a dict. The typed methods would parse every returned
        message, keyboard and all, only for us to read its id; on a busy bot that parsing
        was a good part of the CPU spent per move."""
        params = content.params()
        params["chat_id"] = chat_id
        if message_id is not None:
            params["message_id"] = message_id
        if thread_id is not None:
            params["message_thread_id"] = thread_id
        return await self._bot._post(method, params)

    async def _call(self, chat_id: int, request: Awaitable[T]) -> T:
        """Run a request; a flood wait the rate limiter gave up on is waited out once."""
        try:
            return await request
        except RetryAfter as exc:
            reduced = exc.__reduce__()[1]  # (seconds,), read without the deprecated property
            seconds = float(reduced[0]) if reduced else 1.0
            log.warning("chat %s: flood wait of %.0f s", chat_id, seconds)
            await asyncio.sleep(seconds)
            raise
        except ChatMigrated as exc:
            if self._on_migrated is not None:
                await self._on_migrated(chat_id, exc.new_chat_id)
            raise

    async def _blocked(self, chat_id: int) -> None:
        log.info("chat %s: the user blocked the bot or never started it", chat_id)
        if self._on_blocked is not None:
            await self._on_blocked(chat_id)
