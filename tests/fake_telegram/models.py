"""The simulated world: users, chats, messages, recorded calls and button presses."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .keyboards import Button, inline_buttons, select_button

PRIVATE = "private"
GROUP = "group"
SUPERGROUP = "supergroup"
CHANNEL = "channel"

#: Chat member statuses, as in the Bot API.
CREATOR = "creator"
ADMINISTRATOR = "administrator"
MEMBER = "member"
LEFT = "left"
KICKED = "kicked"
PRESENT_STATUSES = frozenset({CREATOR, ADMINISTRATOR, MEMBER})


@dataclass(eq=False)
class FakeUser:
    """A Telegram user (or the bot itself) and how he stands with the bot."""

    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    #: He has a private chat with the bot (pressed Start).
    started: bool = False
    #: He blocked the bot.
    blocked: bool = False
    #: His app is connected: ephemeral messages sent while he is offline never reach him
    #: (``FakeTelegramServer.set_online``).
    online: bool = True

    @property
    def full_name(self) -> str:
        """First and last name."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> dict[str, Any]:
        """The Bot API User object."""
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


def member_to_api(user: FakeUser, status: str) -> dict[str, Any]:
    """The Bot API ChatMember object for ``user`` with ``status``."""
    data: dict[str, Any] = {"status": status, "user": user.to_api()}
    if status == CREATOR:
        data["is_anonymous"] = False
    elif status == ADMINISTRATOR:
        data.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
            can_manage_topics=True,
        )
    elif status == KICKED:
        data["until_date"] = 0
    return data


@dataclass(frozen=True)
class MessageRevision:
    """A past state of an edited message."""

    text: str | None
    parse_mode: str | None
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None
    time: float


