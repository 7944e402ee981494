"""Sending and editing messages: coalesced, paced per chat, and nothing lost.

Each logical message (a table's group message, one player's hand) is a *slot*. Callers say
what the slot should show; a worker sends only the latest wanted content, never an
unchanged one. Every request waits for its chat's budget (:mod:`bot.transport.pacing`) in the
slot's priority, and the content is read only once the budget lets it go, so whatever
changed while it waited is merged into one edit.

Telegram's troubles are handled here, where the wanted content is known:

* a 429 pauses that chat (the pacer) and the slot tries again with its newest content;
* a network failure (timeout, reset, a 5xx) is retried with backoff and jitter, keeping
  the newest content; a send that timed out may have arrived all the same: once the send
  gets through, the ids between the newest message the bot knew in that chat and the new
  one that are not the bot's own known messages lose their buttons (a user's own message
  refuses the edit; :mod:`bot.transport.sent`). A slow server may carry a send or an edit out later
  still, after the one that got through: a while after the chat's last such failure the
  bot looks again, at the ids since the newest message known before it and at a few above
  the newest it knows now (a copy there is deleted), and draws again every message whose
  edit failed so, and the latest content wins. A copy out of every reach is recognised
  when it is pressed (its message is not the slot's);
* "message is not modified" is success; a message that is gone is sent anew;
* a group upgraded to a supergroup moves every slot of it to the new chat, which is drawn
  at once (one-off messages too);
* a forum topic that was deleted moves every slot of it to the group's general chat, for
  good, drawn there at once; a topic closed to the bot only refuses new messages;
* a message that must move to the bottom (a notification) is sent anew and the old copy
  deleted; where Telegram refuses the delete (older than 48 hours) the old copy loses its
  buttons and says where the message went;
* a player who blocked the bot is reported;
* a Bot API server too old for live clocks (``<tg-time>``, Bot API 9.5) refuses the
  first message with one: from then on every clock is sent as plain text (the time left
  when drawn), that message first, at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final

from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.base.loops import LoopRef
from bot.render import Keyboard, Screen, plain_clocks, reply_markup
from bot.store.errors import StoreUnavailable
from bot.transport import tgerrors
from bot.transport.pacing import Pacer, Priority, paced
from bot.transport.request import call
from bot.transport.tasks import cancel_all, settle

__all__ = ["Content", "Lazy", "Priority", "Publisher"]

log = logging.getLogger(__name__)


class Lazy:
    """Content drawn only when its request is about to go (the slot's budget let it): a
    table a group sees once every few seconds, or a watcher's hand, changes at every move,
    and what would be drawn meanwhile is never shown. Drawn then, it shows the newest
    state."""

    __slots__ = ("draw",)

    def __init__(self, draw: Callable[[], Content]) -> None:
        self.draw = draw


@dataclass(frozen=True, slots=True)
class Content:
    """What a message shows: HTML text and an optional inline keyboard."""

    text: str
    keyboard: Keyboard | None = None

    @classmethod
    def of(cls, screen: Screen) -> Content:
        """What a rendered screen shows."""
        return cls(screen.text, screen.keyboard)

    def params(self, *, disabled: bool = True) -> dict[str, Any]:
        """The Bot API parameters that draw this content (``disabled=False``: for a server
        that knows no disabled buttons)."""
        params: dict[str, Any] = {
            "text": self.text,
            "parse_mode": "HTML",
            "link_preview_options": _NO_PREVIEW,
        }
        if self.keyboard is not None:
            params["reply_markup"] = reply_markup(self.keyboard, disabled=disabled)
        return params


_NO_PREVIEW: Final = {"is_disabled": True}
_NO_KEYBOARD: Final[dict[str, list[Any]]] = {"inline_keyboard": []}
SWEEP_MAX: Final = 20
"""At most this many ids are looked at for copies of a send that timed out (in a group
most ids between are other people's messages)."""
LATE_LOOK_MIN: Final = 5.0
"""Seconds at least after a chat's last request that may yet be carried out before the
chat is looked at again (four read timeouts, if longer)."""
LATE_PROBES: Final = 5
"""At most this many ids above the newest message the bot knows in a chat are looked at
for a copy carried out late (in a group, others may have written there meanwhile)."""


@dataclass(slots=True)
class _LateLook:
    """A chat whose sends or edits failed in a way that they may yet be carried out."""

    since: int | None
    """The lowest of the newest messages known in the chat before those sends (None:
    none known, or only edits failed)."""
    due: float
    """When to look (loop time): a while after the last of those requests failed."""


@dataclass(slots=True)
class _Slot:
    key: Hashable
    chat_id: int
    thread_id: int | None
    message_id: int | None
    sent: Content | None = None
    wanted: Content | Lazy | None = None
    fresh: bool = False
    worker: asyncio.Task[None] | None = None
    on_sent: Callable[[int | None], Awaitable[None]] | None = None
    interval: float = 0.0
    retired: bool = False
    pause: asyncio.Future[None] | None = None
    """While content that is not urgent waits: resolved early by urgent content."""
    priority: Priority = Priority.OWN
    moved_note: str | None = None
    """The line an old copy gets when it cannot be deleted ("moved below")."""
    once: asyncio.Future[int | None] | None = None
    """A one-off message: sent once, never edited; resolved with its id (None: failed)."""
    reply_to: int | None = None
    """The message a one-off message answers (quoted, in the same chat)."""
    unsure: bool = False
    """A send failed in a way that it may have arrived: look for its copy once one gets
    through."""
    sweep_from: int | None = None
    """The newest message known in the chat before that send (None: none known)."""
    doubt: bool = False
    """An edit failed in a way that it may have been carried out, even after a later one
    (a slow server): drawn again once the chat's late look is due."""
    delivering: bool = False
    """A request of it is under way (it cannot be called back)."""


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Publisher:
    """Keeps every slot showing its latest wanted content."""

    def __init__(
        self,
        bot: Bot,
        *,
        pacer: Pacer | None = None,
        timeout: float = 2.0,
        on_blocked: Callable[[int], Awaitable[None]] | None = None,
        on_migrated: Callable[[int, int], Awaitable[None]] | None = None,
        on_topic_gone: Callable[[int, int], Awaitable[None]] | None = None,
        backoff: tuple[float, float] = (0.25, 10.0),
        seed: int | None = None,
    ) -> None:
        self._bot = bot
        self._loop = LoopRef()
        found = pacer if pacer is not None else getattr(bot, "rate_limiter", None)
        self._pacer: Pacer | None = found if isinstance(found, Pacer) else None
        self._sent = self._pacer.sent if self._pacer is not None else None
        self._timeout = timeout
        self._on_blocked = on_blocked
        self._on_migrated = on_migrated
        self._on_topic_gone = on_topic_gone
        self._backoff = backoff
        self._rng = random.Random(seed)
        self._slots: dict[Hashable, _Slot] = {}
        self._moved: dict[int, int] = {}
        """Groups that became supergroups: old chat id -> new chat id."""
        self._migrating: dict[int, asyncio.Task[None]] = {}
        self._topics_gone: dict[tuple[int, int], asyncio.Task[None]] = {}
        """Deleted forum topics (chat id, thread id): their slots went to the general chat."""
        self._cleanups: set[asyncio.Task[None]] = set()
        self._once = itertools.count()
        self._closed = False
        self._late_after = max(LATE_LOOK_MIN, 4 * timeout)
        self._late_looks: dict[int, _LateLook] = {}
        """Chats to look at again for what a slow server carried out late."""
        self._plain_clocks = False
        self._no_disabled = False
        """The Bot API server refused a disabled button (it is older than 10.3)."""

    @property
    def plain_clocks(self) -> bool:
        """Whether clocks go as plain text: the Bot API server refused a live one."""
        return self._plain_clocks

    # ------------------------------------------------------------------ the interface

    def show(
        self,
        key: Hashable,
        chat_id: int,
        content: Content | Lazy,
        *,
        thread_id: int | None = None,
        message_id: int | None = None,
        fresh: bool = False,
        on_sent: Callable[[int | None], Awaitable[None]] | None = None,
        interval: float = 0.0,
        priority: Priority = Priority.OWN,
        moved_note: str | None = None,
    ) -> None:
        """Make slot ``key`` show ``content``: edit its message, or send one if it has none.

        ``fresh`` sends a new message at the bottom of the chat and deletes the old one
        (a notification); ``moved_note`` is what the old copy says if it cannot be
        deleted. ``message_id`` adopts a message the slot should edit (after a restart).
        ``on_sent`` is told the slot's message id whenever it changes. ``interval`` marks
        content that is not urgent: it waits that long (or until urgent content for the
        slot arrives) and merges with whatever comes meanwhile; a slot's first message is
        never held back. ``priority`` orders the slot among the chat's other requests.
        """
        chat_id = self._moved.get(chat_id, chat_id)
        thread_id = self._thread(chat_id, thread_id)
        slot = self._slots.get(key)
        if slot is None or slot.chat_id != chat_id:
            slot = self._slots[key] = _Slot(key, chat_id, thread_id, message_id)
        elif message_id is not None and slot.message_id is None:
            slot.message_id = message_id
        slot.thread_id = thread_id if thread_id is not None else slot.thread_id
        slot.wanted = content
        slot.fresh = slot.fresh or fresh
        slot.interval = interval
        slot.priority = priority
        slot.retired = False
        if moved_note is not None:
            slot.moved_note = moved_note
        if interval <= 0 and slot.pause is not None:
            _resolve(slot.pause)  # urgent: a pause for content that could wait ends now
        if on_sent is not None:
            slot.on_sent = on_sent
        self._start(slot)

    def post(
        self,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        priority: Priority = Priority.OWN,
        reply_to: int | None = None,
    ) -> asyncio.Future[int | None]:
        """Send a one-off message (an end of game, a notice, the answer to a command) with
        the same pacing and retries as the slots; ``reply_to`` quotes the message it
        answers. The future gives its id, or None if it could not be sent."""
        future: asyncio.Future[int | None] = self._loop().create_future()
        key = ("once", next(self._once))
        moved = self._moved.get(chat_id)
        if moved is not None:
            chat_id, reply_to = moved, None  # the message answered stayed in the old group
        thread_id = self._thread(chat_id, thread_id)
        slot = _Slot(key, chat_id, thread_id, None, wanted=content, priority=priority)
        slot.once = future
        slot.reply_to = reply_to
        slot.retired = True
        self._slots[key] = slot
        if self._closed:
            future.set_result(None)
            del self._slots[key]
        else:
            self._start(slot)
        return future

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

    def under_way(self, key: Hashable) -> asyncio.Task[None] | None:
        """The worker of slot ``key`` while a request of it is under way: forgetting the
        slot stops it from sending anything more, but not that request, which this worker
        finishes (telling ``on_sent`` where its message is)."""
        slot = self._slots.get(key)
        if slot is None or not slot.delivering or slot.worker is None or slot.worker.done():
            return None
        return slot.worker

    def tracked(self) -> int:
        """How many messages the publisher keeps track of."""
        return len(self._slots)

    def message_id(self, key: Hashable) -> int | None:
        """The message a slot shows now, if any."""
        slot = self._slots.get(key)
        return slot.message_id if slot is not None else None

    def strip(self, chat_id: int, message_id: int) -> None:
        """Take the buttons off a message that is not a slot's (a stray copy)."""
        task = self._loop().create_task(
            self._strip(chat_id, message_id, None), name=f"strip {chat_id}/{message_id}"
        )
        self._keep(task)

    def _workers(self) -> list[asyncio.Task[None]]:
        return [s.worker for s in self._slots.values() if s.worker is not None]

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every slot shows its latest content (for shutdown and tests)."""
        await settle(
            lambda: [
                *self._workers(),
                *self._cleanups,
                *self._migrating.values(),
                *self._topics_gone.values(),
            ],
            timeout,
        )

    async def close(self) -> None:
        """Finish what is wanted (briefly), then stop."""
        await self.flush(timeout=5.0)
        self._closed = True
        await cancel_all([*self._workers(), *self._cleanups])
        for slot in self._slots.values():
            if slot.once is not None and not slot.once.done():
                slot.once.set_result(None)

    # ------------------------------------------------------------------ the worker

    def _start(self, slot: _Slot) -> None:
        if not self._closed and (slot.worker is None or slot.worker.done()):
            # one name for all: a slot's key put in words at every send cost more than
            # anything else of starting its worker
            slot.worker = self._loop().create_task(self._run(slot), name="publish")

    def _keep(self, task: asyncio.Task[None]) -> None:
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    def _delay(self, failures: int) -> float:
        """Backoff with jitter before the next try of a request that failed."""
        base, cap = self._backoff
        delay: float = min(cap, base * 2.0 ** (failures - 1))
        return delay * self._rng.uniform(0.5, 1.0)

    async def _budget(self, chat_id: int, priority: Priority) -> None:
        if self._pacer is not None:
            await self._pacer.acquire(chat_id, priority)

    async def _run(self, slot: _Slot) -> None:
        failures = 0
        try:
            while slot.wanted is not None and self._slots.get(slot.key) is slot:
                if slot.interval > 0 and not slot.fresh and slot.message_id is not None:
                    # not urgent: let later changes merge into this one, unless urgent
                    # content (the game turning to him, his own move) ends the pause
                    loop = self._loop()
                    slot.pause = loop.create_future()
                    timer = loop.call_later(slot.interval, _resolve, slot.pause)
                    try:
                        await slot.pause
                    finally:
                        timer.cancel()
                        slot.pause = None
                if slot.wanted == slot.sent and not slot.fresh:
                    slot.wanted = None
                    break
                await self._budget(slot.chat_id, slot.priority)
                # the newest content, read once the budget let it go: what changed while
                # it waited is merged into this one request
                wanted, fresh = slot.wanted, slot.fresh
                if wanted is None or self._slots.get(slot.key) is not slot:
                    break
                if isinstance(wanted, Lazy):
                    try:
                        wanted = wanted.draw()
                    except Exception:
                        log.exception("%s: drawing it failed", slot.key)
                        slot.wanted = None
                        break
                if wanted == slot.sent and not fresh:
                    slot.wanted = None
                    break
                slot.wanted, slot.fresh = None, False
                slot.delivering = True
                try:
                    try:
                        await self._deliver(slot, wanted, fresh)
                    finally:
                        slot.delivering = False
                    failures = 0
                except RetryAfter:
                    self._again(slot, wanted, fresh)  # its chat is paused by the pacer
                except ChatMigrated as exc:
                    self._again(slot, wanted, fresh)
                    await self.migrate(slot.chat_id, int(exc.new_chat_id))
                except TelegramError as exc:
                    if not tgerrors.is_transient(exc):
                        raise
                    self._again(slot, wanted, fresh)
                    failures += 1
                    delay = self._delay(failures)
                    log.info(
                        "chat %s: %s failed (%s), again in %.1f s",
                        slot.chat_id,
                        slot.key,
                        exc,
                        delay,
                    )
                    await asyncio.sleep(delay)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("publishing %s failed", slot.key)
        finally:
            if slot.once is not None and slot.wanted is None and not slot.once.done():
                slot.once.set_result(slot.message_id)
            if slot.retired and slot.wanted is None and self._slots.get(slot.key) is slot:
                del self._slots[slot.key]

    @staticmethod
    def _again(slot: _Slot, wanted: Content, fresh: bool) -> None:
        """A request failed: try again, with newer content if some came meanwhile."""
        if slot.wanted is None:
            slot.wanted = wanted
        slot.fresh = slot.fresh or fresh

    async def _deliver(self, slot: _Slot, content: Content, fresh: bool) -> None:
        old, shown = slot.message_id, slot.sent
        if slot.once is not None and old is not None:
            return  # a one-off message is never edited
        if old is not None and not fresh:
            try:
                await self._api("editMessageText", slot, content, message_id=old)
                slot.sent = content
                return
            except Forbidden:
                await self._blocked(slot.chat_id)
                return
            except TelegramError as exc:
                if tgerrors.is_not_modified(exc):
                    slot.sent = content
                    return
                if not tgerrors.is_gone(exc):
                    if tgerrors.is_transient(exc):
                        # it may yet be carried out, after the newer content that follows
                        slot.doubt = True
                        self._look_later(slot.chat_id, None)
                        raise
                    if isinstance(exc, RetryAfter | ChatMigrated):
                        raise
                    log.warning("chat %s: edit refused: %s", slot.chat_id, exc)
                    return
                old = None  # the message is gone: send it anew
        newest = self._sent.newest(slot.chat_id) if self._sent is not None else None
        try:
            message = await self._api("sendMessage", slot, content, thread_id=slot.thread_id)
        except Forbidden:
            await self._blocked(slot.chat_id)
            return
        except TelegramError as exc:
            if tgerrors.is_transient(exc):
                # it may have arrived all the same: its copy lies above what was known
                if not slot.unsure:
                    slot.unsure, slot.sweep_from = True, newest
                self._look_later(slot.chat_id, newest)
                raise
            if isinstance(exc, RetryAfter | ChatMigrated):
                raise
            if tgerrors.is_thread_gone(exc) and slot.thread_id is not None:
                self._again(slot, content, fresh)  # drawn anew in the general chat
                await self.topic_gone(slot.chat_id, slot.thread_id)
                return
            # a closed topic is the group's choice, not a fault: its messages stay edited
            level = logging.INFO if tgerrors.is_topic_closed(exc) else logging.WARNING
            log.log(level, "chat %s: message refused: %s", slot.chat_id, exc)
            return
        if not isinstance(message, dict):
            return
        slot.message_id = int(message["message_id"])
        slot.sent = content
        if slot.unsure:
            self._look_for_copies(slot.chat_id, slot.sweep_from, slot.message_id)
            slot.unsure, slot.sweep_from = False, None
        if old is not None:
            task = self._loop().create_task(
                self._remove(slot.chat_id, old, slot.moved_note, shown),
                name=f"remove {slot.chat_id}/{old}",
            )
            self._keep(task)
        if slot.on_sent is not None:
            try:
                await slot.on_sent(slot.message_id)
            except StoreUnavailable as exc:
                # Sent, but where it is cannot be kept (the database is away): whoever
                # draws the table next would not know this message, and its buttons would
                # stay live. It is taken back; the table's next drawing sends it anew.
                log.warning(
                    "chat %s: message %s taken back, its place not kept: %s",
                    slot.chat_id,
                    slot.message_id,
                    exc,
                )
                gone, slot.message_id, slot.sent = slot.message_id, None, None
                task = self._loop().create_task(
                    self._remove(slot.chat_id, gone, None, None),
                    name=f"remove {slot.chat_id}/{gone}",
                )
                self._keep(task)

    async def _aside(
        self, chat_id: int, method: str, params: dict[str, Any]
    ) -> TelegramError | None:
        """A call about a message that is no longer a slot's (deleting or stripping an old
        copy): paced at the lowest priority, tried again after a flood wait or a network
        failure (five tries). Telegram's refusal, or the last failure; None once done."""
        failed: TelegramError | None = None
        for failures in range(1, 6):
            await self._budget(chat_id, Priority.WATCH)
            try:
                await self._post(method, params, Priority.WATCH)
                return None
            except RetryAfter as exc:
                failed = exc  # its chat is paused by the pacer
            except TelegramError as exc:
                if not tgerrors.is_transient(exc):
                    return exc
                failed = exc
                await asyncio.sleep(self._delay(failures))
        return failed

    def _look_for_copies(self, chat_id: int, known: int | None, new: int) -> None:
        """A send got through (as ``new``) after one that may have arrived: take the buttons
        off what arrived between the newest message known before it and ``new``."""
        if known is None or self._sent is None:
            # nothing sent here since the start: ids below may be the process before's
            log.info("chat %s: a copy of message %s may be left with its buttons", chat_id, new)
            return
        task = self._loop().create_task(
            self._sweep(chat_id, known, new), name=f"sweep {chat_id}/{new}"
        )
        self._keep(task)

    def _look_later(self, chat_id: int, known: int | None) -> None:
        """A send or an edit in the chat failed in a way that it may still be carried
        out, even after the one that gets through (a slow server): a while after the
        chat's last such failure, look at its ids again for copies (from ``known``, the
        newest message known before a send; None: none) and draw again the messages
        whose edits failed so, whatever became of the slots that sent them."""
        due = self._loop().time() + self._late_after
        look = self._late_looks.get(chat_id)
        if look is not None:
            look.due = due
            if look.since is None or (known is not None and known < look.since):
                look.since = known  # the lowest known, from any of the failed sends
            return
        self._late_looks[chat_id] = _LateLook(known, due)
        task = self._loop().create_task(self._look_late(chat_id), name=f"late look {chat_id}")
        self._keep(task)

    async def _look_late(self, chat_id: int) -> None:
        """Once nothing in the chat has failed for a while and no send is under way: strip
        the copies that arrived late (see :meth:`_sweep` and :meth:`_probe_above`), and
        draw again the messages whose edits may have been carried out late."""
        loop = self._loop()
        look = self._late_looks[chat_id]
        while (wait := look.due - loop.time()) > 0:
            await asyncio.sleep(wait)
        del self._late_looks[chat_id]  # a send failing from now on asks for a look of its own
        sent = self._sent
        newest = None
        if sent is not None:
            await sent.settled(chat_id)
            newest = sent.newest(chat_id)
        if newest is not None:  # else nothing of this process's is known here
            if look.since is not None:
                await self._sweep(chat_id, look.since, newest + 1)
            await self._probe_above(chat_id, newest)
        for slot in list(self._slots.values()):
            if slot.chat_id == chat_id and slot.doubt:
                # an older edit carried out late would show now: the latest wins again
                slot.doubt = False
                if slot.wanted is None:
                    slot.wanted = slot.sent
                slot.sent = None
                self._start(slot)

    async def _probe_above(self, chat_id: int, newest: int) -> None:
        """Take the buttons off whatever lies above ``newest``, the newest message the bot
        knows in the chat, up to the first id not taken yet ("message to edit not found"):
        copies carried out after every send the bot heard of. Such a copy (a message of
        the bot's: a user's refuses the edit) is then deleted, so that the chat ends with
        what the bot keeps current. A send of the bot's own answered meanwhile may have
        gone too: its slot draws it again."""
        sent = self._sent
        assert sent is not None
        stripped = []
        for message_id in range(newest + 1, newest + 1 + LATE_PROBES):
            if sent.mine(chat_id, message_id):
                continue
            refused = await self._aside(
                chat_id,
                "editMessageReplyMarkup",
                {"chat_id": chat_id, "message_id": message_id, "reply_markup": _NO_KEYBOARD},
            )
            if refused is None:
                log.info("chat %s: a late copy (message %s) is taken away", chat_id, message_id)
                stripped.append(message_id)
                params = {"chat_id": chat_id, "message_id": message_id}
                await self._aside(chat_id, "deleteMessage", params)
            elif tgerrors.describe(refused) == tgerrors.EDIT_NOT_FOUND:
                break  # no message there yet: nothing above it either
        if not stripped:
            return
        await sent.settled(chat_id)
        for slot in list(self._slots.values()):
            if slot.chat_id == chat_id and slot.message_id in stripped:
                # its own message, sent while the ids were looked at: drawn anew
                if slot.wanted is None:
                    slot.wanted = slot.sent
                slot.sent = None
                slot.message_id = None
                self._start(slot)

    async def _sweep(self, chat_id: int, known: int, new: int) -> None:
        """Strip the ids above ``known`` and below ``new`` (at most :data:`SWEEP_MAX`) that
        are neither messages the bot was told it sent nor shown by a slot: copies of sends
        that timed out but arrived, or users' messages (whose edit Telegram refuses)."""
        sent = self._sent
        assert sent is not None
        await sent.settled(chat_id)  # sends under way now tell their ids first
        remembered = sent.known_above(chat_id)
        if remembered is None:
            return  # forgotten meanwhile: its own messages can no longer be told apart
        first = max(known, remembered) + 1
        shown = {s.message_id for s in self._slots.values() if s.chat_id == chat_id}
        for message_id in range(first, min(new, first + SWEEP_MAX)):
            if message_id in shown or sent.mine(chat_id, message_id):
                continue
            refused = await self._aside(
                chat_id,
                "editMessageReplyMarkup",
                {"chat_id": chat_id, "message_id": message_id, "reply_markup": _NO_KEYBOARD},
            )
            if refused is None:
                log.info("chat %s: a copy (message %s) lost its buttons", chat_id, message_id)
            else:
                log.debug("chat %s: message %s left as it is: %s", chat_id, message_id, refused)
        look = self._late_looks.get(chat_id)
        if look is not None and look.since is not None and look.since >= known:
            # the late look need not try these ids again
            look.since = max(look.since, new - 1)

    async def _remove(
        self, chat_id: int, message_id: int, note: str | None, shown: Content | None
    ) -> None:
        """Delete a message that moved to the bottom; if Telegram refuses (too old), take
        its buttons off and say where it went instead."""
        params = {"chat_id": chat_id, "message_id": message_id}
        refused = await self._aside(chat_id, "deleteMessage", params)
        if refused is None or tgerrors.is_gone(refused):
            return
        if not tgerrors.is_undeletable(refused):
            log.info("chat %s: old message %s kept: %s", chat_id, message_id, refused)
        text = None if shown is None else shown.text if note is None else f"{shown.text}\n\n{note}"
        await self._strip(chat_id, message_id, text)

    async def _strip(self, chat_id: int, message_id: int, text: str | None) -> None:
        """Leave a message without buttons (and with ``text``, if given)."""
        method = "editMessageReplyMarkup" if text is None else "editMessageText"
        params: dict[str, Any] = {
            "chat_id": chat_id,
            "message_id": message_id,
            "reply_markup": _NO_KEYBOARD,
        }
        if text is not None:
            params.update(text=text, parse_mode="HTML", link_preview_options=_NO_PREVIEW)
        refused = await self._aside(chat_id, method, params)
        if refused is not None:
            log.info("chat %s: message %s left as it is: %s", chat_id, message_id, refused)

    async def _api(
        self,
        method: str,
        slot: _Slot,
        content: Content,
        *,
        message_id: int | None = None,
        thread_id: int | None = None,
    ) -> Any:
        """Send or edit through the bot's request path (defaults, errors as PTB raises
        them) without building PTB objects: the keyboard goes as plain JSON and the
        returned message stays a dict. The typed methods would parse every returned
        message, keyboard and all, only for us to read its id; on a busy bot that parsing
        was a good part of the CPU spent per move. The chat's budget was spent already."""
        disabled = not self._no_disabled
        params = content.params(disabled=disabled)
        params["chat_id"] = slot.chat_id
        if message_id is not None:
            params["message_id"] = message_id
        if thread_id is not None:
            params["message_thread_id"] = thread_id
        if slot.reply_to is not None and message_id is None:
            # a command deleted before its answer (by a cleaner bot, an admin) would make
            # Telegram refuse the answer: it goes out unquoted instead
            params["reply_parameters"] = {
                "message_id": slot.reply_to,
                "allow_sending_without_reply": True,
            }
        try:
            return await self._post(method, params, slot.priority)
        except BadRequest as exc:
            # judged by what this request carried: several may be refused at once, and each
            # goes again, not only the one that was answered first
            if not (disabled and tgerrors.is_disabled_refused(exc)):
                raise
        if not self._no_disabled:
            self._no_disabled = True
            log.warning(
                "the Bot API server refuses disabled buttons (Bot API 10.3 and later): cards "
                "that cannot go are sent as ordinary buttons from now on"
            )
        params["reply_markup"] = content.params(disabled=False).get("reply_markup")
        return await self._post(method, params, slot.priority)

    async def _post(self, method: str, params: dict[str, Any], priority: Priority) -> Any:
        """One call whose chat's budget was spent already; a server that refuses live
        clocks gets the same text with plain ones, at once (a refused call costs no
        budget), and every later text too."""
        live = not self._plain_clocks
        if not live and "text" in params:
            params = {**params, "text": plain_clocks(params["text"])}
        try:
            with paced(priority, retry=False, prepaid=True):
                # only a send's message is read (its id)
                return await call(
                    self._bot,
                    method,
                    params,
                    read_timeout=self._timeout,
                    result=method.startswith("send"),
                )
        except BadRequest as exc:
            if not (live and tgerrors.is_clock_refused(exc)):
                raise
        if not self._plain_clocks:
            self._plain_clocks = True
            log.warning(
                "the Bot API server refuses live clocks (<tg-time>, Bot API 9.5 and later): "
                "clocks are sent as plain text from now on"
            )
        return await self._post(method, params, priority)

    # ------------------------------------------------------------------ chat changes

    async def migrate(self, old: int, new: int) -> None:
        """A group became a supergroup (Telegram said so in an update, or answered a
        request with the new id): the owner of its tables is told once, then its slots
        move there and are drawn anew at once."""
        if old == new:
            return
        self._moved[old] = new
        task = self._migrating.get(old)
        if task is None:
            task = self._migrating[old] = self._loop().create_task(
                self._tell_migrated(old, new), name=f"migrate {old}"
            )
        await asyncio.shield(task)

    async def _tell_migrated(self, old: int, new: int) -> None:
        log.info("chat %s is now %s: its messages follow", old, new)
        if self._on_migrated is not None:
            try:
                await self._on_migrated(old, new)
            except Exception:
                log.exception("chat %s: moving to %s failed", old, new)
        self.move_chat(old, new)

    def move_chat(self, old: int, new: int) -> None:
        """Point every slot of chat ``old`` at chat ``new`` (a supergroup has none of the
        old messages: each is sent anew there)."""
        self._moved[old] = new
        for slot in list(self._slots.values()):
            if slot.chat_id == old:
                slot.chat_id = new
                self._send_anew(slot)

    def _send_anew(self, slot: _Slot) -> None:
        """The slot's message is out of reach (another chat, a deleted topic): it shows
        what it last showed, or what it waits to show, in a new message outside any
        topic."""
        slot.message_id = None
        slot.thread_id = None
        slot.reply_to = None
        slot.unsure, slot.sweep_from = False, None
        if slot.wanted is None:
            slot.wanted = slot.sent
        slot.sent = None
        slot.fresh = False
        if slot.wanted is not None:
            self._start(slot)

    def _thread(self, chat_id: int, thread_id: int | None) -> int | None:
        """Where to send in a chat: outside any topic instead of in one that is gone."""
        if thread_id is not None and (chat_id, thread_id) in self._topics_gone:
            return None
        return thread_id

    async def topic_gone(self, chat_id: int, thread_id: int) -> None:
        """A forum topic is gone (Telegram refused a message there: "message thread not
        found"), and every message in it: the owner of its tables is told once, then its
        slots move to the group's general chat, for good, and are drawn there at once."""
        key = (chat_id, thread_id)
        task = self._topics_gone.get(key)
        if task is None:
            task = self._topics_gone[key] = self._loop().create_task(
                self._tell_topic_gone(chat_id, thread_id), name=f"topic gone {key}"
            )
        await asyncio.shield(task)

    async def _tell_topic_gone(self, chat_id: int, thread_id: int) -> None:
        log.info("chat %s: topic %s is gone: its messages move out of it", chat_id, thread_id)
        if self._on_topic_gone is not None:
            try:
                await self._on_topic_gone(chat_id, thread_id)
            except Exception:
                log.exception("chat %s: moving out of topic %s failed", chat_id, thread_id)
        for slot in list(self._slots.values()):
            if slot.chat_id == chat_id and slot.thread_id == thread_id:
                self._send_anew(slot)

    async def _blocked(self, chat_id: int) -> None:
        log.info("chat %s: the user blocked the bot or never started it", chat_id)
        if self._on_blocked is not None:
            await self._on_blocked(chat_id)
