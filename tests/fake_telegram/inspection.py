"""What tests look at: messages per chat, recorded calls, and waiting for conditions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from .api import scope_key
from .guest import GuestQuery
from .inline import InlineQuery
from .models import ApiCall, FakeChat, FakeMessage, FakeUser
from .world import ChatRef, UserRef, World

T = TypeVar("T")

#: Pass as ``thread_id`` to select messages outside any forum topic.
GENERAL_TOPIC = 0

_POLLING = frozenset({"getupdates"})


class Inspection:
    """Read-only views of the state, and event-driven waits."""

    world: World

    # ---- chats and messages ------------------------------------------------------

    def chat(self, chat: ChatRef) -> FakeChat:
        """A chat by object or id."""
        return self.world.chat(chat)

    def user(self, user: UserRef) -> FakeUser:
        """A user by object or id."""
        return self.world.user(user)

    def private_chat(self, user: UserRef) -> FakeChat:
        """The private chat of a user with the bot."""
        return self.world.private_chat(user)

    @property
    def chats(self) -> list[FakeChat]:
        """Every chat."""
        return list(self.world.chats.values())

    def message(self, chat: ChatRef, message_id: int) -> FakeMessage:
        """One message (deleted ones too) by id; KeyError if it never existed."""
        return self.world.chat(chat).messages[message_id]

    def messages(
        self,
        chat: ChatRef,
        *,
        thread_id: int | None = None,
        from_bot: bool | None = None,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """Messages of a chat, oldest first (``thread_id=GENERAL_TOPIC``: outside topics)."""
        result = []
        for message in self.world.chat(chat).messages.values():
            if message.deleted and not include_deleted:
                continue
            if from_bot is not None and message.from_bot != from_bot:
                continue
            if thread_id is not None and (message.thread_id or GENERAL_TOPIC) != thread_id:
                continue
            result.append(message)
        return result

    def bot_messages(self, chat: ChatRef, *, thread_id: int | None = None) -> list[FakeMessage]:
        """The bot's live messages in a chat, oldest first."""
        return self.messages(chat, thread_id=thread_id, from_bot=True)

    def last_message(
        self, chat: ChatRef, *, thread_id: int | None = None, from_bot: bool | None = True
    ) -> FakeMessage | None:
        """The newest live message (by default the bot's), or None."""
        found = self.messages(chat, thread_id=thread_id, from_bot=from_bot)
        return found[-1] if found else None

    # ---- ephemeral messages ------------------------------------------------------

    def _party(self, message: FakeMessage) -> FakeUser | None:
        """The user an ephemeral message is between the bot and."""
        return message.receiver if message.from_bot else message.sender

    def ephemeral_messages(
        self,
        chat: ChatRef,
        user: UserRef,
        *,
        from_bot: bool | None = True,
        thread_id: int | None = None,
    ) -> list[FakeMessage]:
        """The ephemeral messages ``user`` sees in ``chat`` now, oldest first: the bot's
        to him (``from_bot=None``: his own ephemeral commands too; False: those alone)
        that reached him and were not deleted and did not expire. They are in no other
        member's view and not in ``messages()``/``bot_messages()``."""
        self.world.sweep_ephemeral()
        person = self.world.user(user)
        return [
            message
            for message in self.world.chat(chat).ephemeral_log
            if message.visible
            and self._party(message) is person
            and (from_bot is None or message.from_bot == from_bot)
            and (thread_id is None or (message.thread_id or GENERAL_TOPIC) == thread_id)
        ]

    def last_ephemeral(
        self, chat: ChatRef, user: UserRef, *, from_bot: bool | None = True
    ) -> FakeMessage | None:
        """The newest ephemeral message ``user`` sees in ``chat`` (by default the bot's)."""
        found = self.ephemeral_messages(chat, user, from_bot=from_bot)
        return found[-1] if found else None

    def all_ephemeral(self, chat: ChatRef, user: UserRef | None = None) -> list[FakeMessage]:
        """Every ephemeral message of ``chat`` (between the bot and ``user``, if given),
        oldest first, whatever became of it: undelivered (``delivered``), ``deleted`` and
        ``expired`` ones too, and the users' ephemeral commands."""
        self.world.sweep_ephemeral()
        person = self.world.user(user) if user is not None else None
        return [
            message
            for message in self.world.chat(chat).ephemeral_log
            if person is None or self._party(message) is person
        ]

    def seen_by(self, chat: ChatRef, user: UserRef) -> list[FakeMessage]:
        """The chat as ``user`` sees it, oldest first: its live messages, each group
        message replaced for him by an ephemeral one (``replace_callback_query_message``)
        shown as that one, and the ephemeral messages between him and the bot."""
        place = self.world.chat(chat)
        person = self.world.user(user)
        mine = self.ephemeral_messages(place, person, from_bot=None)
        replaced = {m.replaces for m in mine if m.replaces is not None}
        ordinary = [m for m in place.live_messages() if m.message_id not in replaced]
        return sorted(ordinary + mine, key=lambda m: m.serial)

    # ---- inline mode -------------------------------------------------------------

    def inline_messages(
        self, chat: ChatRef | None = None, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages users sent via the bot (``choose_inline_result``), in ``chat`` or in
        every chat (private chats between users too), oldest first."""
        places = (
            [self.world.chat(chat)]
            if chat is not None
            else [*self.world.chats.values(), *self.world.user_chats.values()]
        )
        found = [
            message
            for place in places
            for message in place.messages.values()
            if message.via_bot is not None and (include_deleted or not message.deleted)
        ]
        return sorted(found, key=lambda m: m.serial)

    def inline_message(self, inline_message_id: str) -> FakeMessage:
        """The message an inline_message_id names (deleted ones too); KeyError if none."""
        return self.world.inline_messages[inline_message_id]

    @property
    def inline_queries(self) -> list[InlineQuery]:
        """Every inline query sent to the bot, oldest first (not those a cache answered)."""
        return list(self.world.inline_queries.values())

    @property
    def guest_queries(self) -> list[GuestQuery]:
        """Every guest query sent to the bot, oldest first."""
        return list(self.world.guest_queries.values())

    def is_online(self, user: UserRef) -> bool:
        """Whether the user's app is connected (``set_online``)."""
        return self.world.user(user).online

    def pinned(self, chat: ChatRef) -> list[int]:
        """Ids of pinned messages, most recently pinned last."""
        return list(self.world.chat(chat).pinned)

    # ---- calls and updates -------------------------------------------------------

    @property
    def calls(self) -> list[ApiCall]:
        """Every Bot API call so far, in arrival order (getUpdates included)."""
        return list(self.world.calls)

    def calls_to(self, *methods: str, include_pending: bool = False) -> list[ApiCall]:
        """Finished calls of the given methods (any case); all but getUpdates if none."""
        wanted = {m.lower() for m in methods}
        return [
            call
            for call in self.world.calls
            if (include_pending or not call.pending)
            and (call.method.lower() in wanted if wanted else call.method.lower() not in _POLLING)
        ]

    @property
    def rate_limited(self) -> list[ApiCall]:
        """Every call answered with 429 (flood control or forced)."""
        return [call for call in self.world.calls if call.error_code == 429]

    @property
    def faulted(self) -> list[ApiCall]:
        """Every call that met a network fault (timeout, reset or gateway error)."""
        return [call for call in self.world.calls if call.fault is not None]

    @property
    def failed_calls(self) -> list[ApiCall]:
        """Every finished call that got an error (getUpdates conflicts included)."""
        return [c for c in self.world.calls if not c.pending and not c.ok]

    def overlapping_polls(self) -> list[tuple[ApiCall, ApiCall]]:
        """Pairs of getUpdates calls that came in on different ports (``add_address``: one
        bot process each) and were both under way at one moment: two processes polling at
        once. Telegram lets one long poll wait per token and ends the older one with 409
        (see ``BotApi._get_updates``); one that returns at once may meet a waiting one."""
        polls = sorted(
            (c for c in self.world.calls if c.method.lower() in _POLLING), key=lambda c: c.time
        )
        found = []
        for i, first in enumerate(polls):
            end = first.ended if first.ended is not None else float("inf")
            for later in polls[i + 1 :]:
                if later.time >= end:
                    break
                if later.port != first.port:
                    found.append((first, later))
        return found

    @property
    def updates(self) -> list[dict[str, Any]]:
        """Every update ever queued for the bot."""
        return list(self.world.queue.log)

    @property
    def pending_updates(self) -> int:
        """Updates not yet confirmed by the bot."""
        return len(self.world.queue.pending)

    def confirmed(self, update_id: int) -> bool:
        """Whether the bot has confirmed the update (Telegram would not send it again)."""
        return all(u["update_id"] != update_id for u in self.world.queue.pending)

    def my_commands(
        self, scope: dict[str, Any] | None = None, language_code: str = ""
    ) -> list[dict[str, Any]]:
        """The commands the bot set for a scope (default scope) and language."""
        key = scope_key(scope or {"type": "default"})
        return list(self.world.commands.get((key, language_code), []))

    # ---- waiting -----------------------------------------------------------------

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, *, what: str | None = None
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-checked whenever the state changes (an API call, an update), not by sleeping.
        TimeoutError names ``what`` and the last calls, to help reading a failure.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        notifier = self.world.notifier
        while True:
            event = notifier.current()
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = [
                    f"{c.method}({c.params.get('chat_id', '')}) -> "
                    + ("ok" if c.ok else f"{c.error_code} {c.description}")
                    for c in self.calls_to()[-8:]
                ]
                raise TimeoutError(
                    f"{what or getattr(predicate, '__name__', 'condition')} not met within "
                    f"{timeout}s; last calls: {recent}"
                )
            await notifier.wait(event, remaining)

    async def wait_for_message(
        self,
        chat: ChatRef,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        thread_id: int | None = None,
        after: FakeMessage | int | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The newest live bot message in ``chat`` (newer than ``after``) matching ``predicate``."""
        floor = after.message_id if isinstance(after, FakeMessage) else (after or 0)

        def find() -> FakeMessage | None:
            for message in reversed(self.bot_messages(chat, thread_id=thread_id)):
                if message.message_id > floor and (predicate is None or predicate(message)):
                    return message
            return None

        return await self.wait_for(find, timeout, what=f"a bot message in chat {chat!r}")

    async def wait_for_ephemeral(
        self,
        chat: ChatRef,
        user: UserRef,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        after: FakeMessage | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The newest ephemeral message of the bot's that ``user`` sees in ``chat``, sent
        after ``after`` (ids are reused, so it is told by order of sending), matching
        ``predicate``."""
        floor = after.serial if after is not None else 0
        person = self.world.user(user)

        def find() -> FakeMessage | None:
            for message in reversed(self.ephemeral_messages(chat, person)):
                if message.serial > floor and (predicate is None or predicate(message)):
                    return message
            return None

        return await self.wait_for(
            find, timeout, what=f"an ephemeral message to {person.first_name} in chat {chat!r}"
        )

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[ApiCall], object] | None = None,
        *,
        since: int = 0,
        timeout: float = 5.0,
    ) -> ApiCall:
        """The first finished call of ``method`` at index >= ``since`` matching ``predicate``."""

        def find() -> ApiCall | None:
            for call in self.world.calls[since:]:
                if (
                    not call.pending
                    and call.method.lower() == method.lower()
                    and (predicate is None or predicate(call))
                ):
                    return call
            return None

        return await self.wait_for(find, timeout, what=f"a {method} call")

    def busy(self) -> bool:
        """Updates wait for the bot, or a call (other than a long poll) is in progress."""
        return bool(self.world.queue.pending) or self.world.inflight > 0

    async def settle(self, quiet: float = 0.05, timeout: float = 5.0) -> None:
        """Wait until every update was fetched and nothing happened for ``quiet`` seconds.

        A heuristic for "the bot is done reacting": a bot that thinks longer than
        ``quiet`` without calling the API is not waited for; prefer wait_for().
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        notifier = self.world.notifier
        while True:
            event = notifier.current()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"the bot did not settle within {timeout}s")
            if self.busy():
                await notifier.wait(event, remaining)
                continue
            if not await notifier.wait(event, min(quiet, remaining)):
                return