@dataclass(eq=False)
class FakeMessage:
    """The current state of one message (mutated in place by edits and deletion)."""

    chat: FakeChat = field(repr=False)
    message_id: int
    sender: FakeUser = field(repr=False)
    date: int
    #: The text as sent (HTML tags kept); None for service messages.
    text: str | None = None
    parse_mode: str | None = None
    #: The text a user sees (after parsing and trimming); "" for service messages.
    plain_text: str = ""
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    thread_id: int | None = None
    reply_to: int | None = None
    deleted: bool = False
    edit_count: int = 0
    edit_date: int | None = None
    history: list[MessageRevision] = field(default_factory=list, repr=False)
    #: Service fields (new_chat_members, forum_topic_created, migrate_to_chat_id, ...).
    extra: dict[str, Any] = field(default_factory=dict)
    #: A photo message: the picture's bytes (``text`` and ``plain_text`` hold its caption).
    photo: bytes | None = field(default=None, repr=False)
    #: A photo message: ``(width, height)`` and the file id Telegram gave it.
    photo_size: tuple[int, int] | None = None
    photo_file_id: str | None = None
    #: An ephemeral message (Bot API 10.2): its id, unique per chat and user while the
    #: message lives, and reused after it was deleted or expired. None for others.
    ephemeral_message_id: int | None = None
    #: An ephemeral message: who receives it (the user for the bot's, the bot for a
    #: user's ephemeral command). Nobody else sees it.
    receiver: FakeUser | None = field(default=None, repr=False)
    #: An ephemeral message of the bot's: it reached its receiver (False: he was offline
    #: when it was sent, and he never sees it; the bot's edits and deletion still succeed).
    delivered: bool = True
    #: An ephemeral message that disappeared by itself (``ephemeral_ttl``) or because the
    #: app was restarted (``expire_ephemeral``).
    expired: bool = False
    #: An ephemeral message shown in place of this group message for its receiver
    #: (``replace_callback_query_message``): the group message's id.
    replaces: int | None = None
    #: ``World.clock()`` when it was sent (the 15-second window and ``ephemeral_ttl``).
    sent_at: float = 0.0
    #: Order of creation over every message of every chat (ephemeral ones included).
    serial: int = 0
    #: A message a user sent through the bot's inline mode (``choose_inline_result``):
    #: the bot, shown as "via @bot". None for every other message.
    via_bot: FakeUser | None = field(default=None, repr=False)
    #: Such a message with an inline keyboard: the opaque id its callback queries carry
    #: and the bot edits it by (editMessageText with ``inline_message_id``).
    inline_message_id: str | None = None

    @property
    def chat_id(self) -> int:
        """The id of the chat the message is in."""
        return self.chat.id

    @property
    def from_bot(self) -> bool:
        """Whether the bot sent it."""
        return self.sender.is_bot

    @property
    def is_ephemeral(self) -> bool:
        """An ephemeral message (the bot's to one user, or a user's ephemeral command)."""
        return self.ephemeral_message_id is not None

    @property
    def visible(self) -> bool:
        """What its receiver (or, for an ordinary message, the chat) sees now: not deleted
        and, for an ephemeral message, delivered and not expired."""
        return not self.deleted and self.delivered and not self.expired

    @property
    def buttons(self) -> list[list[Button]]:
        """The inline keyboard as rows of buttons ([] if none)."""
        return inline_buttons(self.reply_markup)

    @property
    def button_list(self) -> list[Button]:
        """All inline buttons, row by row."""
        return [button for row in self.buttons for button in row]

    def find_button(
        self,
        text_contains: str | None = None,
        *,
        text: str | None = None,
        data: str | None = None,
        data_prefix: str | None = None,
    ) -> Button:
        """The first matching inline button; LookupError (naming the buttons) if none."""
        found = select_button(
            self.button_list,
            text=text,
            text_contains=text_contains,
            data=data,
            data_prefix=data_prefix,
        )
        if found is None:
            drawn = [(b.text, b.callback_data or b.url) for b in self.button_list]
            raise LookupError(
                f"no button matching text={text!r} text_contains={text_contains!r} "
                f"data={data!r} data_prefix={data_prefix!r} in message {self.message_id} of "
                f"chat {self.chat_id}; buttons: {drawn}"
            )
        return found

    def has_button(
        self,
        text_contains: str | None = None,
        *,
        text: str | None = None,
        data: str | None = None,
        data_prefix: str | None = None,
    ) -> bool:
        """Whether a matching inline button is drawn."""
        return (
            select_button(
                self.button_list,
                text=text,
                text_contains=text_contains,
                data=data,
                data_prefix=data_prefix,
            )
            is not None
        )

    def to_api(self, *, nested: bool = False) -> dict[str, Any]:
        """The Bot API Message object as Telegram would return or deliver it now."""
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "from": self.sender.to_api(),
            "chat": self.chat.to_api(),
            "date": self.date,
        }
        if self.ephemeral_message_id is not None:
            # An ephemeral message has message_id 0 and its own id (tdesktop#31196:
            # "Telegram Bot API returns message_id: 0 along with an ephemeral_message_id").
            data["ephemeral_message_id"] = self.ephemeral_message_id
            if self.receiver is not None:
                data["receiver_user"] = self.receiver.to_api()
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            if self.chat.is_forum:
                data["is_topic_message"] = True
        if not nested and not self.is_ephemeral:
            target = self.chat.messages.get(self.reply_to) if self.reply_to else None
            if target is None and self.chat.is_forum and self.thread_id is not None:
                # Telegram puts the topic's creation message here for topic messages.
                target = self.chat.messages.get(self.thread_id)
                if target is self:
                    target = None
            if target is not None:
                data["reply_to_message"] = target.to_api(nested=True)
        if self.photo is not None and self.photo_size is not None:
            width, height = self.photo_size
            data["photo"] = [
                {
                    "file_id": self.photo_file_id,
                    "file_unique_id": f"u{self.photo_file_id}",
                    "width": width,
                    "height": height,
                    "file_size": len(self.photo),
                }
            ]
            if self.plain_text:
                data["caption"] = self.plain_text
                if self.entities:
                    data["caption_entities"] = self.entities
        elif self.text is not None:
            data["text"] = self.plain_text
            if self.entities:
                data["entities"] = self.entities
        if self.via_bot is not None:
            data["via_bot"] = self.via_bot.to_api()
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        data.update(self.extra)
        return data


