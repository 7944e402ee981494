"""What simulated users do: start or block the bot, make groups, write, press buttons."""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .api import scope_key
from .formatting import command_entities, utf16_len
from .guest import GUEST_MODE_SINCE, GuestQuery, guest_chat_qualifies
from .inline import InlineAnswer, InlineQuery, chat_type_for
from .models import (
    ADMINISTRATOR,
    CHANNEL,
    CREATOR,
    GROUP,
    KICKED,
    LEFT,
    MEMBER,
    PRESENT_STATUSES,
    PRIVATE,
    SUPERGROUP,
    FakeChat,
    FakeMessage,
    FakeUser,
    Press,
)
from .world import ChatRef, UserRef, World

ANONYMOUS_ADMIN_ID = 1087968824
"""GroupAnonymousBot's user id, the same on every Telegram account."""
CHANNEL_BOT_ID = 136817688
"""Channel_Bot's user id: the ``from`` of every message a user posts on behalf of a
channel, whichever the channel (the Bot API's Message.from: "a fake sender user in
non-channel chats, if the message was sent on behalf of a chat"; umputun/tg-spam#370)."""

_MENTION_RE = re.compile(r"(?:(?<=\W)|^)@[A-Za-z0-9_]{3,32}")
_START_LINK_RE = re.compile(
    r"^(?:https?://)?(?:t\.me|telegram\.me)/(?P<bot>[A-Za-z0-9_]+)\?start=(?P<payload>[^&#\s]*)$"
    r"|^tg://resolve\?domain=(?P<bot2>[A-Za-z0-9_]+)&start=(?P<payload2>[^&#\s]*)$"
)


