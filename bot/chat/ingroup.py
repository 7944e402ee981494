"""Hands in the group: each player's hand as an ephemeral message in the table's group,
seen by him alone (Bot API 10.2 and 10.3, "Ephemeral messages and commands").

python-telegram-bot 22.8 speaks Bot API 10.0, so the calls go as raw requests through the
bot's request path (its defaults, its errors, the pacer) with the Bot API's own names:

* ``sendMessage`` with ``ephemeral_message_parameters`` (``receiver_user_id``,
  ``callback_query_id``) or ``reply_parameters.ephemeral_message_id``: any bot may send one
  only **within 15 seconds** of an eligible action of that user — his callback query, or
  his incoming ephemeral message or command — and a bot that is a chat **administrator**
  to any member at any time. The answer is a Message whose ``message_id`` is 0 and whose
  ``ephemeral_message_id`` names it (an id that may be used again once the message is
  gone);
* ``editEphemeralMessageText`` (at most 1024 characters: tdlib/telegram-bot-api#881, not
  the 4096 the page says), ``deleteEphemeralMessage``; ``editMessageText`` and
  ``deleteMessage`` never reach one (tdesktop#31196).

Delivery is not guaranteed and such messages "may disappear automatically after some time,
or if the app is restarted": nothing here may depend on one arriving or lasting. So a hand
is a slot like the chat's (:mod:`bot.transport.sender`): it shows the latest content, coalesced, and
each player's press on "My cards" or on the hand itself is a fresh eligible action that
lets a hand whose message is gone be sent anew. Without one (and without administrator
rights) a hand whose edit finds no message waits, doing nothing wrong, until the player's
next press.

Rate limits of these calls are not documented. Each (group, receiver) pair is paced like a
private chat (about one a second); a 429 drawn by one of them is taken to mean that the
group's ephemeral messages share the group's budget, and from then on they queue behind it
(twenty a minute), coalesced, so that every hand still converges and no 429 follows.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final

from telegram import Bot
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from bot.transport import tgerrors
from bot.transport.pacing import Pacer, Priority, paced
from bot.transport.request import call
from bot.transport.sender import Content
from bot.transport.tasks import cancel_all, settle

__all__ = ["EPHEMERAL_WINDOW", "InGroupHands"]

log = logging.getLogger(__name__)

EPHEMERAL_WINDOW: Final = 15.0
"""Seconds after a user's eligible action in which a bot may send him an ephemeral
message (Bot API, "Ephemeral messages and commands")."""
MARGIN: Final = 1.5
"""An eligible action is used only while this much of its window is left: the request
takes time to reach Telegram."""


@dataclass(slots=True)
class _Hand:
    key: Hashable
    chat_id: int
    user_id: int
    thread_id: int | None = None
    ephemeral_id: int | None = None
    sent: Content | None = None
    wanted: Content | None = None
    new: bool = False
    """Send the next content as a new message (and delete the old one)."""
    query: str | None = None
    """The player's last callback query in this group, and when it came."""
    query_at: float = 0.0
    command: int | None = None
    """The player's last ephemeral command here (its ephemeral id), and when it came."""
    command_at: float = 0.0
    priority: Priority = Priority.OWN
    worker: asyncio.Task[None] | None = None
    waiting: bool = False
    """Its message is gone and no eligible action allows a new one: it waits for a press."""
    retired: bool = False
    """Kept only until it shows what it was last asked to (a finished table's hand)."""


