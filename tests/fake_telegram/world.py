"""The state the fake server keeps: users, chats, messages, updates, calls, settings."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .guest import DEFAULT_GUEST_TIMEOUT, GuestQuery
from .inline import DEFAULT_INLINE_TIMEOUT, InlineAnswer, InlineQuery, new_inline_message_id
from .models import (
    CHANNEL,
    GROUP,
    LEFT,
    MEMBER,
    PRIVATE,
    SUPERGROUP,
    ApiCall,
    FakeChat,
    FakeMessage,
    FakeUser,
    Press,
    member_to_api,
)
from .updates import Notifier, UpdateQueue

#: What a test may pass where a chat is meant: the chat, or its id.
ChatRef = FakeChat | int
#: What a test may pass where a user is meant: the user, or his id.
UserRef = FakeUser | int


@dataclass
class WebhookConfig:
    """What setWebhook stored."""

    url: str
    secret_token: str | None = None
    max_connections: int = 40
    allowed_updates: list[str] | None = None
    ip_address: str | None = None
    last_error_date: int | None = None
    last_error_message: str | None = None
    delivered: int = 0


class World:
    """Everything the fake Telegram knows; shared by the Bot API and the simulation."""

    def __init__(self, bot: FakeUser, clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.clock = clock
        self.started_at = clock()
        self.notifier = Notifier()
        self.queue = UpdateQueue(notifier=self.notifier)
        self.users: dict[int, FakeUser] = {bot.id: bot}
        self.prepared: dict[str, tuple[int, dict[str, Any]]] = {}
        """savePreparedInlineMessage's results, by id: (user id, the inline result)."""
        self.chats: dict[int, FakeChat] = {}
        self.calls: list[ApiCall] = []
        #: Calls being handled now, long polls left out.
        self.inflight = 0
        self.queries: dict[str, Press] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        #: setMyDescription, setMyShortDescription, setMyName: (kind, language) -> value.
        self.bot_texts: dict[tuple[str, str], str] = {}
        self.webhook: WebhookConfig | None = None
        #: Photos Telegram keeps, by the file id it gave them (a file id sends one again).
        self.files: dict[str, bytes] = {}
        #: Telegram's group privacy mode: in groups where the bot is not an admin it gets
        #: only commands, replies to its messages and mentions of it.
        self.privacy_mode = True
        #: Seconds after which a callback query can no longer be answered.
        self.callback_ttl = 15.0
        #: Seconds after an eligible action (a callback query, a user's ephemeral command)
        #: within which any bot may answer it with an ephemeral message (Bot API,
        #: "Ephemeral messages and commands": "within 15 seconds of the incoming eligible
        #: action"). Measured on ``clock``.
        self.ephemeral_window = 15.0
        #: Seconds after which an ephemeral message disappears by itself ("They may
        #: disappear automatically after some time"); None: never by itself.
        self.ephemeral_ttl: float | None = None
        #: The Bot API version of a self-hosted telegram-bot-api server that is behind
        #: Telegram's own; None: Telegram's own server, which knows everything modelled.
        self.api_version: tuple[int, int] | None = None
        #: Inline mode (BotFather's /setinline): on, users may type ``@bot text`` in any
        #: chat; off, their apps send the bot nothing (getMe: supports_inline_queries).
        self.inline_mode = True
        #: The placeholder shown in the input field after ``@bot`` (BotFather); no Bot
        #: API method reads it.
        self.inline_placeholder: str | None = None
        #: Inline feedback (BotFather's /setinlinefeedback): the share of chosen results
        #: the bot is told of with a chosen_inline_result update (0: off, as by default;
        #: 1: every one; BotFather offers 1/10, 1/100, 1/1000 too).
        self.inline_feedback = 0.0
        #: Seconds within which the bot must answer an inline query (on ``clock``).
        self.inline_timeout = DEFAULT_INLINE_TIMEOUT
        #: Inline queries sent to the bot, by id.
        self.inline_queries: dict[str, InlineQuery] = {}
        #: Answers Telegram keeps (cache_time): (user id or None, query, offset) -> the
        #: answer and the ``clock`` time it expires.
        self.inline_cache: dict[tuple[int | None, str, str], tuple[InlineAnswer, float]] = {}
        #: Messages sent via the bot that carry an inline keyboard, by inline_message_id.
        self.inline_messages: dict[str, FakeMessage] = {}
        #: Guest mode (BotFather; getMe: supports_guest_queries): on, a user who mentions
        #: ``@bot`` in a chat the bot is not in makes a guest query (``guest.py``); off,
        #: as a new bot's is, the mention reaches nobody.
        self.guest_mode = False
        #: Seconds within which the bot must answer a guest query (on ``clock``).
        self.guest_timeout = DEFAULT_GUEST_TIMEOUT
        #: Guest queries sent to the bot, by guest_query_id.
        self.guest_queries: dict[str, GuestQuery] = {}
        self._next_guest_query = 6_300_000_000_000_000_011
        #: Private chats between two users (not the bot's): (lower id, higher id) -> chat.
        self.user_chats: dict[tuple[int, int], FakeChat] = {}
        self._feedback_draws = random.Random(26)
        self._next_inline_query = 7_100_000_000_000_000_003
        self._next_inline_message = 1
        self._next_user_chat_id = 8_800_000_000_001
        self._next_user_id = 7_000_000_001
        self._next_group_id = 4_100_000_001
        self._next_supergroup_id = 1_002_000_000_001
        self._next_query = 5_000_000_000_000_000_001
        self._serial = 0

    def knows(self, since: tuple[int, int]) -> bool:
        """Whether the server has what came with Bot API version ``since``."""
        return self.api_version is None or self.api_version >= since

    # ---- ids and time ------------------------------------------------------------

    def now(self) -> int:
        """Unix time for message dates."""
        return int(time.time())

    def elapsed(self) -> float:
        """Seconds since the server was made (the time of recorded calls)."""
        return self.clock() - self.started_at

    def new_user_id(self) -> int:
        """A fresh positive user id."""
        while self._next_user_id in self.users:
            self._next_user_id += 1
        uid = self._next_user_id
        self._next_user_id += 1
        return uid

    def new_group_id(self, supergroup: bool) -> int:
        """A fresh negative chat id (supergroups get the -100... form)."""
        if supergroup:
            cid = -self._next_supergroup_id
            self._next_supergroup_id += 1
        else:
            cid = -self._next_group_id
            self._next_group_id += 1
        return cid

    def new_serial(self) -> int:
        """The next number of the order in which messages were made."""
        self._serial += 1
        return self._serial

    def new_query_id(self) -> str:
        """A fresh callback query id."""
        qid = str(self._next_query)
        self._next_query += 7919
        return qid

    def new_inline_query_id(self) -> str:
        """A fresh inline query id."""
        qid = str(self._next_inline_query)
        self._next_inline_query += 104_729
        return qid

    def new_guest_query_id(self) -> str:
        """A fresh guest query id (a 64-bit integer's text, as telegram-bot-api writes it)."""
        qid = str(self._next_guest_query)
        self._next_guest_query += 130_363
        return qid

    def new_inline_message_id(self, owner: FakeUser) -> str:
        """A fresh inline_message_id for a message ``owner`` sent via the bot."""
        serial = self._next_inline_message
        self._next_inline_message += 1
        return new_inline_message_id(serial, owner.id)

    def feedback_drawn(self) -> bool:
        """Whether this chosen result is one the bot is told of (``inline_feedback``)."""
        share = self.inline_feedback
        return share >= 1 or (share > 0 and self._feedback_draws.random() < share)

    @staticmethod
    def chat_instance(chat: FakeChat) -> str:
        """CallbackQuery.chat_instance: "Global identifier, uniquely corresponding to the
        chat to which the message with the callback button was sent" (Bot API); the same
        for a chat's ordinary and inline messages, opaque to the bot."""
        return str(abs(chat.id) * 1_000_003 % 10**18)

    # ---- look-ups ----------------------------------------------------------------

    def find_chat(self, ref: object) -> FakeChat | None:
        """A chat by id or "@username" (None if unknown)."""
        if isinstance(ref, int):
            return self.chats.get(ref)
        if not isinstance(ref, str):
            return None
        if ref.startswith("@"):
            name = ref[1:].lower()
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == name and chat.type != PRIVATE:
                    return chat
            return None
        try:
            return self.chats.get(int(ref))
        except ValueError:
            return None

    def chat(self, ref: ChatRef) -> FakeChat:
        """A chat by object or id (KeyError if unknown); private chats between users too."""
        if isinstance(ref, FakeChat):
            return ref
        chat = self.chats.get(ref)
        if chat is None:
            chat = next((c for c in self.user_chats.values() if c.id == ref), None)
        if chat is None:
            raise KeyError(f"no chat {ref}")
        return chat

    def chat_id_named(self, raw: dict[str, Any]) -> Any:
        """The chat a call names: its chat_id, or the chat of its inline_message_id (for
        forced 429s and faults aimed at a chat)."""
        chat_id = raw.get("chat_id")
        if chat_id is None and isinstance(raw.get("inline_message_id"), str):
            message = self.inline_messages.get(raw["inline_message_id"])
            if message is not None:
                return message.chat.id
        return chat_id

    def user(self, ref: UserRef) -> FakeUser:
        """A user by object or id (KeyError if unknown)."""
        if isinstance(ref, FakeUser):
            return ref
        user = self.users.get(ref)
        if user is None:
            raise KeyError(f"no user {ref}")
        return user

    def private_chat(self, user: UserRef) -> FakeChat:
        """The private chat between a user and the bot."""
        return self.chat(self.user(user).id)

    # ---- making things -----------------------------------------------------------

    def add_user(self, user: FakeUser) -> FakeUser:
        """Register a user and the (not yet started) private chat with him."""
        if user.id in self.users:
            raise ValueError(f"user id {user.id} is taken")
        self.users[user.id] = user
        self.chats[user.id] = FakeChat(id=user.id, type=PRIVATE, user=user)
        self.notifier.notify()
        return user

    def add_group(
        self,
        title: str,
        *,
        supergroup: bool,
        forum: bool = False,
        username: str | None = None,
        chat_id: int | None = None,
    ) -> FakeChat:
        """Register an empty group or supergroup."""
        cid = chat_id if chat_id is not None else self.new_group_id(supergroup)
        if cid in self.chats:
            raise ValueError(f"chat id {cid} is taken")
        chat = FakeChat(
            id=cid,
            type=SUPERGROUP if supergroup else GROUP,
            title=title,
            username=username,
            is_forum=forum,
            bot_status=MEMBER,
        )
        self.chats[cid] = chat
        self.notifier.notify()
        return chat

    def user_chat(self, first: FakeUser, second: FakeUser) -> FakeChat:
        """The private chat between two users (``first`` twice: his Saved Messages), made
        on first use. It is not among ``chats``: the bot cannot name it."""
        key = (min(first.id, second.id), max(first.id, second.id))
        chat = self.user_chats.get(key)
        if chat is None or chat.deleted:
            chat = FakeChat(id=self._next_user_chat_id, type=PRIVATE, user=first, peer=second)
            self._next_user_chat_id += 1
            self.user_chats[key] = chat
            self.notifier.notify()
        return chat

    def add_channel(self, title: str, *, username: str | None = None) -> FakeChat:
        """Register a channel (without the bot: bots join channels only as admins)."""
        cid = self.new_group_id(supergroup=True)  # channels share the -100... ids
        chat = FakeChat(id=cid, type=CHANNEL, title=title, username=username, bot_status=LEFT)
        self.chats[cid] = chat
        self.notifier.notify()
        return chat

    def keep_file(self, data: bytes) -> str:
        """Keep an uploaded photo; its new file id."""
        file_id = f"AgACAgIAAxkBAAI{len(self.files) + 1:08d}"
        self.files[file_id] = data
        return file_id

    def add_message(
        self,
        chat: FakeChat,
        sender: FakeUser,
        *,
        text: str | None = None,
        parse_mode: str | None = None,
        plain_text: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        thread_id: int | None = None,
        reply_to: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> FakeMessage:
        """Append a message to a chat's history with the chat's next id."""
        message = FakeMessage(
            chat=chat,
            message_id=chat.next_message_id,
            sender=sender,
            date=self.now(),
            text=text,
            parse_mode=parse_mode,
            plain_text=plain_text if plain_text is not None else (text or ""),
            entities=list(entities or []),
            reply_markup=reply_markup,
            thread_id=thread_id,
            reply_to=reply_to,
            extra=dict(extra or {}),
            sent_at=self.clock(),
            serial=self.new_serial(),
        )
        chat.next_message_id += 1
        chat.messages[message.message_id] = message
        self.notifier.notify()
        return message

    # ---- ephemeral messages --------------------------------------------------------

    def new_ephemeral_id(self, chat: FakeChat, user: FakeUser) -> int:
        """The smallest ephemeral_message_id free in ``chat`` for ``user``: ids of
        messages deleted or expired on the server are given out again."""
        self.sweep_ephemeral()
        taken = {eid for uid, eid in chat.ephemeral if uid == user.id}
        eid = 1
        while eid in taken:
            eid += 1
        return eid

    def add_ephemeral(
        self,
        chat: FakeChat,
        sender: FakeUser,
        receiver: FakeUser,
        *,
        text: str,
        parse_mode: str | None = None,
        plain_text: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        thread_id: int | None = None,
        delivered: bool = True,
    ) -> FakeMessage:
        """A new ephemeral message between the bot and one user of ``chat`` (the bot's
        to ``receiver``, or a user's command to the bot), with the pair's smallest free
        ephemeral_message_id. It is kept apart from the chat's ordinary messages."""
        user = receiver if sender.is_bot else sender
        message = FakeMessage(
            chat=chat,
            message_id=0,
            sender=sender,
            date=self.now(),
            text=text,
            parse_mode=parse_mode,
            plain_text=plain_text if plain_text is not None else text,
            entities=list(entities or []),
            reply_markup=reply_markup,
            thread_id=thread_id,
            ephemeral_message_id=self.new_ephemeral_id(chat, user),
            receiver=receiver,
            delivered=delivered,
            sent_at=self.clock(),
            serial=self.new_serial(),
        )
        chat.ephemeral[(user.id, message.ephemeral_message_id or 0)] = message
        chat.ephemeral_log.append(message)
        if self.ephemeral_ttl is not None:
            # wake waiters when it expires (expiry itself is applied lazily)
            asyncio.get_running_loop().call_later(self.ephemeral_ttl, self.notifier.notify)
        self.notifier.notify()
        return message

    def find_ephemeral(self, chat: FakeChat, user_id: int, eid: int) -> FakeMessage | None:
        """The ephemeral message ``eid`` between the bot and ``user_id`` that the server
        still knows (not deleted, not expired on the server), or None."""
        self.sweep_ephemeral()
        return chat.ephemeral.get((user_id, eid))

    def forget_ephemeral(self, message: FakeMessage) -> None:
        """The server forgets an ephemeral message: its id is free again."""
        user = message.receiver if message.from_bot else message.sender
        if user is None or message.ephemeral_message_id is None:
            return
        key = (user.id, message.ephemeral_message_id)
        if message.chat.ephemeral.get(key) is message:
            del message.chat.ephemeral[key]
        self.notifier.notify()

    def sweep_ephemeral(self) -> None:
        """Expire the ephemeral messages older than ``ephemeral_ttl`` (server and client)."""
        ttl = self.ephemeral_ttl
        if ttl is None:
            return
        now = self.clock()
        for chat in self.chats.values():
            for message in [m for m in chat.ephemeral.values() if now - m.sent_at >= ttl]:
                message.expired = True
                self.forget_ephemeral(message)

    def emit(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue an update for the bot."""
        return self.queue.push(kind, payload)

    def my_chat_member(self, chat: FakeChat, actor: FakeUser, old: str, new: str) -> dict[str, Any]:
        """Queue a my_chat_member update (the bot's status in ``chat`` changed)."""
        return self.emit(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": actor.to_api(),
                "date": self.now(),
                "old_chat_member": member_to_api(self.bot, old),
                "new_chat_member": member_to_api(self.bot, new),
            },
        )