class Simulation:
    """User-side actions; each queues the updates Telegram would send to the bot."""

    world: World

    # ---- users and private chats -------------------------------------------------

    async def create_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "en",
        user_id: int | None = None,
    ) -> FakeUser:
        """A new user who has not started the bot yet."""
        uid = user_id if user_id is not None else self.world.new_user_id()
        return self.world.add_user(
            FakeUser(
                id=uid,
                first_name=first_name,
                username=username,
                last_name=last_name,
                language_code=language_code,
            )
        )

    async def create_users(self, *first_names: str, language_code: str = "en") -> list[FakeUser]:
        """Several users at once (usernames are the lower-cased first names)."""
        return [
            await self.create_user(name, username=name.lower(), language_code=language_code)
            for name in first_names
        ]

    async def start_bot(self, user: UserRef, payload: str | None = None) -> FakeMessage:
        """The user opens the bot and presses Start: "/start" or "/start <payload>"."""
        text = "/start" if not payload else f"/start {payload}"
        return await self.send_text(user, self.world.user(user).id, text)

    async def block_bot(self, user: UserRef) -> None:
        """The user blocks the bot (the bot gets my_chat_member: member -> kicked)."""
        person = self.world.user(user)
        if person.blocked:
            return
        person.blocked = True
        chat = self.world.private_chat(person)
        self.world.my_chat_member(chat, person, MEMBER, KICKED)

    async def unblock_bot(self, user: UserRef) -> None:
        """The user unblocks the bot (my_chat_member: kicked -> member)."""
        person = self.world.user(user)
        if not person.blocked:
            return
        person.blocked = False
        person.started = True
        chat = self.world.private_chat(person)
        self.world.my_chat_member(chat, person, KICKED, MEMBER)

    # ---- groups ------------------------------------------------------------------

    def _fill(
        self,
        chat: FakeChat,
        members: Iterable[UserRef],
        admins: Iterable[UserRef],
        creator: UserRef | None,
    ) -> None:
        for member in members:
            chat.members[self.world.user(member).id] = MEMBER
        for admin in admins:
            chat.members[self.world.user(admin).id] = ADMINISTRATOR
        if creator is not None:
            chat.members[self.world.user(creator).id] = CREATOR

    async def create_group(
        self,
        title: str,
        *,
        members: Iterable[UserRef] = (),
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_status: str = MEMBER,
    ) -> FakeChat:
        """A basic group that already has these members and the bot (no updates sent)."""
        chat = self.world.add_group(title, supergroup=False)
        self._fill(chat, members, admins, creator)
        chat.bot_status = bot_status
        return chat

    async def create_supergroup(
        self,
        title: str,
        *,
        forum: bool = False,
        username: str | None = None,
        members: Iterable[UserRef] = (),
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_status: str = MEMBER,
    ) -> FakeChat:
        """A supergroup (``forum=True`` for topics) with these members and the bot."""
        chat = self.world.add_group(title, supergroup=True, forum=forum, username=username)
        self._fill(chat, members, admins, creator)
        chat.bot_status = bot_status
        return chat

    async def create_channel(
        self,
        title: str,
        *,
        creator: UserRef,
        admins: Iterable[UserRef] = (),
        username: str | None = None,
    ) -> FakeChat:
        """A channel its creator (and admins) post in; the bot is not in it yet."""
        chat = self.world.add_channel(title, username=username)
        self._fill(chat, (), admins, creator)
        return chat

    async def create_topic(self, chat: ChatRef, name: str, *, by: UserRef | None = None) -> int:
        """A forum topic; returns its message_thread_id. With ``by``, the bot is told."""
        group = self.world.chat(chat)
        if not group.is_forum:
            raise ValueError(f"chat {group.id} is not a forum")
        sender = self.world.user(by) if by is not None else self.world.bot
        thread_id = group.next_message_id
        group.topics[thread_id] = name
        group.topic_creators[thread_id] = sender.id
        message = self.world.add_message(
            group,
            sender,
            thread_id=thread_id,
            extra={"forum_topic_created": {"name": name, "icon_color": 7322096}},
        )
        if by is not None:
            self._deliver(message, addressed=True)
        return thread_id

    def _topic_manager(self, group: FakeChat, by: UserRef, thread_id: int | None) -> FakeUser:
        """Who closes, reopens or deletes a topic: an admin, or (to close or reopen a topic
        that is not General) its creator."""
        person = self.world.user(by)
        admin = group.status_of(person.id) in (CREATOR, ADMINISTRATOR)
        creator = thread_id is not None and group.topic_creators.get(thread_id) == person.id
        if not (admin or creator):
            raise ValueError(f"{person.first_name} may not manage topics in chat {group.id}")
        return person

    def _topic(self, chat: ChatRef, thread_id: int) -> FakeChat:
        group = self.world.chat(chat)
        if not group.is_forum or thread_id not in group.topics:
            raise ValueError(f"no topic {thread_id} in chat {group.id}")
        return group

    async def close_topic(self, chat: ChatRef, thread_id: int, *, by: UserRef) -> None:
        """Close a forum topic: only topic managers and its creator may post there now;
        what is there stays, and the bot may still edit its messages. A service message
        says so in the topic."""
        group = self._topic(chat, thread_id)
        person = self._topic_manager(group, by, thread_id)
        group.closed_topics.add(thread_id)
        message = self.world.add_message(
            group, person, thread_id=thread_id, extra={"forum_topic_closed": {}}
        )
        self._deliver(message, addressed=True)

    async def reopen_topic(self, chat: ChatRef, thread_id: int, *, by: UserRef) -> None:
        """Reopen a closed forum topic (with a service message in it)."""
        group = self._topic(chat, thread_id)
        person = self._topic_manager(group, by, thread_id)
        group.closed_topics.discard(thread_id)
        message = self.world.add_message(
            group, person, thread_id=thread_id, extra={"forum_topic_reopened": {}}
        )
        self._deliver(message, addressed=True)

    async def delete_topic(self, chat: ChatRef, thread_id: int, *, by: UserRef) -> None:
        """Delete a forum topic and every message in it (an admin's act). The bot is not
        told: its sends there are refused ("message thread not found") and its messages
        there are gone ("message to edit not found")."""
        group = self._topic(chat, thread_id)
        person = self.world.user(by)
        if group.status_of(person.id) not in (CREATOR, ADMINISTRATOR):
            raise ValueError(f"{person.first_name} may not delete topics in chat {group.id}")
        del group.topics[thread_id]
        group.closed_topics.discard(thread_id)
        group.topic_creators.pop(thread_id, None)
        for message in group.messages.values():
            if message.thread_id == thread_id:
                message.deleted = True
        self.world.notifier.notify()

    async def close_general(self, chat: ChatRef, *, by: UserRef, closed: bool = True) -> None:
        """Close (or reopen) a forum's General topic: only topic managers post there."""
        group = self.world.chat(chat)
        if not group.is_forum:
            raise ValueError(f"chat {group.id} is not a forum")
        self._topic_manager(group, by, None)
        group.general_closed = closed
        self.world.notifier.notify()

    async def add_member(
        self, chat: ChatRef, user: UserRef, *, by: UserRef | None = None, announce: bool = True
    ) -> None:
        """A user joins (or is added ``by`` someone); a new_chat_members message is sent."""
        group = self.world.chat(chat)
        person = self.world.user(user)
        group.members[person.id] = MEMBER
        if announce:
            actor = self.world.user(by) if by is not None else person
            message = self.world.add_message(
                group, actor, extra={"new_chat_members": [person.to_api()]}
            )
            self._deliver(message, addressed=True)

    async def remove_member(
        self, chat: ChatRef, user: UserRef, *, kicked: bool = False, announce: bool = True
    ) -> None:
        """A user leaves (or is kicked); a left_chat_member message is sent."""
        group = self.world.chat(chat)
        person = self.world.user(user)
        group.members[person.id] = KICKED if kicked else LEFT
        if announce:
            message = self.world.add_message(
                group, person, extra={"left_chat_member": person.to_api()}
            )
            self._deliver(message, addressed=True)

    async def set_admin(self, chat: ChatRef, user: UserRef, admin: bool = True) -> None:
        """Promote a member to administrator (or demote him)."""
        group = self.world.chat(chat)
        person = self.world.user(user)
        if group.members.get(person.id) == CREATOR:
            return
        group.members[person.id] = ADMINISTRATOR if admin else MEMBER
        self.world.notifier.notify()

    async def add_bot(self, chat: ChatRef, *, by: UserRef, admin: bool = False) -> None:
        """Someone adds the bot: my_chat_member (left -> member) and new_chat_members. A
        channel takes a bot only as an administrator (tdlib td_api.tl,
        internalLinkTypeBotAddToChannel), and posts no service message about it."""
        group = self.world.chat(chat)
        actor = self.world.user(by)
        old = group.bot_status
        if group.type == CHANNEL:
            if group.status_of(actor.id) not in (CREATOR, ADMINISTRATOR):
                raise ValueError(f"{actor.first_name} may not add bots to channel {group.id}")
            group.bot_status = ADMINISTRATOR
            self.world.my_chat_member(group, actor, old, group.bot_status)
            return
        group.bot_status = ADMINISTRATOR if admin else MEMBER
        self.world.my_chat_member(group, actor, old, group.bot_status)
        message = self.world.add_message(
            group, actor, extra={"new_chat_members": [self.world.bot.to_api()]}
        )
        self._deliver(message, addressed=True)

    async def remove_bot(self, chat: ChatRef, *, by: UserRef, kicked: bool = True) -> None:
        """Someone removes the bot: my_chat_member (member -> kicked/left)."""
        group = self.world.chat(chat)
        old = group.bot_status
        group.bot_status = KICKED if kicked else LEFT
        self.world.my_chat_member(group, self.world.user(by), old, group.bot_status)

    async def set_bot_admin(self, chat: ChatRef, admin: bool = True, *, by: UserRef) -> None:
        """Promote the bot to administrator (or demote it): my_chat_member."""
        group = self.world.chat(chat)
        old = group.bot_status
        group.bot_status = ADMINISTRATOR if admin else MEMBER
        if old != group.bot_status:
            self.world.my_chat_member(group, self.world.user(by), old, group.bot_status)

    async def migrate_to_supergroup(self, chat: ChatRef, *, by: UserRef | None = None) -> FakeChat:
        """Upgrade a basic group: the old id then answers 400 with migrate_to_chat_id."""
        old = self.world.chat(chat)
        if old.type != GROUP or old.migrated_to is not None:
            raise ValueError(f"chat {old.id} is not a basic group")
        actor = self.world.user(by) if by is not None else self._some_admin(old)
        new = self.world.add_group(old.title or "", supergroup=True)
        new.members = dict(old.members)
        new.bot_status = old.bot_status
        new.migrated_from = old.id
        old.migrated_to = new.id
        to_message = self.world.add_message(old, actor, extra={"migrate_to_chat_id": new.id})
        self._deliver(to_message, addressed=True)
        from_message = self.world.add_message(new, actor, extra={"migrate_from_chat_id": old.id})
        self._deliver(from_message, addressed=True)
        return new

    def _some_admin(self, chat: FakeChat) -> FakeUser:
        for status in (CREATOR, ADMINISTRATOR, MEMBER):
            for uid, member_status in chat.members.items():
                if member_status == status:
                    return self.world.user(uid)
        raise ValueError(f"chat {chat.id} has no members; pass by=")

    # ---- writing -----------------------------------------------------------------

    def _deliver(self, message: FakeMessage, *, addressed: bool) -> dict[str, Any] | None:
        chat = message.chat
        if chat.between_users:
            return None  # the bot is not in a private chat between users
        if chat.type != PRIVATE:
            if chat.bot_status not in PRESENT_STATUSES:
                return None
            if self.world.privacy_mode and not addressed and not chat.bot_is_admin:
                return None
        return self.world.emit("message", message.to_api())

    def _addressed(self, text: str, reply_to: FakeMessage | None) -> bool:
        bot_name = (self.world.bot.username or "").lower()
        if reply_to is not None and reply_to.from_bot:
            return True
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            if "@" in command:
                return command.split("@", 1)[1].lower() == bot_name
            return True
        return f"@{bot_name}" in text.lower()

    async def send_text(
        self,
        user: UserRef,
        chat: ChatRef,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: FakeMessage | int | None = None,
        anonymous: bool = False,
        as_channel: ChatRef | None = None,
    ) -> FakeMessage:
        """The user writes ``text`` (commands get bot_command entities) in a chat or topic.

        ``anonymous``: an admin who posts as the group itself: the message comes from
        GroupAnonymousBot with the group as ``sender_chat``, as Telegram sends it.
        ``as_channel``: a member of a supergroup posts on behalf of a channel he runs:
        the message comes from Channel_Bot with the channel as ``sender_chat``."""
        person = self.world.user(user)
        place = self.world.chat(chat)
        self._require_online(person)
        extra: dict[str, Any] = {}
        sender = person
        if anonymous:
            if place.type == PRIVATE or place.status_of(person.id) not in (CREATOR, ADMINISTRATOR):
                raise ValueError(f"only an admin of chat {place.id} can post as the group")
            extra["sender_chat"] = place.to_api()
            sender = self._anonymous_bot()
        if as_channel is not None:
            channel = self.world.chat(as_channel)
            if channel.type != CHANNEL or channel.status_of(person.id) not in (
                CREATOR,
                ADMINISTRATOR,
            ):
                raise ValueError(f"{person.first_name} cannot post as chat {channel.id}")
            if place.type != SUPERGROUP:
                raise ValueError("only in a supergroup can one post as a channel")
            extra["sender_chat"] = channel.to_api()
            sender = self._channel_bot()
        if not text.strip():
            raise ValueError("a user cannot send an empty message")
        if place.type == CHANNEL:
            raise ValueError("posts in channels (channel_post updates) are not simulated")
        if place.deleted:
            raise ValueError(f"chat {place.id} was deleted")
        if place.type == PRIVATE:
            if not place.can_see(person):
                raise ValueError(f"{person.first_name} is not in private chat {place.id}")
            if not place.between_users:
                if person.blocked:
                    await self.unblock_bot(person)  # the client's "Restart" button
                person.started = True
        elif place.status_of(person.id) not in PRESENT_STATUSES:
            raise ValueError(f"{person.first_name} is not a member of chat {place.id}")
        if place.migrated_to is not None:
            raise ValueError(f"chat {place.id} was upgraded to {place.migrated_to}")
        target: FakeMessage | None = None
        if reply_to is not None:
            target = place.messages[reply_to if isinstance(reply_to, int) else reply_to.message_id]
            if thread_id is None and place.is_forum:
                thread_id = target.thread_id
        if thread_id is not None and place.is_forum and thread_id not in place.topics:
            raise ValueError(f"no topic {thread_id} in chat {place.id}")
        if place.is_forum and (
            place.general_closed if thread_id is None else thread_id in place.closed_topics
        ):
            creator = thread_id is not None and place.topic_creators.get(thread_id) == person.id
            if not creator and place.status_of(person.id) not in (CREATOR, ADMINISTRATOR):
                raise ValueError(f"{person.first_name} may not post in a closed topic")
        entities = command_entities(text)
        for match in _MENTION_RE.finditer(text):
            entities.append(
                {
                    "type": "mention",
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group(0)),
                }
            )
        entities.sort(key=lambda e: e["offset"])
        message = self.world.add_message(
            place,
            sender,
            text=text,
            entities=entities,
            thread_id=thread_id,
            reply_to=target.message_id if target else None,
            extra=extra,
        )
        self._deliver(message, addressed=self._addressed(text, target))
        return message

    async def delete_message(
        self, chat: ChatRef, message: FakeMessage | int, *, by: UserRef | None = None
    ) -> FakeMessage:
        """A user deletes a message (by default its author; an admin may delete anyone's;
        in a private chat either side any). Telegram tells the bot nothing: its later
        replies to it find no message, and edits of an inline message sent via it answer
        MESSAGE_ID_INVALID."""
        place = self.world.chat(chat)
        message_id = message.message_id if isinstance(message, FakeMessage) else message
        target = place.messages.get(message_id)
        if target is None or target.deleted:
            raise KeyError(f"no message {message_id} in chat {place.id}")
        person = self.world.user(by) if by is not None else target.sender
        # in a private chat either side deletes any message (for both)
        own = person is target.sender or (place.type == PRIVATE and place.can_see(person))
        if not own and place.status_of(person.id) not in (CREATOR, ADMINISTRATOR):
            raise ValueError(f"{person.first_name} may not delete message {message_id}")
        target.deleted = True
        self.world.notifier.notify()
        return target

    def _anonymous_bot(self) -> FakeUser:
        """GroupAnonymousBot, the sender Telegram shows for an anonymous admin's posts."""
        found = self.world.users.get(ANONYMOUS_ADMIN_ID)
        if found is None:
            found = self.world.add_user(
                FakeUser(
                    id=ANONYMOUS_ADMIN_ID,
                    first_name="Group",
                    username="GroupAnonymousBot",
                    is_bot=True,
                    language_code=None,
                    started=True,
                )
            )
        return found

    def _channel_bot(self) -> FakeUser:
        """Channel_Bot, the sender Telegram shows for posts made on behalf of a channel."""
        found = self.world.users.get(CHANNEL_BOT_ID)
        if found is None:
            found = self.world.add_user(
                FakeUser(
                    id=CHANNEL_BOT_ID,
                    first_name="Channel",
                    username="Channel_Bot",
                    is_bot=True,
                    language_code=None,
                    started=True,
                )
            )
        return found

    async def send_command(
        self,
        user: UserRef,
        chat: ChatRef,
        command: str,
        args: str = "",
        *,
        thread_id: int | None = None,
        mention: bool = False,
        anonymous: bool = False,
        as_channel: ChatRef | None = None,
        ephemeral: bool | None = False,
    ) -> FakeMessage:
        """The user sends ``/command [args]`` (``/command@bot`` with ``mention=True``;
        ``anonymous``: an admin posting as the group; ``as_channel``: on behalf of a
        channel he runs).

        ``ephemeral=True``: as an ephemeral command (Bot API 10.2), which the bot must have
        declared with ``is_ephemeral`` in the command list this user sees in this group
        (ValueError if not): see ``send_ephemeral_command``. ``ephemeral=None``: as his
        app would, ephemeral if and only if the bot declared it so. False (default): an
        ordinary message."""
        name = command.lstrip("/")
        if ephemeral is None:
            ephemeral = self.declares_ephemeral(chat, user, name)
        if ephemeral:
            if anonymous or as_channel is not None:
                raise ValueError("an ephemeral command is sent by the user himself")
            return await self.send_ephemeral_command(
                user, chat, name, args, thread_id=thread_id, mention=mention
            )
        text = "/" + name
        if mention:
            text += f"@{self.world.bot.username}"
        if args:
            text += f" {args}"
        return await self.send_text(
            user, chat, text, thread_id=thread_id, anonymous=anonymous, as_channel=as_channel
        )

    async def open_link(self, user: UserRef, url: str) -> FakeMessage:
        """The user follows a ``t.me/<bot>?start=<payload>`` link (sends /start payload)."""
        match = _START_LINK_RE.match(url)
        if match is None:
            raise ValueError(f"not a start link: {url}")
        bot = match.group("bot") or match.group("bot2")
        payload = match.group("payload") if match.group("bot") else match.group("payload2")
        if bot.lower() != (self.world.bot.username or "").lower():
            raise ValueError(f"the link {url} opens another bot")
        return await self.start_bot(user, payload or None)

    # ---- ephemeral messages ------------------------------------------------------

    @staticmethod
    def _require_online(person: FakeUser) -> None:
        if not person.online:
            raise ValueError(f"{person.first_name} is offline (set_online) and does nothing")

    async def set_online(self, user: UserRef, online: bool = True) -> None:
        """Connect (or, ``online=False``, disconnect) the user's app. Ephemeral messages
        sent while he is offline never reach him: the send succeeds, and so do the bot's
        edits and deletion of such a message, yet he never sees it (Bot API: "It is not
        guaranteed that the ephemeral message will be received, especially if the user is
        offline"). An offline user writes and presses nothing (ValueError)."""
        self.world.user(user).online = online
        self.world.notifier.notify()

    async def expire_ephemeral(
        self, chat: ChatRef | None, user: UserRef, *, known_to_server: bool = True
    ) -> list[FakeMessage]:
        """Every ephemeral message between the bot and ``user`` in ``chat`` (None: in every
        chat) disappears, as when his app restarts ("They may disappear automatically
        after some time, or if the app is restarted", Bot API). Returns them.

        ``known_to_server`` (default): the server forgets them too: the bot's edits and
        deletions answer "message to edit not found" / "message to delete not found", a
        reply to his command finds nothing, and their ids are given out again. False: only
        his app drops them; the bot's edits and deletions still succeed, unseen. (Which
        one Telegram does after a restart is not documented.)"""
        person = self.world.user(user)
        chats = [self.world.chat(chat)] if chat is not None else list(self.world.chats.values())
        gone = []
        for place in chats:
            for message in place.ephemeral_log:
                party = message.receiver if message.from_bot else message.sender
                if party is not person or message.deleted or message.expired:
                    continue
                message.expired = True
                gone.append(message)
                if known_to_server:
                    self.world.forget_ephemeral(message)
        self.world.notifier.notify()
        return gone

    def declares_ephemeral(self, chat: ChatRef, user: UserRef, command: str) -> bool:
        """Whether ``/command`` is ephemeral in the command list ``user`` sees in ``chat``:
        the first list set in the Bot API's order for groups ("Determining list of
        commands": chat_member, chat_administrators (admins), chat,
        all_chat_administrators (admins), all_group_chats, default; each with the user's
        language first) that has the command with ``is_ephemeral``."""
        place = self.world.chat(chat)
        person = self.world.user(user)
        if not place.is_group:
            return False
        name = command.lstrip("/").split("@", 1)[0].split(maxsplit=1)[0].lower()
        admin = place.status_of(person.id) in (CREATOR, ADMINISTRATOR)
        scopes: list[dict[str, Any]] = [
            {"type": "chat_member", "chat_id": place.id, "user_id": person.id}
        ]
        if admin:
            scopes.append({"type": "chat_administrators", "chat_id": place.id})
        scopes.append({"type": "chat", "chat_id": place.id})
        if admin:
            scopes.append({"type": "all_chat_administrators"})
        scopes += [{"type": "all_group_chats"}, {"type": "default"}]
        languages = [person.language_code, ""] if person.language_code else [""]
        for scope in scopes:
            for language in languages:
                found = self.world.commands.get((scope_key(scope), language or ""))
                if found:
                    return any(c["command"] == name and c.get("is_ephemeral") for c in found)
        return False

    async def send_ephemeral_command(
        self,
        user: UserRef,
        chat: ChatRef,
        command: str,
        args: str = "",
        *,
        thread_id: int | None = None,
        mention: bool = False,
        require_declared: bool = True,
    ) -> FakeMessage:
        """The user sends ``/command [args]`` as an ephemeral command in a group or
        supergroup: "received by the target bot but remains invisible to all members of
        the chat, including both users and other bots" (Bot API, "Ephemeral messages and
        commands"). The bot gets a ``message`` update with message_id 0, an
        ``ephemeral_message_id`` and ``receiver_user`` = the bot, whatever its privacy
        mode (it is addressed to it, as commands are); the message is not among the
        group's messages. Within ``ephemeral_window`` (15 s) the bot may answer with an
        ephemeral message whose ``reply_parameters.ephemeral_message_id`` names it.

        ``require_declared``: ValueError unless the bot declared the command
        ``is_ephemeral`` for him in this group (his app sends others as ordinary
        messages)."""
        person = self.world.user(user)
        place = self.world.chat(chat)
        self._require_online(person)
        if not place.is_group:
            raise ValueError("ephemeral commands are sent in groups and supergroups only")
        if place.status_of(person.id) not in PRESENT_STATUSES:
            raise ValueError(f"{person.first_name} is not a member of chat {place.id}")
        if place.migrated_to is not None:
            raise ValueError(f"chat {place.id} was upgraded to {place.migrated_to}")
        name = command.lstrip("/")
        if require_declared and not self.declares_ephemeral(place, person, name):
            raise ValueError(
                f"the bot declared no ephemeral /{name} for {person.first_name} in chat "
                f"{place.id} (setMyCommands with is_ephemeral): his app would send it as an "
                "ordinary message"
            )
        if thread_id is not None and place.is_forum and thread_id not in place.topics:
            raise ValueError(f"no topic {thread_id} in chat {place.id}")
        text = "/" + name
        if mention:
            text += f"@{self.world.bot.username}"
        if args:
            text += f" {args}"
        message = self.world.add_ephemeral(
            place,
            person,
            self.world.bot,
            text=text,
            entities=command_entities(text),
            thread_id=thread_id,
        )
        if place.bot_status in PRESENT_STATUSES:
            self.world.emit("message", message.to_api())
        return message

    # ---- inline mode -------------------------------------------------------------

    async def create_private_chat(self, user: UserRef, other: UserRef | None = None) -> FakeChat:
        """The private chat between ``user`` and ``other`` (None or himself: his Saved
        Messages, chat_type "sender"), made if there is none. Either may use the bot
        inline there and press the buttons of what was sent; the bot is not in it, gets
        no update of what is written there and cannot name it (it is not in ``chats``)."""
        person = self.world.user(user)
        partner = self.world.user(other) if other is not None else person
        if person.is_bot or partner.is_bot:
            raise ValueError("a bot's private chat is private_chat(user)")
        return self.world.user_chat(person, partner)

    async def delete_chat(self, chat: ChatRef, *, by: UserRef) -> None:
        """One of its users deletes a private chat between users, for both: every message
        in it is gone, and the bot's edits of the inline messages there answer
        MESSAGE_ID_INVALID. (Only such chats: the bot is told when a group goes.)"""
        place = self.world.chat(chat)
        person = self.world.user(by)
        if not place.between_users:
            raise ValueError("only a private chat between users is deleted this way")
        if not place.can_see(person):
            raise ValueError(f"{person.first_name} is not in chat {place.id}")
        place.deleted = True
        for message in place.messages.values():
            message.deleted = True
        self.world.notifier.notify()

    def _check_inline_chat(self, person: FakeUser, place: FakeChat) -> None:
        """A user uses the bot inline only where he may write."""
        self._require_online(person)
        if place.deleted:
            raise ValueError(f"chat {place.id} was deleted")
        if place.type == PRIVATE:
            if not place.can_see(person):
                raise ValueError(f"{person.first_name} is not in private chat {place.id}")
            return
        if place.migrated_to is not None:
            raise ValueError(f"chat {place.id} was upgraded to {place.migrated_to}")
        allowed = (CREATOR, ADMINISTRATOR) if place.type == CHANNEL else PRESENT_STATUSES
        if place.status_of(person.id) not in allowed:
            raise ValueError(f"{person.first_name} may not write in chat {place.id}")

    def _cached_answer(self, person: FakeUser, text: str, offset: str) -> InlineAnswer | None:
        """An answer Telegram still keeps for this query: his own (``is_personal``), or
        one for anyone; None if there is none or its ``cache_time`` is over."""
        cache = self.world.inline_cache
        now = self.world.clock()
        for owner in (person.id, None):
            key = (owner, text, offset)
            entry = cache.get(key)
            if entry is None:
                continue
            if now >= entry[1]:
                del cache[key]
                continue
            return entry[0]
        return None

    async def inline_query(
        self,
        user: UserRef,
        chat: ChatRef,
        text: str,
        *,
        offset: str = "",
        timeout: float | None = None,
    ) -> InlineAnswer:
        """The user types ``@bot text`` in ``chat`` (any chat he may write in: a group
        with or without the bot, a private chat between users, the bot's own) and waits
        for the results his app lists.

        * Telegram answers from its cache, with no update to the bot, if the bot answered
          the same ``text`` (and ``offset``) within ``cache_time`` for anyone, or, with
          ``is_personal``, for him ("results may be cached on the server side only for
          the user that sent the query. By default, results may be returned to any user
          who sends the same query", Bot API): ``answer.cached``.
        * Else the bot gets an ``inline_query`` update (id, from, query, offset,
          chat_type) and the call waits for its answerInlineQuery, ``timeout`` real
          seconds at most (default ``inline_timeout``). Unanswered by then, his app shows
          nothing (``answer.timed_out``) and a late answer is refused ("query is too old
          and response timeout expired or query ID is invalid").
        * Inline mode off (``inline_mode``): nothing is sent, no results.

        ``offset``: the next page, as his app asks for it when he scrolls past the results
        (the answer's ``next_offset``)."""
        person = self.world.user(user)
        place = self.world.chat(chat)
        self._check_inline_chat(person, place)
        world = self.world
        if not world.inline_mode:
            return InlineAnswer([], person, place, text, offset)
        cached = self._cached_answer(person, text, offset)
        if cached is not None:
            return replace(cached, user=person, chat=place, query=None, cached=True)
        query_id = world.new_inline_query_id()
        chat_type = chat_type_for(place, person)
        update = world.emit(
            "inline_query",
            {
                "id": query_id,
                "from": person.to_api(),
                "query": text,
                "offset": offset,
                "chat_type": chat_type,
            },
        )
        query = InlineQuery(
            id=query_id,
            update_id=update["update_id"],
            user=person,
            chat=place,
            query=text,
            offset=offset,
            chat_type=chat_type,
            created=world.clock(),
            future=asyncio.get_running_loop().create_future(),
        )
        world.inline_queries[query_id] = query
        wait = world.inline_timeout if timeout is None else timeout
        try:
            return await asyncio.wait_for(asyncio.shield(query.future), wait)
        except TimeoutError:
            query.expired = True  # his app gave up: a later answer is refused
            world.notifier.notify()
            return InlineAnswer(
                [], person, place, text, offset, query_id=query_id, query=query, timed_out=True
            )

    async def choose_inline_result(
        self,
        user: UserRef,
        chat: ChatRef,
        results: InlineAnswer,
        which: int | str = 0,
        *,
        thread_id: int | None = None,
    ) -> FakeMessage:
        """The user picks a result (by position, or by its id) of the answer his app
        showed him in ``chat``: its message is posted there as his, "via @bot"
        (``via_bot``), with the result's keyboard and, if there is one, an
        ``inline_message_id`` the bot edits it by and its presses carry.

        The bot gets a message update only where it would see the message anyway: in its
        own private chat, and in a group it is in ("Messages sent via this bot" reach it
        in privacy mode too, Bot API FAQ); in other chats it learns nothing, unless inline
        feedback is on (``inline_feedback``): then a ``chosen_inline_result`` (result_id,
        from, query, and inline_message_id if the message has a keyboard; no chat)."""
        person = self.world.user(user)
        place = self.world.chat(chat)
        if results.user is not person or results.chat is not place:
            raise ValueError(
                f"the answer was shown to {results.user.first_name} in chat {results.chat.id}"
            )
        result = results.result(which)
        self._check_inline_chat(person, place)
        if thread_id is not None and place.is_forum and thread_id not in place.topics:
            raise ValueError(f"no topic {thread_id} in chat {place.id}")
        markup = copy.deepcopy(result.reply_markup)
        message = self.world.add_message(
            place,
            person,
            text=result.message_text,
            parse_mode=result.parse_mode,
            plain_text=result.plain_text,
            entities=copy.deepcopy(result.entities),
            reply_markup=markup,
            thread_id=thread_id,
        )
        message.via_bot = self.world.bot
        if markup and any(markup.get("inline_keyboard") or []):
            # "Available only if there is an inline keyboard attached to the message"
            # (Bot API, ChosenInlineResult.inline_message_id)
            message.inline_message_id = self.world.new_inline_message_id(person)
            self.world.inline_messages[message.inline_message_id] = message
        if place.type != CHANNEL:  # channel posts are not simulated
            self._deliver(message, addressed=True)
        if self.world.feedback_drawn():
            chosen: dict[str, Any] = {"result_id": result.id, "from": person.to_api()}
            if message.inline_message_id is not None:
                chosen["inline_message_id"] = message.inline_message_id
            chosen["query"] = results.text
            self.world.emit("chosen_inline_result", chosen)
        return message

    # ---- guest mode --------------------------------------------------------------

    async def protect_content(self, chat: ChatRef, protected: bool = True) -> None:
        """An admin turns content protection of a group or supergroup on (or off): guest
        bots can no longer be summoned there ("except for groups/supergroups with content
        protection enabled", core.telegram.org/api/bots/guest-mode)."""
        place = self.world.chat(chat)
        if place.type not in (GROUP, SUPERGROUP):
            raise ValueError("content protection is simulated for groups and supergroups")
        place.protected_content = protected
        self.world.notifier.notify()

    async def mention_guest(
        self,
        user: UserRef,
        chat: ChatRef,
        text: str,
        *,
        reply_to: FakeMessage | int | None = None,
        thread_id: int | None = None,
        anonymous: bool = False,
        as_channel: ChatRef | None = None,
    ) -> GuestQuery:
        """The user sends ``text``, which mentions ``@bot``, in ``chat``: the message is
        posted there as any (``send_text``; ``reply_to``, ``thread_id``, ``anonymous``
        and ``as_channel`` as there), and, if the bot is a guest there, it is a guest
        query (Bot API 10.0; core.telegram.org/api/bots/guest-mode: "To invoke a guest
        bot, the user mentions its @username in a chat").

        * A guest query is made when guest mode is on (``guest_mode``), the bot is not a
          member of the chat ("supports guest queries from chats it is not a member of",
          Bot API, User.supports_guest_queries) and the chat qualifies: "any non-secret
          private chat, group and supergroup (except for groups/supergroups with content
          protection enabled)": a private chat between users (``create_private_chat``), a
          group or supergroup the bot left or was never in. The bot gets a
          ``guest_message`` update: the user's message as a Message, with
          ``guest_query_id`` and, if it replies to one, ``reply_to_message``
          (telegram-bot-api, Client.cpp: add_new_guest_query). The call returns at once;
          ``await query.wait_reply()`` waits for the bot's answerGuestQuery, which posts
          the answer in the chat (``query.reply``).
        * Where the bot is a member (its own private chat, a group it is in) the message
          reaches it as an ordinary one, as far as privacy mode lets it (a mention does);
          guest mode off, a protected group: nobody is told. ``query.sent`` is then False.
        """
        bot_name = (self.world.bot.username or "").lower()
        mentioned = [m.group(0)[1:].lower() for m in _MENTION_RE.finditer(text)]
        if bot_name not in mentioned:
            raise ValueError(f"the text does not mention @{self.world.bot.username}")
        person = self.world.user(user)
        place = self.world.chat(chat)
        message = await self.send_text(
            person,
            place,
            text,
            thread_id=thread_id,
            reply_to=reply_to,
            anonymous=anonymous,
            as_channel=as_channel,
        )
        query = GuestQuery(message=message, user=person, chat=place)
        world = self.world
        member = not place.between_users and (
            place.type == PRIVATE or place.bot_status in PRESENT_STATUSES
        )
        if (
            member
            or not world.guest_mode
            or not world.knows(GUEST_MODE_SINCE)
            or not guest_chat_qualifies(place)
        ):
            return query
        query.id = world.new_guest_query_id()
        payload = message.to_api()
        payload["guest_query_id"] = query.id
        update = world.emit("guest_message", payload)
        query.update_id = update["update_id"]
        query.created = world.clock()
        query.future = asyncio.get_running_loop().create_future()
        world.guest_queries[query.id] = query
        return query

    # ---- time --------------------------------------------------------------------

    def age_message(self, chat: ChatRef, message: FakeMessage | int, hours: float) -> FakeMessage:
        """Make a message ``hours`` older: its ``date`` moves back that far.

        Only that message ages (no clock moves): after 48 hours the bot can no longer
        delete it, but it can still edit it. Returns the message.
        """
        place = self.world.chat(chat)
        message_id = message.message_id if isinstance(message, FakeMessage) else message
        target = place.messages.get(message_id)
        if target is None:
            raise KeyError(f"no message {message_id} in chat {place.id}")
        if hours < 0:
            raise ValueError("a message cannot be made younger")
        target.date -= round(hours * 3600)
        self.world.notifier.notify()
        return target

    # ---- buttons -----------------------------------------------------------------

    def _check_ephemeral_press(self, person: FakeUser, message: FakeMessage) -> None:
        """Only its receiver sees an ephemeral message, and only while it is there."""
        self.world.sweep_ephemeral()
        if not message.from_bot:
            raise ValueError("an ephemeral command has no buttons")
        if message.receiver is not person:
            raise ValueError(
                f"{person.first_name} cannot see ephemeral message "
                f"{message.ephemeral_message_id}: only its receiver does"
            )
        if not message.visible:
            state = (
                "was deleted"
                if message.deleted
                else "expired"
                if message.expired
                else "never reached him (he was offline)"
            )
            raise ValueError(
                f"ephemeral message {message.ephemeral_message_id} {state}: "
                f"{person.first_name} sees nothing to press"
            )

    async def press(
        self,
        user: UserRef,
        message: FakeMessage,
        text_contains: str | None = None,
        *,
        text: str | None = None,
        data: str | None = None,
        data_prefix: str | None = None,
        force: bool = False,
    ) -> Press:
        """The user presses an inline button of ``message``: a callback_query update.

        ``message`` may be one sent via the bot (``choose_inline_result``): the query then
        has its ``inline_message_id`` and ``chat_instance``, and no ``message`` (nor chat);
        anyone in that chat may press, whether or not the bot is there.

        ``message`` may be an ephemeral message of the bot's: only its receiver can press
        it (ValueError for anyone else, who does not see it, and for a message he never
        got, deleted or expired); the query's ``message`` is then the ephemeral message
        (message_id 0, ``ephemeral_message_id``, ``receiver_user``). A disabled button
        (ValueError) and an offline user (ValueError) press nothing.

        The button is found by its text or data (LookupError if not drawn now). With
        ``force=True`` and ``data``, the data is sent even if no such button is drawn
        (a stale press, as from a client that has not seen an edit yet).
        """
        person = self.world.user(user)
        chat = message.chat
        self._require_online(person)
        if message.is_ephemeral:
            self._check_ephemeral_press(person, message)
        elif message.deleted or chat.deleted:
            raise ValueError(f"message {message.message_id} of chat {chat.id} is deleted")
        if chat.type == PRIVATE:
            if not chat.can_see(person):
                raise ValueError(f"{person.first_name} cannot see private chat {chat.id}")
            if person.blocked and not chat.between_users:
                raise ValueError(f"{person.first_name} blocked the bot")
        elif chat.status_of(person.id) not in PRESENT_STATUSES:
            raise ValueError(f"{person.first_name} is not a member of chat {chat.id}")
        if not message.is_ephemeral and any(
            m.replaces == message.message_id and m.receiver is person and m.visible
            for m in chat.ephemeral_log
        ):
            raise ValueError(
                f"{person.first_name} sees an ephemeral message in place of message "
                f"{message.message_id} (replace_callback_query_message): press that one"
            )
        if force and data is not None:
            payload = data
        else:
            button = message.find_button(
                text_contains, text=text, data=data, data_prefix=data_prefix
            )
            if button.disabled:
                # a disabled button "does nothing" when pressed (Bot API 10.3)
                raise ValueError(f"button {button.text!r} is disabled: pressing it does nothing")
            if button.callback_data is None:
                raise ValueError(f"button {button.text!r} is not a callback button")
            payload = button.callback_data
        query_id = self.world.new_query_id()
        query: dict[str, Any] = {"id": query_id, "from": person.to_api()}
        if message.inline_message_id is not None:
            # a message sent via the bot: no message and no chat, only its id (telegram-bot-
            # api, Client.cpp: JsonInlineCallbackQuery)
            query["inline_message_id"] = message.inline_message_id
        else:
            query["message"] = message.to_api()
        query["chat_instance"] = self.world.chat_instance(chat)
        query["data"] = payload
        update = self.world.emit("callback_query", query)
        press = Press(
            query_id=query_id,
            update_id=update["update_id"],
            user=person,
            message=message,
            data=payload,
            created=self.world.clock(),
            future=asyncio.get_running_loop().create_future(),
        )
        self.world.queries[query_id] = press
        return press