class InGroupHands:
    """Keeps every in-group hand showing its latest wanted content."""

    def __init__(
        self,
        bot: Bot,
        *,
        is_admin: Callable[[int], Awaitable[bool]],
        on_not_admin: Callable[[int], None] | None = None,
        timeout: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        backoff: tuple[float, float] = (0.25, 10.0),
    ) -> None:
        self._bot = bot
        limiter = getattr(bot, "rate_limiter", None)
        self._pacer: Pacer | None = limiter if isinstance(limiter, Pacer) else None
        self._is_admin = is_admin
        self._on_not_admin = on_not_admin
        self._timeout = timeout
        self._clock = clock
        self._backoff = backoff
        self._hands: dict[Hashable, _Hand] = {}
        self._cleanups: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ the interface

    def _hand(self, key: Hashable, chat_id: int, user_id: int) -> _Hand:
        hand = self._hands.get(key)
        if hand is None or hand.chat_id != chat_id or hand.user_id != user_id:
            hand = self._hands[key] = _Hand(key, chat_id, user_id)
        return hand

    def pressed(
        self,
        key: Hashable,
        chat_id: int,
        user_id: int,
        query_id: str,
        *,
        ephemeral_id: int | None = None,
    ) -> None:
        """The player pressed a button in the group (``ephemeral_id``: one of his in-group
        hand's, which then is the message to edit): for 15 s his hand may be sent anew."""
        hand = self._hand(key, chat_id, user_id)
        hand.query, hand.query_at = query_id, self._clock()
        if ephemeral_id is not None and ephemeral_id != hand.ephemeral_id:
            if hand.ephemeral_id is not None:
                self._delete(hand.chat_id, hand.user_id, hand.ephemeral_id)
            hand.ephemeral_id, hand.sent = ephemeral_id, None
        hand.waiting = False  # what waited for a press goes with the redraw that follows

    def commanded(self, key: Hashable, chat_id: int, user_id: int, ephemeral_id: int) -> None:
        """The player sent an ephemeral command in the group: the answer may quote it."""
        hand = self._hand(key, chat_id, user_id)
        hand.command, hand.command_at = ephemeral_id, self._clock()
        hand.waiting = False

    def show(
        self,
        key: Hashable,
        chat_id: int,
        user_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        new: bool = False,
        priority: Priority = Priority.OWN,
    ) -> None:
        """Make hand ``key`` show ``content``: edit its message, or send one where an
        eligible action (or administrator rights) allows (in the forum topic
        ``thread_id``). ``new`` sends a new message at the bottom and deletes the old one."""
        hand = self._hand(key, chat_id, user_id)
        hand.thread_id = thread_id
        hand.retired = False
        hand.wanted = content
        hand.new = hand.new or new
        hand.priority = priority
        self._start(hand)

    async def notice(
        self,
        chat_id: int,
        user_id: int,
        content: Content,
        *,
        command_id: int | None = None,
        query_id: str | None = None,
        thread_id: int | None = None,
    ) -> bool:
        """One ephemeral message, sent once: an answer to the player's ephemeral command
        (``command_id``: quoted) or press (``query_id``) that only he may read. Whether it
        went (a refusal, or no eligible action and no rights, sends nothing)."""
        if query_id is None and command_id is None and not await self._is_admin(chat_id):
            return False
        params = _send_params(chat_id, user_id, thread_id, content, query_id, command_id)
        if self._pacer is not None:
            await self._pacer.acquire(self._pacer.ephemeral_budget(chat_id, user_id), Priority.OWN)
        try:
            await self._post("sendMessage", params, Priority.OWN)
        except TelegramError as exc:
            log.info("chat %s: ephemeral notice to %s not sent: %s", chat_id, user_id, exc)
            return False
        return True

    def shown(self, key: Hashable) -> bool:
        """Whether the hand has a message in the group (as far as the bot knows: it may
        have expired on the player's side)."""
        hand = self._hands.get(key)
        return hand is not None and (hand.ephemeral_id is not None or hand.worker is not None)

    def tracked(self, key: Hashable) -> bool:
        """Whether the player has asked for this hand in the group."""
        return key in self._hands

    def hide(self, key: Hashable) -> None:
        """Take the hand out of the group: its message is deleted, and it is kept no more."""
        hand = self._hands.pop(key, None)
        if hand is None:
            return
        hand.wanted = None
        if hand.ephemeral_id is not None:
            self._delete(hand.chat_id, hand.user_id, hand.ephemeral_id)

    def retire(self, key: Hashable) -> None:
        """Stop keeping a hand once it shows what it was last asked to (a finished table's:
        its players press My cards again at the next game), so memory does not grow with
        every game played."""
        hand = self._hands.get(key)
        if hand is None:
            return
        hand.retired = True
        if (hand.worker is None or hand.worker.done()) and (hand.wanted is None or hand.waiting):
            del self._hands[key]

    def forget(self, key: Hashable) -> None:
        """Stop keeping a hand (its message stays as it is)."""
        hand = self._hands.pop(key, None)
        if hand is not None:
            hand.wanted = None

    def shares_group_budget(self, chat_id: int) -> bool:
        """Whether this group's ephemeral messages were found to share its budget."""
        return self._pacer is not None and self._pacer.ephemeral_shared(chat_id)

    def _busy(self) -> list[asyncio.Task[None]]:
        workers = [h.worker for h in self._hands.values() if h.worker is not None]
        return [*workers, *self._cleanups]

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every hand shows its latest content (for shutdown and tests)."""
        await settle(self._busy, timeout)

    async def close(self) -> None:
        """Finish what is wanted (briefly), then stop."""
        await self.flush(timeout=5.0)
        self._closed = True
        await cancel_all(self._busy())

    # ------------------------------------------------------------------ the worker

    def _start(self, hand: _Hand) -> None:
        if not self._closed and (hand.worker is None or hand.worker.done()):
            hand.worker = asyncio.get_running_loop().create_task(
                self._run(hand), name=f"in-group hand {hand.key}"
            )

    def _delay(self, failures: int) -> float:
        base, cap = self._backoff
        return float(min(cap, base * 2.0 ** (failures - 1)))

    async def _run(self, hand: _Hand) -> None:
        failures = 0
        try:
            while hand.wanted is not None and self._hands.get(hand.key) is hand:
                if hand.wanted == hand.sent and not hand.new:
                    hand.wanted = None
                    break
                if (hand.ephemeral_id is None or hand.new) and await self._grant(hand) is None:
                    if hand.ephemeral_id is None:
                        hand.waiting = True  # kept: the next press sends it
                        break
                    hand.new = False  # too late for a new message: the one he has is edited
                if self._pacer is not None:
                    budget = self._pacer.ephemeral_budget(hand.chat_id, hand.user_id)
                    await self._pacer.acquire(budget, hand.priority)
                wanted, new = hand.wanted, hand.new
                if wanted is None or self._hands.get(hand.key) is not hand:
                    break
                hand.wanted, hand.new = None, False
                try:
                    await self._deliver(hand, wanted, new)
                    failures = 0
                except RetryAfter:
                    # the pacer paused the pair (and, from now on, paces the group's
                    # ephemeral messages with the group): the newest content waits
                    self._again(hand, wanted, new)
                except TelegramError as exc:
                    if not tgerrors.is_transient(exc):
                        log.info(
                            "chat %s: in-group hand of %s refused: %s",
                            hand.chat_id,
                            hand.user_id,
                            exc,
                        )
                        continue
                    self._again(hand, wanted, new)
                    failures += 1
                    await asyncio.sleep(self._delay(failures))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("in-group hand %s failed", hand.key)
        finally:
            idle = hand.wanted is None or hand.waiting
            if hand.retired and idle and self._hands.get(hand.key) is hand:
                del self._hands[hand.key]

    @staticmethod
    def _again(hand: _Hand, wanted: Content, new: bool) -> None:
        if hand.wanted is None:
            hand.wanted = wanted
        hand.new = hand.new or new

    async def _grant(self, hand: _Hand) -> tuple[str | None, int | None] | None:
        """What lets a new ephemeral message go to the player now: his press still fresh
        (its query id, None), or his ephemeral command (None, its id), or the bot's rights
        (None, None); None if nothing does."""
        now = self._clock()
        if hand.query is not None and now - hand.query_at < EPHEMERAL_WINDOW - MARGIN:
            return hand.query, None
        if hand.command is not None and now - hand.command_at < EPHEMERAL_WINDOW - MARGIN:
            return None, hand.command
        return (None, None) if await self._is_admin(hand.chat_id) else None

    async def _deliver(self, hand: _Hand, content: Content, new: bool) -> None:
        if hand.ephemeral_id is not None and not new:
            params = self._params(hand, content)
            params["ephemeral_message_id"] = hand.ephemeral_id
            try:
                await self._post("editEphemeralMessageText", params, hand.priority)
                hand.sent = content
                return
            except BadRequest as exc:
                if tgerrors.is_not_modified(exc):
                    hand.sent = content
                    return
                if not tgerrors.is_gone(exc):
                    raise
            # gone (expired, deleted, never delivered): a new one, if the player may get it
            hand.ephemeral_id, hand.sent = None, None
        grant = await self._grant(hand)
        if grant is None:
            # his press is too old by now (the budget kept it waiting): no request that
            # Telegram would refuse; the message he has is edited, or, if none, the hand
            # waits for his next press
            if hand.ephemeral_id is not None:
                hand.wanted = hand.wanted or content
                return
            hand.wanted, hand.waiting = content, True
            return
        old = hand.ephemeral_id
        params = _send_params(hand.chat_id, hand.user_id, hand.thread_id, content, *grant)
        try:
            message = await self._post("sendMessage", params, hand.priority)
        except (BadRequest, Forbidden) as exc:
            if tgerrors.is_transient(exc):
                raise
            # not (or no longer) allowed: the press was older than it seemed, the bot lost
            # its rights, he left... the hand waits for his next press
            log.info("chat %s: no ephemeral message to %s: %s", hand.chat_id, hand.user_id, exc)
            hand.query = hand.command = None
            self._admin_lost(hand.chat_id, exc)
            hand.wanted, hand.waiting = content, True
            return
        found = message.get("ephemeral_message_id") if isinstance(message, dict) else None
        if not isinstance(found, int):
            log.warning("chat %s: an ephemeral send came back without its id", hand.chat_id)
            return
        hand.ephemeral_id, hand.sent = found, content
        if old is not None and old != found:
            self._delete(hand.chat_id, hand.user_id, old)

    def _admin_lost(self, chat_id: int, exc: TelegramError) -> None:
        """A send refused as if the bot were no administrator: ask again next time."""
        if "not_admin" in tgerrors.describe(exc) and self._on_not_admin is not None:
            self._on_not_admin(chat_id)

    def _params(self, hand: _Hand, content: Content) -> dict[str, Any]:
        params = content.params()
        params["chat_id"] = hand.chat_id
        params["receiver_user_id"] = hand.user_id
        if "reply_markup" not in params:
            params["reply_markup"] = {"inline_keyboard": []}
        return params

    def _delete(self, chat_id: int, user_id: int, ephemeral_id: int) -> None:
        """Delete an old in-group hand (a newer one shows below), once, quietly."""
        params = {
            "chat_id": chat_id,
            "receiver_user_id": user_id,
            "ephemeral_message_id": ephemeral_id,
        }

        async def delete() -> None:
            if self._pacer is not None:
                budget = self._pacer.ephemeral_budget(chat_id, user_id)
                await self._pacer.acquire(budget, Priority.WATCH)
            try:
                await self._post("deleteEphemeralMessage", params, Priority.WATCH)
            except TelegramError as exc:
                log.debug("chat %s: old in-group hand %s left: %s", chat_id, ephemeral_id, exc)

        task = asyncio.get_running_loop().create_task(
            delete(), name=f"delete {chat_id}/e{ephemeral_id}"
        )
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def _post(self, method: str, params: dict[str, Any], priority: Priority) -> Any:
        """One call whose budget was spent already, through the bot's request path."""
        with paced(priority, retry=False, prepaid=True):
            # only a send's message is read (its id)
            return await call(
                self._bot,
                method,
                params,
                read_timeout=self._timeout,
                result=method.startswith("send"),
            )


def _send_params(
    chat_id: int,
    user_id: int,
    thread_id: int | None,
    content: Content,
    query_id: str | None,
    command_id: int | None,
) -> dict[str, Any]:
    """``sendMessage``'s parameters for an ephemeral message to ``user_id``, made eligible
    by his press (``query_id``) or quoting his ephemeral command (``command_id``); with
    neither, by the bot's administrator rights."""
    params = content.params()
    params["chat_id"] = chat_id
    if thread_id is not None:
        params["message_thread_id"] = thread_id
    ephemeral: dict[str, Any] = {"receiver_user_id": user_id}
    if query_id is not None:
        ephemeral["callback_query_id"] = query_id
    elif command_id is not None:
        params["reply_parameters"] = {"ephemeral_message_id": command_id}
    params["ephemeral_message_parameters"] = ephemeral
    return params