@dataclass(eq=False)
class FakeChat:
    """A private chat, group, supergroup (possibly a forum) or channel as the bot knows it."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    #: The user of a private chat.
    user: FakeUser | None = None
    #: A private chat between two users (``create_private_chat``): the other one (``user``
    #: himself for his Saved Messages). None in the bot's private chats. The bot is not
    #: in such a chat: it sees only the inline messages sent there, by inline_message_id.
    peer: FakeUser | None = None
    #: A private chat between users that one of them deleted for both (``delete_chat``).
    deleted: bool = False
    #: A group or supergroup with content protection on (``protect_content``): guest bots
    #: cannot be summoned there.
    protected_content: bool = False
    #: Status of every user who ever was in the group (creator/administrator/member/...).
    members: dict[int, str] = field(default_factory=dict)
    #: The bot's own status in the chat.
    bot_status: str = MEMBER
    #: Ephemeral messages the server knows (not deleted, not expired on the server), by
    #: (user id, ephemeral_message_id): the bot's to that user and his commands to it.
    ephemeral: dict[tuple[int, int], FakeMessage] = field(default_factory=dict, repr=False)
    #: Every ephemeral message ever, oldest first (deleted and expired ones too).
    ephemeral_log: list[FakeMessage] = field(default_factory=list, repr=False)
    #: Forum topics: thread id -> name.
    topics: dict[int, str] = field(default_factory=dict)
    #: Who created each forum topic: thread id -> user id (the bot's own id for its topics).
    topic_creators: dict[int, int] = field(default_factory=dict)
    #: Forum topics closed (their thread ids): only topic managers post there.
    closed_topics: set[int] = field(default_factory=set)
    #: The forum's General topic is closed.
    general_closed: bool = False
    messages: dict[int, FakeMessage] = field(default_factory=dict, repr=False)
    pinned: list[int] = field(default_factory=list)
    migrated_to: int | None = None
    migrated_from: int | None = None
    next_message_id: int = 1

    @property
    def is_group(self) -> bool:
        """A group or supergroup (not a private chat, nor a channel)."""
        return self.type in (GROUP, SUPERGROUP)

    @property
    def between_users(self) -> bool:
        """A private chat between two users (or a user's Saved Messages), not the bot's."""
        return self.peer is not None

    def can_see(self, user: FakeUser) -> bool:
        """Whether ``user`` is in the chat: one of a private chat's users, or a present
        member of a group, supergroup or channel."""
        if self.type == PRIVATE:
            return user is self.user or user is self.peer
        return self.members.get(user.id) in PRESENT_STATUSES

    @property
    def bot_is_admin(self) -> bool:
        """The bot is an administrator (or it is a private chat)."""
        return self.type == PRIVATE or self.bot_status in (CREATOR, ADMINISTRATOR)

    def to_api(self) -> dict[str, Any]:
        """The Bot API Chat object."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == PRIVATE and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def full_info(self) -> dict[str, Any]:
        """The Bot API ChatFullInfo object (what getChat returns)."""
        data = self.to_api()
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if self.pinned and self.pinned[-1] in self.messages:
            data["pinned_message"] = self.messages[self.pinned[-1]].to_api(nested=True)
        if self.migrated_from is not None:
            data["migrated_from_chat_id"] = self.migrated_from
        return data

    def status_of(self, user_id: int) -> str:
        """A user's member status (a private chat's own user is a member)."""
        if self.type == PRIVATE:
            users = {u.id for u in (self.user, self.peer) if u is not None}
            return MEMBER if user_id in users else LEFT
        return self.members.get(user_id, LEFT)

    def live_messages(self) -> list[FakeMessage]:
        """Messages not deleted, oldest first."""
        return [m for m in self.messages.values() if not m.deleted]


@dataclass
class ApiCall:
    """One Bot API request the bot made, and what it got back."""

    method: str
    params: dict[str, Any]
    time: float
    ok: bool = False
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    retry_after: int | None = None
    #: The 429 was served by force_429, not by flood control.
    forced: bool = False
    #: Still waiting for the response (a long poll, or a call held by a timeout fault).
    pending: bool = True
    #: When the call ended (answered, or its client gone), on the clock of ``time``.
    ended: float | None = None
    #: The network fault the call met: "timeout", "reset" or "error" (see ``Faults``).
    fault: str | None = None
    #: The method took effect on the server: every ok call, and a faulted call carried
    #: out before its fault (then ``result`` is what the bot never got).
    applied: bool = False
    #: The server's port the call came in on: ``port``, or one that ``add_address`` opened.
    port: int | None = None

    @property
    def chat_id(self) -> Any:
        """The chat_id parameter, if any."""
        return self.params.get("chat_id")


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a callback query."""

    query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int


@dataclass(eq=False)
class Press:
    """A button press sent as a callback query; await ``answer()`` for the bot's answer."""

    query_id: str
    update_id: int
    user: FakeUser
    message: FakeMessage
    data: str
    created: float
    future: asyncio.Future[CallbackAnswer] = field(repr=False)

    @property
    def answered(self) -> bool:
        """Whether the bot answered the query."""
        return self.future.done()

    @property
    def result(self) -> CallbackAnswer | None:
        """The answer if there is one yet."""
        return self.future.result() if self.future.done() else None

    async def answer(self, timeout: float = 5.0) -> CallbackAnswer:
        """Wait for the bot's answerCallbackQuery (TimeoutError if it never comes)."""
        try:
            return await asyncio.wait_for(asyncio.shield(self.future), timeout)
        except TimeoutError:
            raise TimeoutError(
                f"the bot did not answer callback query {self.query_id} "
                f"(data={self.data!r}) within {timeout}s"
            ) from None
